package gemini

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/mynah-ai/mynah/internal/llm"
)

const provider = "gemini"

// genai's APIError carries neither the HTTP status nor the headers, so the transport
// records them for the call whose context holds a capture.
type captureKey struct{}

type capture struct {
	mu     sync.Mutex
	status int
	header http.Header
}

func withCapture(ctx context.Context) (context.Context, *capture) {
	c := &capture{}
	return context.WithValue(ctx, captureKey{}, c), c
}

func (c *capture) get() (int, http.Header) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status, c.header
}

type captureTransport struct{ next http.RoundTripper }

func (t captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if c, ok := req.Context().Value(captureKey{}).(*capture); ok && resp != nil && resp.StatusCode >= 400 {
		c.mu.Lock()
		c.status, c.header = resp.StatusCode, resp.Header.Clone()
		c.mu.Unlock()
	}
	return resp, err
}

// translate turns an SDK error into an *llm.Error, or returns ctx's error when the
// call was cancelled. RetryAfter comes from the RetryInfo detail, else the headers.
func (m *Model) translate(ctx context.Context, err error, c *capture) error {
	if ctx.Err() != nil {
		return fmt.Errorf("gemini: %w", ctx.Err())
	}
	status, header := c.get()
	e := &llm.Error{Provider: provider, Status: status, Err: err, Message: err.Error()}
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		if apiErr.Code >= 400 {
			e.Status = apiErr.Code
		}
		e.Message = apiErr.Message
		e.RetryAfter = retryDelay(apiErr.Details)
		if e.Status == 0 {
			// An error frame inside a 200 stream: treat it as the server failing.
			e.Status = http.StatusInternalServerError
		}
	}
	if e.RetryAfter == 0 {
		e.RetryAfter = llm.RetryAfter(header, time.Now())
	}
	if e.Message == "" {
		e.Message = http.StatusText(e.Status)
	}
	e.Message = strings.ReplaceAll(e.Message, m.cfg.APIKey, "REDACTED")
	return e
}

// retryDelay reads google.rpc.RetryInfo's retryDelay ("34.4s") from error details.
func retryDelay(details []map[string]any) time.Duration {
	for _, d := range details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		if s, ok := d["retryDelay"].(string); ok {
			if v, err := time.ParseDuration(s); err == nil && v > 0 {
				return v
			}
		}
	}
	return 0
}
