package llm_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
)

// scripted is a Model answering each call with the next error (nil = success).
type scripted struct {
	errs  []error
	text  []string // streamed before failing, per call
	calls int
}

func (s *scripted) next() error {
	s.calls++
	if len(s.errs) == 0 {
		return nil
	}
	err := s.errs[0]
	s.errs = s.errs[1:]
	return err
}

func (s *scripted) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if err := s.next(); err != nil {
		return nil, err
	}
	return &llm.Response{Text: "ok"}, nil
}

func (s *scripted) Stream(ctx context.Context, req llm.Request, onText func(string)) (*llm.Response, error) {
	if len(s.text) > 0 {
		onText(s.text[0])
		s.text = s.text[1:]
	}
	if err := s.next(); err != nil {
		return nil, err
	}
	onText("ok")
	return &llm.Response{Text: "ok"}, nil
}

type sleeps struct{ got []time.Duration }

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.got = append(s.got, d)
	return ctx.Err()
}

func TestWithRetry(t *testing.T) {
	e429 := &llm.Error{Provider: "x", Status: 429, RetryAfter: 3 * time.Second}
	e500 := &llm.Error{Provider: "x", Status: 500}
	e400 := &llm.Error{Provider: "x", Status: 400}
	tests := []struct {
		name      string
		errs      []error
		wantCalls int
		wantErr   error
		check     func(t *testing.T, d []time.Duration)
	}{
		{name: "success", wantCalls: 1},
		{name: "not retryable", errs: []error{e400}, wantCalls: 1, wantErr: e400},
		{name: "other error", errs: []error{context.Canceled}, wantCalls: 1, wantErr: context.Canceled},
		{name: "retry after honoured", errs: []error{e429}, wantCalls: 2, check: func(t *testing.T, d []time.Duration) {
			if diff := cmp.Diff([]time.Duration{3 * time.Second}, d); diff != "" {
				t.Errorf("delays (-want +got):\n%s", diff)
			}
		}},
		{name: "retry after capped", errs: []error{&llm.Error{Status: 503, RetryAfter: time.Hour}}, wantCalls: 2,
			check: func(t *testing.T, d []time.Duration) {
				if diff := cmp.Diff([]time.Duration{10 * time.Second}, d); diff != "" {
					t.Errorf("delays (-want +got):\n%s", diff)
				}
			}},
		{name: "exhausted returns last error", errs: []error{e500, e500, e500, e429}, wantCalls: 4, wantErr: e429,
			check: func(t *testing.T, d []time.Duration) {
				if len(d) != 3 {
					t.Fatalf("got %d sleeps, want 3", len(d))
				}
				// Exponential backoff with jitter in [d/2, d]: 1s, 2s, 4s.
				for i, max := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
					if d[i] < max/2 || d[i] > max {
						t.Errorf("delay %d = %v, want in [%v, %v]", i, d[i], max/2, max)
					}
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &scripted{errs: tt.errs}
			var s sleeps
			r := llm.WithRetry(m, llm.RetryPolicy{Base: time.Second, Max: 10 * time.Second, Sleep: s.sleep})
			resp, err := r.Generate(t.Context(), llm.Request{})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err == nil && resp.Text != "ok" {
				t.Errorf("text = %q", resp.Text)
			}
			if m.calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", m.calls, tt.wantCalls)
			}
			if tt.check != nil {
				tt.check(t, s.got)
			}
		})
	}
}

func TestWithRetryStream(t *testing.T) {
	e500 := &llm.Error{Provider: "x", Status: 500}
	t.Run("retries before text", func(t *testing.T) {
		m := &scripted{errs: []error{e500}}
		var s sleeps
		var got []string
		r := llm.WithRetry(m, llm.RetryPolicy{Sleep: s.sleep})
		if _, err := r.Stream(t.Context(), llm.Request{}, func(s string) { got = append(got, s) }); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"ok"}, got); diff != "" {
			t.Errorf("text (-want +got):\n%s", diff)
		}
		if m.calls != 2 {
			t.Errorf("calls = %d, want 2", m.calls)
		}
	})
	t.Run("no retry after text", func(t *testing.T) {
		m := &scripted{errs: []error{e500}, text: []string{"partial"}}
		var s sleeps
		r := llm.WithRetry(m, llm.RetryPolicy{Sleep: s.sleep})
		_, err := r.Stream(t.Context(), llm.Request{}, func(string) {})
		if !errors.Is(err, e500) {
			t.Fatalf("err = %v, want %v", err, e500)
		}
		if m.calls != 1 || len(s.got) != 0 {
			t.Errorf("calls = %d, sleeps = %v; want 1 call, no sleep", m.calls, s.got)
		}
	})
}

func TestWithRetryCancelledDuringSleep(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	e500 := &llm.Error{Status: 500}
	m := &scripted{errs: []error{e500, e500}}
	r := llm.WithRetry(m, llm.RetryPolicy{Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		return ctx.Err()
	}})
	if _, err := r.Generate(ctx, llm.Request{}); !errors.Is(err, e500) {
		t.Fatalf("err = %v, want %v", err, e500)
	}
	if m.calls != 1 {
		t.Errorf("calls = %d, want 1", m.calls)
	}
}

func TestWithRetryRealSleepHonoursContext(t *testing.T) {
	// The deadline ends the hour-long backoff; without it the test would hang.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	m := &scripted{errs: []error{&llm.Error{Status: 500}}}
	r := llm.WithRetry(m, llm.RetryPolicy{Base: time.Hour, Max: time.Hour})
	if _, err := r.Generate(ctx, llm.Request{}); err == nil {
		t.Fatal("want error")
	}
	if m.calls != 1 {
		t.Errorf("calls = %d, want 1", m.calls)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{"fraction", http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{"ms wins", http.Header{"Retry-After": {"7"}, "Retry-After-Ms": {"250"}}, 250 * time.Millisecond},
		{"date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.RetryAfter(tt.h, now); got != tt.want {
				t.Errorf("RetryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}
