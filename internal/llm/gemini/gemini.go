// Package gemini is the llm.Model adapter for Google's Gemini API (generativelanguage,
// not Vertex AI), built on the official google.golang.org/genai SDK.
package gemini

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/genai"

	"github.com/mynah-ai/mynah/internal/llm"
)

// DefaultBaseURL is Google's own Gemini API endpoint.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/"

// Config configures a Model. Zero values take the defaults beside them.
type Config struct {
	APIKey     string       // sent as x-goog-api-key; required
	BaseURL    string       // the API root, without /v1beta; default DefaultBaseURL
	HTTPClient *http.Client // default http.DefaultClient; New wraps a copy, never the original
	MaxTokens  int          // maxOutputTokens when Request.MaxTokens is 0; 0 leaves it to the API
}

// Model calls the Gemini API. It is immutable and safe for concurrent use.
type Model struct {
	client *genai.Client
	cfg    Config
}

var _ llm.Model = (*Model)(nil)

// New returns a Model for cfg. It does no I/O. Every setting genai would otherwise take
// from the environment (GEMINI_API_KEY, GOOGLE_API_KEY, GOOGLE_GEMINI_BASE_URL,
// GOOGLE_GENAI_USE_VERTEXAI) is given explicitly, so cfg is the whole configuration.
// genai does not retry unless asked to; wrap the Model with llm.WithRetry.
func New(cfg Config) (*Model, error) {
	u, base, err := llm.Endpoint(provider, cfg.APIKey, cfg.BaseURL, DefaultBaseURL, cfg.HTTPClient)
	if err != nil {
		return nil, err
	}
	cfg.BaseURL = u.String()
	hc := *base // a copy, so the caller's client keeps its own transport
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = captureTransport{next: next}
	// With an API key, the Gemini backend and an explicit HTTP client, NewClient neither
	// looks for credentials nor uses its context.
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      cfg.APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  &hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: cfg.BaseURL, APIVersion: "v1beta"},
	})
	if err != nil {
		return nil, fmt.Errorf("gemini: %s", strings.ReplaceAll(err.Error(), cfg.APIKey, "REDACTED"))
	}
	return &Model{client: client, cfg: cfg}, nil
}

// Generate sends req as one generateContent call. Provider failures are *llm.Error, an
// answer without a finish or block reason among them (llm.ErrMalformed).
func (m *Model) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	contents, config, err := m.params(req)
	if err != nil {
		return nil, err
	}
	ctx, hdr := withCapture(ctx)
	resp, err := m.client.Models.GenerateContent(ctx, req.Model, contents, config)
	if err != nil {
		return nil, m.translate(ctx, err, hdr)
	}
	var acc accumulator
	acc.add(resp)
	if acc.finish == "" {
		return nil, llm.Malformed(provider, "the response has no finish reason")
	}
	return acc.response(), nil
}

// Stream sends req as a streamGenerateContent (?alt=sse) call, calling onText with each
// text fragment; the stream is closed before Stream returns. Provider failures,
// including error frames inside the stream and a stream that ends without a finish
// reason (llm.ErrMalformed), are *llm.Error.
func (m *Model) Stream(ctx context.Context, req llm.Request, onText func(string)) (*llm.Response, error) {
	contents, config, err := m.params(req)
	if err != nil {
		return nil, err
	}
	ctx, hdr := withCapture(ctx)
	var acc accumulator
	for resp, err := range m.client.Models.GenerateContentStream(ctx, req.Model, contents, config) {
		if err != nil {
			return nil, m.translate(ctx, err, hdr)
		}
		if text := acc.add(resp); text != "" && onText != nil {
			onText(text)
		}
	}
	// A complete stream's last chunk carries the finish (or block) reason; without one
	// the body was empty, not a stream at all or cut off.
	if acc.finish == "" {
		return nil, llm.Malformed(provider, "the stream ended without a finish reason")
	}
	return acc.response(), nil
}
