package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/mynah-ai/mynah/internal/llm"
)

// NewGemini starts a fake Gemini API server: POST /v1beta/models/{model}:generateContent
// (JSON) and :streamGenerateContent?alt=sse (SSE), whose parts may hold images and audio
// as inlineData. Its URL is the host root, as genai's
// HTTPOptions.BaseURL is. Requests authenticate with x-goog-api-key or ?key=. Reply
// tool calls without a Signature get a made-up thoughtSignature on the first call, as
// Gemini 3 does.
func NewGemini(t TB) *Server {
	t.Helper()
	return newServer(t, geminiDialect{}, "")
}

type geminiDialect struct{}

// geminiPart accepts both the camelCase names genai sends and the snake_case ones the
// API also takes.
type geminiPart struct {
	Text       *string     `json:"text"`
	Call       *geminiCall `json:"functionCall"`
	CallS      *geminiCall `json:"function_call"`
	Resp       *geminiCall `json:"functionResponse"`
	RespS      *geminiCall `json:"function_response"`
	Signature  []byte      `json:"thoughtSignature"`
	SignatureS []byte      `json:"thought_signature"`
	Inline     *geminiBlob `json:"inlineData"`
	InlineS    *geminiBlob `json:"inline_data"`
}

type geminiBlob struct {
	MimeType  string `json:"mimeType"`
	MimeTypeS string `json:"mime_type"`
	Data      []byte `json:"data"` // base64 on the wire
}

type geminiCall struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Args     json.RawMessage `json:"args,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiRequest struct {
	Contents []geminiContent `json:"contents"`
	System   *geminiContent  `json:"systemInstruction"`
	SystemS  *geminiContent  `json:"system_instruction"`
	Tools    []struct {
		Decls  []struct{ Name string } `json:"functionDeclarations"`
		DeclsS []struct{ Name string } `json:"function_declarations"`
	} `json:"tools"`
}

func (geminiDialect) parse(r *http.Request, body []byte, rec *Recorded) (string, int) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1beta/models/")
	i := strings.LastIndex(rest, ":")
	if !ok || r.Method != http.MethodPost || i <= 0 {
		return fmt.Sprintf("unknown endpoint %s %s", r.Method, r.URL.Path), http.StatusNotFound
	}
	rec.Model = rest[:i]
	switch verb := rest[i+1:]; verb {
	case "generateContent":
	case "streamGenerateContent":
		if r.URL.Query().Get("alt") != "sse" {
			return "streamGenerateContent without alt=sse (a JSON array stream) is not supported by the fake", 0
		}
		rec.Stream = true
	default:
		return fmt.Sprintf("unknown method %q", verb), http.StatusNotFound
	}
	if r.Header.Get("X-Goog-Api-Key") == "" && r.URL.Query().Get("key") == "" {
		return "Method doesn't allow unregistered callers. Please use API Key or other form of API consumer identity to call this API.", http.StatusForbidden
	}
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return "Invalid JSON payload received. " + err.Error(), 0
	}
	for _, t := range req.Tools {
		for _, d := range append(t.Decls, t.DeclsS...) {
			rec.Tools = append(rec.Tools, d.Name)
		}
	}
	if sys := cmpOr(req.System, req.SystemS); sys != nil {
		for _, p := range sys.Parts {
			if p.Text != nil {
				rec.System += *p.Text
			}
		}
	}
	if len(req.Contents) == 0 {
		return "* GenerateContentRequest.contents: contents is not specified", 0
	}
	for i, c := range req.Contents {
		if c.Role != "user" && c.Role != "model" {
			return fmt.Sprintf("Please use a valid role: user, model (contents[%d].role is %q).", i, c.Role), 0
		}
		if len(c.Parts) == 0 {
			return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.", i), 0
		}
		turn := llm.Turn{Role: llm.Role(c.Role)}
		for j, p := range c.Parts {
			part, problem := geminiNeutral(c.Role, p)
			if problem != "" {
				return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d]: %s", i, j, problem), 0
			}
			turn.Parts = append(turn.Parts, part)
		}
		rec.Turns = append(rec.Turns, turn)
	}
	return "", 0
}

func cmpOr[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

func geminiNeutral(role string, p geminiPart) (llm.Part, string) {
	sig := p.Signature
	if sig == nil {
		sig = p.SignatureS
	}
	if c := cmpOr(p.Call, p.CallS); c != nil {
		if role != "model" || c.Name == "" {
			return llm.Part{}, "functionCall needs role model and a name"
		}
		args := c.Args
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		return llm.Part{ToolCall: &llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: args, Signature: sig}}, ""
	}
	if c := cmpOr(p.Resp, p.RespS); c != nil {
		if role != "user" || c.Name == "" {
			return llm.Part{}, "functionResponse needs role user and a name"
		}
		var resp map[string]any
		if json.Unmarshal(c.Response, &resp) != nil || resp == nil {
			return llm.Part{}, "functionResponse.response must be an object"
		}
		r := &llm.ToolResult{CallID: c.ID, Name: c.Name, Content: string(c.Response)}
		if s, ok := resp["output"].(string); ok && len(resp) == 1 {
			r.Content = s
		} else if s, ok := resp["error"].(string); ok && len(resp) == 1 {
			r.Content, r.IsError = s, true
		}
		return llm.Part{ToolResult: r}, ""
	}
	if b := cmpOr(p.Inline, p.InlineS); b != nil {
		return geminiInline(b)
	}
	if p.Text != nil {
		return llm.Part{Text: *p.Text}, ""
	}
	return llm.Part{}, "part has no text, inlineData, functionCall or functionResponse"
}

var geminiStatus = map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
	404: "NOT_FOUND", 409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL",
	501: "NOT_IMPLEMENTED", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}

// writeError writes Google's error envelope; a numeric retryAfter is also given as a
// RetryInfo detail, which is where Gemini puts it.
func (geminiDialect) writeError(w http.ResponseWriter, status int, retryAfter, message string) {
	st := geminiStatus[status]
	if st == "" {
		st = "UNKNOWN"
	}
	details := []any{}
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
		if secs, err := strconv.ParseFloat(retryAfter, 64); err == nil {
			details = append(details, map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo",
				"retryDelay": strconv.FormatFloat(secs, 'f', -1, 64) + "s"})
		}
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"code": status, "message": message, "status": st, "details": details}})
}

func geminiUsage(u llm.Usage, outputSoFar int) map[string]any {
	m := map[string]any{
		"promptTokenCount":     u.InputTokens,
		"candidatesTokenCount": outputSoFar,
		"totalTokenCount":      u.InputTokens + outputSoFar,
		"promptTokensDetails":  []any{map[string]any{"modality": "TEXT", "tokenCount": u.InputTokens}},
	}
	if u.CachedTokens > 0 {
		m["cachedContentTokenCount"] = u.CachedTokens
		m["cacheTokensDetails"] = []any{map[string]any{"modality": "TEXT", "tokenCount": u.CachedTokens}}
	}
	return m
}

func (geminiDialect) writeReply(ctx context.Context, w http.ResponseWriter, rec *Recorded, reply Reply, seq int) {
	responseID := fmt.Sprintf("fakeResponse%d", seq)
	calls := make([]any, 0, len(reply.ToolCalls))
	signed := false
	for _, c := range reply.ToolCalls {
		signed = signed || len(c.Signature) > 0
	}
	for i, c := range reply.ToolCalls {
		fc := map[string]any{"name": c.Name, "args": args(c)}
		if c.ID != "" {
			fc["id"] = c.ID
		}
		part := map[string]any{"functionCall": fc}
		sig := c.Signature
		if !signed && i == 0 {
			sig = []byte(fmt.Sprintf("fake-signature-%d", seq))
		}
		if len(sig) > 0 {
			part["thoughtSignature"] = sig // []byte: base64, as on the wire
		}
		calls = append(calls, part)
	}
	response := func(parts []any, finish bool, outputSoFar int) map[string]any {
		cand := map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "index": 0}
		if finish {
			cand["finishReason"] = "STOP" // also for tool calls
		}
		return map[string]any{"candidates": []any{cand}, "usageMetadata": geminiUsage(reply.Usage, outputSoFar),
			"modelVersion": rec.Model, "responseId": responseID}
	}
	if !rec.Stream {
		parts := []any{}
		if reply.Text != "" || len(calls) == 0 {
			parts = append(parts, map[string]any{"text": reply.Text})
		}
		writeJSON(w, http.StatusOK, response(append(parts, calls...), true, reply.Usage.OutputTokens))
		return
	}
	s := startSSE(w)
	texts := chunks(reply.Text)
	steps := len(texts) + 1
	if len(calls) > 0 {
		steps++
	}
	out := func(step int) int { return reply.Usage.OutputTokens * step / steps }
	for i, c := range texts {
		if !pace(ctx, reply, i) {
			return
		}
		s.send("", response([]any{map[string]any{"text": c}}, false, out(i+1)))
	}
	if len(calls) > 0 {
		s.send("", response(calls, false, out(steps-1)))
	}
	if reply.Truncate {
		return
	}
	// Gemini 3 ends with an empty text part carrying finishReason (and, after text, a
	// thoughtSignature).
	last := map[string]any{"text": ""}
	if len(calls) == 0 {
		last["thoughtSignature"] = []byte(fmt.Sprintf("fake-text-signature-%d", seq))
	}
	s.send("", response([]any{last}, true, reply.Usage.OutputTokens))
}
