// Package llm is the provider-neutral vocabulary of model calls: a Request is a value built
// per call, a Model turns it into a Response. Adapters for each provider live in
// subpackages and never import each other.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Role is who speaks a turn. Providers map it to their own names (Gemini: user/model).
type Role string

// Roles of conversation turns. The system instruction is not a turn: it is Request.System.
const (
	User      Role = "user"
	Assistant Role = "assistant"
	// ToolRole turns carry tool results for the preceding assistant tool calls.
	ToolRole Role = "tool"
)

// Part is one piece of a turn: text, an image or audio (user turns only), a tool call
// (assistant turns) or a tool result (tool turns). Exactly one field is set. Adapters keep
// the order of a turn's parts, and send media a provider cannot take as a short text
// placeholder (MediaPlaceholder) instead, so the turn's text always reaches the model.
type Part struct {
	Text       string
	Image      *Blob
	Audio      *Blob
	ToolCall   *ToolCall
	ToolResult *ToolResult
}

// Blob is media bytes sent to a model: an image (image/png, image/jpeg, image/webp,
// image/gif) or audio (audio/ogg, audio/mpeg, audio/wav, ...).
type Blob struct {
	MIME string // the media type, as Telegram reports it; parameters are allowed
	Data []byte
}

// Turn is one message of the conversation sent to the model.
type Turn struct {
	Role  Role
	Parts []Part
}

// Text returns a turn of role with a single text part.
func Text(role Role, text string) Turn { return Turn{Role: role, Parts: []Part{{Text: text}}} }

// Tool is a function the model may call; Parameters is a JSON Schema object.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// ToolCall is the model's request to run a tool. ID is the provider's call id (synthesised
// when the provider has none, as Gemini usually does); Signature is Gemini's
// thoughtSignature, echoed back verbatim.
type ToolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
	Signature []byte
}

// ToolResult answers the tool call with the same ID (and Name, which Gemini needs).
type ToolResult struct {
	CallID  string
	Name    string
	Content string
	IsError bool
}

// Request is one model call. It is a value: build it per call, never share and mutate.
type Request struct {
	Model  string // the provider's model name, without the "provider/" prefix
	System string // system instruction: the stable part, cacheable across turns
	// Context is further system context that changes more often (memory, summaries,
	// recalled items). Adapters place it after System in the system instruction; where the
	// provider supports explicit caching, only System is marked as the cached prefix.
	Context     string
	Turns       []Turn
	Tools       []Tool
	MaxTokens   int     // 0 = adapter default
	Temperature float64 // 0 = provider default
	// CacheSystem asks providers that support explicit prompt caching (Anthropic) to mark
	// the system instruction as a cache breakpoint.
	CacheSystem bool
	// Session names the conversation the request belongs to (agent, chat, topic and
	// session), for models that keep a session of their own (command-line agents); HTTP
	// models ignore it. Empty: none.
	Session string
}

// SystemText is the whole system instruction of req: System, then Context, separated by
// a blank line.
func SystemText(req Request) string {
	switch {
	case req.Context == "":
		return req.System
	case req.System == "":
		return req.Context
	}
	return req.System + "\n\n" + req.Context
}

// Usage counts the tokens of one call.
type Usage struct {
	InputTokens  int
	OutputTokens int
	CachedTokens int // input tokens served from the provider's prompt cache
}

// Response is the model's answer.
type Response struct {
	Text       string
	ToolCalls  []ToolCall
	Usage      Usage
	StopReason string // provider's finish reason, normalised to lower case
	Model      string // model that answered, as the provider reports it
}

// Model is one provider's model endpoint. Implementations are safe for concurrent use.
type Model interface {
	// Generate sends req and returns the complete response. Errors from the provider are
	// *Error values.
	Generate(ctx context.Context, req Request) (*Response, error)
	// Stream sends req as a streaming call, calling onText with each text fragment as it
	// arrives, and returns the accumulated response (text and tool calls) at the end.
	Stream(ctx context.Context, req Request, onText func(string)) (*Response, error)
}

// Error is a failed provider call.
type Error struct {
	Provider   string        // empty when the failure is not the provider's own (a deadline)
	Status     int           // HTTP status; 0 for transport errors, deadlines and malformed answers
	RetryAfter time.Duration // from Retry-After (or the provider's retry hint); 0 if none
	Message    string        // the provider's error message (never shown to Telegram users)
	Err        error         // underlying error, if any
}

func (e *Error) Error() string {
	msg := e.Message
	if e.Status != 0 {
		msg = fmt.Sprintf("status %d: %s", e.Status, msg)
	}
	if e.Provider == "" {
		return msg
	}
	return e.Provider + ": " + msg
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the call may succeed if repeated: transport errors, deadlines
// and malformed answers (Status 0), 408, 409, 429 and 5xx.
func (e *Error) Retryable() bool {
	return e.Status == 0 || e.Status == 408 || e.Status == 409 || e.Status == 429 || e.Status >= 500
}

// ErrMalformed is wrapped by the *Error of a call whose answer is not what the API
// promises: a 200 response whose body is not a completion, or a stream that is empty,
// not a stream (a proxy's HTML page) or cut off before its end. Like a transport error
// it is retryable: the provider, or something on the way, failed.
var ErrMalformed = errors.New("malformed answer")

// Malformed returns the retryable *Error of provider for an answer that is not what its
// API promises (see ErrMalformed); what says what was wrong.
func Malformed(provider, what string) *Error {
	return &Error{Provider: provider, Message: "malformed answer: " + what, Err: ErrMalformed}
}
