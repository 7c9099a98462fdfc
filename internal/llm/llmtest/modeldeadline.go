package llmtest

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
)

// testDeadlines checks that the adapter's calls end at llm.WithDeadlines' deadlines
// when the provider stalls — before its headers, or midway through a stream — with a
// retryable *llm.Error wrapping llm.ErrTimeout, over an http.Client using
// llm.NewTransport. Each case disables the other deadline, so the outcome does not
// depend on how fast the machine is.
func (c ModelCase) testDeadlines(t *testing.T, stream bool) {
	srv := c.Server(t)
	m, err := c.New(c.Key, srv.URL(), &http.Client{Transport: llm.NewTransport(nil, 0)})
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, err error, want string) {
		t.Helper()
		var le *llm.Error
		if !errors.As(err, &le) || !le.Retryable() || !errors.Is(err, llm.ErrTimeout) || !strings.Contains(err.Error(), want) {
			t.Fatalf("err = %v; want a retryable *llm.Error wrapping llm.ErrTimeout saying %q", err, want)
		}
	}
	t.Run("before headers", func(t *testing.T) {
		srv.Push(Reply{Text: "late", Delay: time.Hour})
		d := llm.WithDeadlines(m, llm.Deadlines{FirstToken: 50 * time.Millisecond, Total: -1})
		_, _, err := call(t.Context(), d, stream, userText("x"))
		check(t, err, "no first token within 50ms")
	})
	if !stream {
		return
	}
	t.Run("midway", func(t *testing.T) {
		srv.Push(Reply{Text: "This stream stalls after its first words", ChunkDelay: time.Hour})
		d := llm.WithDeadlines(m, llm.Deadlines{FirstToken: -1, Total: 200 * time.Millisecond})
		_, frags, err := call(t.Context(), d, stream, userText("x"))
		check(t, err, "no complete answer within 200ms")
		if len(frags) != 1 {
			t.Errorf("fragments before the stall = %q, want the first one", frags)
		}
	})
}
