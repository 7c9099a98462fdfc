package llm_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
)

// paced is a Model that waits before answering, streams its fragments with pauses
// between them, and honours cancellation.
type paced struct {
	before time.Duration   // until the first fragment (or the answer)
	frags  []string        // streamed
	gaps   []time.Duration // wait after each fragment
	calls  int
}

func (m *paced) wait(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (m *paced) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	return m.Stream(ctx, req, nil)
}

func (m *paced) Stream(ctx context.Context, _ llm.Request, onText func(string)) (*llm.Response, error) {
	m.calls++
	if err := m.wait(ctx, m.before); err != nil {
		return nil, err
	}
	for i, f := range m.frags {
		if onText != nil {
			onText(f)
		}
		if i < len(m.gaps) {
			if err := m.wait(ctx, m.gaps[i]); err != nil {
				return nil, err
			}
		}
	}
	return &llm.Response{Text: strings.Join(m.frags, "")}, nil
}

// TestWithDeadlines: a call that stalls before its first token or midway ends at the
// deadline, exactly (synthetic time), with a retryable *llm.Error naming it; an answer
// that keeps coming passes; the caller's cancellation stays its own.
func TestWithDeadlines(t *testing.T) {
	d := llm.Deadlines{FirstToken: 10 * time.Second, Total: time.Minute}
	for _, c := range []struct {
		name     string
		model    paced
		stream   bool
		deadline llm.Deadlines
		wantErr  string // "" for an answer
		wantAt   time.Duration
	}{
		{"no first token", paced{before: time.Hour, frags: []string{"late"}}, true, d, "no first token within 10s", 10 * time.Second},
		{"no answer to generate", paced{before: time.Hour, frags: []string{"late"}}, false, d, "no first token within 10s", 10 * time.Second},
		{"stalls midway", paced{before: time.Second, frags: []string{"a", "b"}, gaps: []time.Duration{time.Hour}}, true, d,
			"no complete answer within 1m0s", time.Minute},
		{"slow but steady", paced{before: 9 * time.Second, frags: []string{"a", "b", "c"}, gaps: []time.Duration{20 * time.Second, 20 * time.Second}}, true, d,
			"", 49 * time.Second},
		{"defaults", paced{before: 119 * time.Second, frags: []string{"a"}, gaps: []time.Duration{time.Hour}}, true, llm.Deadlines{},
			"no complete answer within 5m0s", 5 * time.Minute},
		{"no limits", paced{before: 3 * time.Hour, frags: []string{"a"}}, false, llm.Deadlines{FirstToken: -1, Total: -1}, "", 3 * time.Hour},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := llm.WithDeadlines(&c.model, c.deadline)
				start := time.Now()
				var resp *llm.Response
				var err error
				if c.stream {
					resp, err = m.Stream(t.Context(), llm.Request{}, func(string) {})
				} else {
					resp, err = m.Generate(t.Context(), llm.Request{})
				}
				if took := time.Since(start); took != c.wantAt {
					t.Errorf("the call took %v, want %v", took, c.wantAt)
				}
				if c.wantErr == "" {
					if err != nil || resp == nil {
						t.Fatalf("response %+v, err %v; want the answer", resp, err)
					}
					return
				}
				var le *llm.Error
				if !errors.As(err, &le) || !le.Retryable() || !errors.Is(err, llm.ErrTimeout) || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v; want a retryable *llm.Error wrapping ErrTimeout saying %q", err, c.wantErr)
				}
			})
		})
	}
}

func TestWithDeadlinesCallerCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		m := llm.WithDeadlines(&paced{before: time.Hour}, llm.Deadlines{FirstToken: 10 * time.Second})
		_, err := m.Generate(ctx, llm.Request{})
		var le *llm.Error
		if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &le) {
			t.Fatalf("err = %v; want the caller's own context.DeadlineExceeded, not a provider error", err)
		}
	})
}

// TestRetryAfterDeadline: a try cut off by its deadline is retried, with deadlines of
// its own.
func TestRetryAfterDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stalls := &stallOnce{}
		m := llm.WithRetry(llm.WithDeadlines(stalls, llm.Deadlines{FirstToken: 10 * time.Second}), llm.RetryPolicy{})
		resp, err := m.Generate(t.Context(), llm.Request{})
		if err != nil || resp.Text != "second try" || stalls.calls != 2 {
			t.Fatalf("response %+v, err %v after %d calls; want the second try's answer", resp, err, stalls.calls)
		}
	})
}

// stallOnce never answers its first call and answers the others at once.
type stallOnce struct{ calls int }

func (s *stallOnce) Generate(ctx context.Context, _ llm.Request) (*llm.Response, error) {
	s.calls++
	if s.calls == 1 {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &llm.Response{Text: "second try"}, nil
}

func (s *stallOnce) Stream(ctx context.Context, req llm.Request, _ func(string)) (*llm.Response, error) {
	return s.Generate(ctx, req)
}

// bodyModel is a Model streaming over HTTP: it reads the response body of a GET to url
// and returns it whole, with no text fragments (like a stream of tool calls).
type bodyModel struct {
	client *http.Client
	url    string
}

func (b bodyModel) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	return b.Stream(ctx, req, nil)
}

func (b bodyModel) Stream(ctx context.Context, _ llm.Request, _ func(string)) (*llm.Response, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, b.url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := b.client.Do(r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &llm.Response{Text: string(body)}, nil
}

// TestTransportFirstByte: through NewTransport a stream's first token is its body's
// first byte — headers alone do not count, and a body's first byte does though no text
// fragment was reported.
func TestTransportFirstByte(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		if r.URL.Path == "/stall" {
			<-r.Context().Done()
			return
		}
		_, _ = io.WriteString(w, "data: first\n\n")
		w.(http.Flusher).Flush()
		select { // the rest comes when the test says so
		case <-release:
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, "data: rest\n\n")
	}))
	defer srv.Close()
	client := &http.Client{Transport: llm.NewTransport(nil, 0)}

	stalled := llm.WithDeadlines(bodyModel{client, srv.URL + "/stall"}, llm.Deadlines{FirstToken: 100 * time.Millisecond, Total: 5 * time.Second})
	_, err := stalled.Stream(t.Context(), llm.Request{}, nil)
	if !errors.Is(err, llm.ErrTimeout) || !strings.Contains(err.Error(), "first token") {
		t.Errorf("headers but no body: err = %v, want the first-token deadline", err)
	}

	// The first byte is there; the rest is released only after the first-token deadline
	// has passed, which therefore must not end the call.
	flowing := llm.WithDeadlines(bodyModel{client, srv.URL + "/flow"}, llm.Deadlines{FirstToken: 500 * time.Millisecond, Total: -1})
	time.AfterFunc(time.Second, func() { close(release) })
	resp, err := flowing.Stream(t.Context(), llm.Request{}, nil)
	if err != nil || resp.Text != "data: first\n\ndata: rest\n\n" {
		t.Errorf("response %+v, err %v; want the whole body", resp, err)
	}
}
