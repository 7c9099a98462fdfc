package llmtest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
)

// EmbedderCase is one adapter's embeddings, tested by TestEmbedder against its fake
// server: the adapters are tested alike without importing each other.
type EmbedderCase struct {
	Server *Server                                     // the provider's fake
	New    func(t *testing.T, url string) llm.Embedder // the adapter, pointed at url
	Model  string
	Path   string // the embeddings endpoint the adapter must call for Model
	Key    string // the API key New configured, which no error may show
}

// TestEmbedder checks that c's adapter embeds a batch in one call of the right shape,
// reports provider errors as *llm.Error without the key, and is retried by
// llm.WithEmbedRetry.
func TestEmbedder(t *testing.T, c EmbedderCase) {
	t.Run("Batch", func(t *testing.T) {
		m := c.New(t, c.Server.URL())
		texts := []string{"the cat sat on the mat", "quarterly revenue grew", "a cat on a mat"}
		got, err := m.Embed(t.Context(), c.Model, texts)
		if err != nil {
			t.Fatal(err)
		}
		want := make([][]float32, len(texts))
		for i, text := range texts {
			want[i] = c.Server.Embed(text, 0)
		}
		if diff := cmp.Diff(got, want); diff != "" {
			t.Errorf("vectors (-got +want):\n%s", diff)
		}
		reqs := c.Server.EmbedRequests()
		if len(reqs) != 1 {
			t.Fatalf("%d embeddings calls, want 1 for the batch", len(reqs))
		}
		if diff := cmp.Diff(reqs[0], EmbedRequest{Path: c.Path, Model: c.Model, Texts: texts, HasAPIKey: true}); diff != "" {
			t.Errorf("request (-got +want):\n%s", diff)
		}
		if len(c.Server.Requests()) != 0 {
			t.Errorf("embeddings calls were recorded as chat calls")
		}
	})
	t.Run("Errors", func(t *testing.T) {
		m := c.New(t, c.Server.URL())
		c.Server.FailEmbeds(Reply{Status: 429, RetryAfter: "7", Message: "slow down"}, Reply{Status: 400, Message: "bad input " + c.Key})
		_, err := m.Embed(t.Context(), c.Model, []string{"hello"})
		var e *llm.Error
		if !errors.As(err, &e) || e.Status != 429 || !e.Retryable() {
			t.Fatalf("got %v, want a retryable *llm.Error with status 429", err)
		}
		_, err = m.Embed(t.Context(), c.Model, []string{"hello"})
		if !errors.As(err, &e) || e.Status != 400 || e.Retryable() {
			t.Fatalf("got %v, want a final *llm.Error with status 400", err)
		}
		if strings.Contains(err.Error(), c.Key) {
			t.Errorf("error leaks the API key: %v", err)
		}
		// Retries repeat the failed call and then succeed.
		c.Server.FailEmbeds(Reply{Status: 503})
		var waits int
		r := llm.WithEmbedRetry(m, llm.RetryPolicy{Sleep: func(context.Context, time.Duration) error { waits++; return nil }})
		got, err := r.Embed(t.Context(), c.Model, []string{"hello"})
		if err != nil || len(got) != 1 || waits != 1 {
			t.Errorf("with retries: %d vectors, %d waits, err %v; want 1 vector after 1 wait", len(got), waits, err)
		}
	})
}
