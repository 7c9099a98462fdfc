// Package openai is the llm.Model adapter for the OpenAI Chat Completions API and the
// OpenAI-compatible servers that speak it (Ollama, vLLM, OpenRouter), built on the
// official openai-go SDK.
package openai

import (
	"context"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/mynah-ai/mynah/internal/llm"
)

// DefaultBaseURL is OpenAI's own endpoint.
const DefaultBaseURL = "https://api.openai.com/v1/"

// Config configures a Model. Zero values take the defaults beside them.
type Config struct {
	// APIKey is sent as a Bearer token; required. Servers without authentication
	// (a local Ollama) accept any placeholder.
	APIKey string
	// BaseURL is the API root including the version, such as "http://localhost:11434/v1"
	// (a trailing slash is optional); default DefaultBaseURL.
	BaseURL    string
	HTTPClient *http.Client // default http.DefaultClient
	MaxTokens  int          // used when Request.MaxTokens is 0; 0 leaves it to the server
}

// Model calls one Chat Completions endpoint. It is immutable and safe for concurrent use.
type Model struct {
	// opts are the SDK options of a chat completions service (the layering of its options
	// included), for openai.Client's generic Post: the service's New and NewStreaming
	// without their params types. Model encodes the body (body.go) and decodes stream
	// chunks (chunk.go) itself; the SDK still sends, retries (not: see New), reports errors
	// and reads the event stream. Model keeps the options, not a Client: a Client field
	// would make the type of every service of the SDK reachable from Model's, and the
	// linker would keep all their methods (20 MB more binary, 4 MB more RSS).
	opts   []option.RequestOption
	cfg    Config
	custom bool // BaseURL is not OpenAI's own: send max_tokens, which every clone knows
	tools  *toolCache
}

var _ llm.Model = (*Model)(nil)

// New returns a Model for cfg. It does no I/O. The SDK's own retries are disabled (wrap
// the Model with llm.WithRetry) and, unlike openai.NewClient, no OPENAI_* environment
// variable is read: cfg is the whole configuration.
func New(cfg Config) (*Model, error) {
	u, hc, err := llm.Endpoint(provider, cfg.APIKey, cfg.BaseURL, DefaultBaseURL, cfg.HTTPClient)
	if err != nil {
		return nil, err
	}
	cfg.BaseURL, cfg.HTTPClient = u.String(), hc
	m := &Model{cfg: cfg, custom: u.Host != "api.openai.com", tools: &toolCache{}}
	// NewChatCompletionService, unlike NewClient, does not read the environment.
	m.opts = openai.NewChatCompletionService(m.options()...).Options
	return m, nil
}

// options are the SDK options of every service m uses: building a service with them
// only stores them, no I/O.
func (m *Model) options() []option.RequestOption {
	return []option.RequestOption{
		option.WithBaseURL(m.cfg.BaseURL),
		option.WithAPIKey(m.cfg.APIKey),
		option.WithHTTPClient(m.cfg.HTTPClient),
		option.WithMaxRetries(0),
		option.WithMiddleware(rewindBody),
	}
}

// rewindBody hands the transport the request body as a fresh bytes.Reader. The SDK wraps
// each attempt's body in a ReadCloser of its own, which hides the reader's WriteTo, and
// net/http then copied every request body through a new 8 KB buffer: 5% of the bytes
// serve allocated under load.
func rewindBody(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	if req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			req.Body = body
		}
	}
	return next(req)
}

// path is the Chat Completions endpoint under the base URL.
const path = "chat/completions"

// post sends body to the Chat Completions endpoint, decoding the answer into res (a
// *http.Response for a stream).
func (m *Model) post(ctx context.Context, body []byte, res any) error {
	c := openai.Client{Options: m.opts}
	return c.Post(ctx, path, body, res)
}

// Generate sends req as one Chat Completions call. Provider failures are *llm.Error.
func (m *Model) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	body, err := m.body(req, false)
	if err != nil {
		return nil, err
	}
	var c *openai.ChatCompletion
	if err := m.post(ctx, body, &c); err != nil {
		return nil, m.translate(ctx, err)
	}
	return fromCompletion(c)
}

// Stream sends req as a streaming call (with usage reporting), calling onText with each
// text fragment; the stream is closed before Stream returns. Provider failures are
// *llm.Error, a stream that ends without a finish reason among them (llm.ErrMalformed).
func (m *Model) Stream(ctx context.Context, req llm.Request, onText func(string)) (*llm.Response, error) {
	body, err := m.body(req, true)
	if err != nil {
		return nil, err
	}
	// As the SDK's NewStreaming does, with our chunk type.
	var raw *http.Response
	err = m.post(ctx, body, &raw)
	stream := ssestream.NewStream[chunk](ssestream.NewDecoder(raw), err)
	defer stream.Close()
	var acc accumulator
	if err := llm.Drain(stream, acc.add, onText); err != nil {
		return nil, m.translate(ctx, err)
	}
	// Every complete stream ends its choice with a finish reason; a body without one is
	// empty, not a stream at all (a proxy's page) or cut off.
	if acc.finish == "" {
		return nil, llm.Malformed(provider, "the stream ended without a finish reason")
	}
	return acc.response(), nil
}
