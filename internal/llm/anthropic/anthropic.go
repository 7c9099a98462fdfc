// Package anthropic is the llm.Model adapter for Anthropic's Messages API, built on the
// official anthropic-sdk-go.
package anthropic

import (
	"context"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/mynah-ai/mynah/internal/llm"
)

// DefaultBaseURL is Anthropic's own endpoint (the API root; paths start with /v1).
const DefaultBaseURL = "https://api.anthropic.com/"

// DefaultMaxTokens is sent when neither the Request nor the Config sets max_tokens,
// which the API requires.
const DefaultMaxTokens = 1024

// Config configures a Model. Zero values take the defaults beside them.
type Config struct {
	APIKey     string       // sent as x-api-key; required
	BaseURL    string       // the API root, without /v1; default DefaultBaseURL
	HTTPClient *http.Client // default http.DefaultClient
	MaxTokens  int          // used when Request.MaxTokens is 0; default DefaultMaxTokens
}

// Model calls the Messages API. It is immutable and safe for concurrent use.
type Model struct {
	svc anthropic.MessageService
	cfg Config
}

var _ llm.Model = (*Model)(nil)

// New returns a Model for cfg. It does no I/O. The SDK's own retries are disabled (wrap
// the Model with llm.WithRetry) and, unlike anthropic.NewClient, no ANTHROPIC_*
// environment variable or profile file is read: cfg is the whole configuration.
func New(cfg Config) (*Model, error) {
	u, hc, err := llm.Endpoint(provider, cfg.APIKey, cfg.BaseURL, DefaultBaseURL, cfg.HTTPClient)
	if err != nil {
		return nil, err
	}
	cfg.BaseURL = u.String()
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	// NewMessageService, unlike NewClient, does not read the environment.
	svc := anthropic.NewMessageService(
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	)
	return &Model{svc: svc, cfg: cfg}, nil
}

// Generate sends req as one Messages call. Provider failures are *llm.Error, an answer
// that is not a message among them (llm.ErrMalformed).
func (m *Model) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return nil, err
	}
	msg, err := m.svc.New(ctx, params)
	if err != nil {
		return nil, m.translate(ctx, err)
	}
	if msg.StopReason == "" {
		// Every complete message has one; a body without it is not a message.
		return nil, llm.Malformed(provider, "the response has no stop reason")
	}
	return fromMessage(msg), nil
}

// Stream sends req as a streaming call, calling onText with each text fragment; the
// stream is closed before Stream returns. Provider failures, including error events
// inside the stream and a stream that ends without a stop reason (llm.ErrMalformed), are
// *llm.Error.
func (m *Model) Stream(ctx context.Context, req llm.Request, onText func(string)) (*llm.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return nil, err
	}
	stream := m.svc.NewStreaming(ctx, params)
	defer stream.Close()
	var acc accumulator
	if err := llm.Drain(stream, acc.add, onText); err != nil {
		return nil, m.translate(ctx, err)
	}
	// A complete stream gives its stop reason (message_delta) and ends (message_stop); a
	// body with neither is empty, not a stream at all (a proxy's page) or cut off.
	if acc.stop == "" && !acc.stopped {
		return nil, llm.Malformed(provider, "the stream ended without a stop reason")
	}
	return acc.response(), nil
}
