package llmtest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
)

func (c ModelCase) testNew(t *testing.T) {
	for k, v := range c.Env {
		t.Setenv(k, v)
	}
	if _, err := c.New("", "", nil); err == nil || !strings.Contains(err.Error(), "APIKey") {
		t.Errorf("New without key: err = %v, want one naming APIKey", err)
	}
	if _, err := c.New(c.Key, "not a url", nil); err == nil {
		t.Error("New with a relative BaseURL: want error")
	}
}

func (c ModelCase) testErrors(t *testing.T, stream bool) {
	srv, m := c.start(t, "")
	srv.Push(
		Reply{Status: 429, RetryAfter: "7", Message: "Rate limit reached"},
		Reply{Status: 429, RetryAfter: "34.4", Message: "You exceeded your current quota"},
		Reply{Status: 500, Message: "boom"},
		Reply{Status: 529, Message: "Overloaded"},
		Reply{Status: 400, Message: "bad key " + c.Key},
	)
	ignoreErr := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Err" }, cmp.Ignore())
	for _, want := range []*llm.Error{
		{Provider: c.Provider, Status: 429, RetryAfter: 7 * time.Second, Message: "Rate limit reached"},
		{Provider: c.Provider, Status: 429, RetryAfter: 34400 * time.Millisecond, Message: "You exceeded your current quota"},
		{Provider: c.Provider, Status: 500, Message: "boom"},
		{Provider: c.Provider, Status: 529, Message: "Overloaded"},
		{Provider: c.Provider, Status: 400, Message: "bad key REDACTED"},
	} {
		_, _, err := call(t.Context(), m, stream, userText("x"))
		var got *llm.Error
		if !errors.As(err, &got) {
			t.Fatalf("err = %v, want *llm.Error", err)
		}
		if diff := cmp.Diff(got, want, ignoreErr); diff != "" {
			t.Errorf("error (-got +want):\n%s", diff)
		}
		if got.Retryable() != (want.Status != 400) {
			t.Errorf("Retryable() = %v for %d", got.Retryable(), want.Status)
		}
		if strings.Contains(err.Error(), c.Key) {
			t.Errorf("error text leaks the key: %v", err)
		}
	}
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("got %d requests, want 5 (SDK retries must be off)", n)
	}
}

// noSleep is a RetryPolicy.Sleep that does not wait.
func noSleep(context.Context, time.Duration) error { return nil }

func (c ModelCase) testRetry(t *testing.T, stream bool) {
	srv, m := c.start(t, "")
	srv.Push(Reply{Status: 503}, Reply{Status: 429, RetryAfter: "1"}, Reply{Text: "fine"})
	var waits []time.Duration
	r := llm.WithRetry(m, llm.RetryPolicy{Sleep: func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}})
	got, _, err := call(t.Context(), r, stream, userText("x"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "fine" {
		t.Errorf("text = %q, want %q", got.Text, "fine")
	}
	if len(waits) != 2 || waits[1] != time.Second {
		t.Errorf("waits = %v, want 2, the second the 429's Retry-After of 1s", waits)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("got %d requests, want 3", n)
	}
}

func (c ModelCase) testCancel(t *testing.T, stream bool) {
	srv, m := c.start(t, "")
	srv.Push(Reply{Text: "late", Delay: time.Hour})
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, _, err := call(ctx, m, stream, userText("x"))
		errc <- err
	}()
	if _, err := srv.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	err := <-errc
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var le *llm.Error
	if errors.As(err, &le) {
		t.Errorf("cancellation reported as provider error %v", le)
	}
}

// keyCheck counts the requests through it that do not carry the key in a header or
// the query.
type keyCheck struct {
	key     string
	next    http.RoundTripper
	calls   atomic.Int32
	missing atomic.Int32
}

func (k *keyCheck) RoundTrip(r *http.Request) (*http.Response, error) {
	k.calls.Add(1)
	found := r.URL.Query().Get("key") == k.key
	for _, vs := range r.Header {
		for _, v := range vs {
			found = found || v == k.key || v == "Bearer "+k.key
		}
	}
	if !found {
		k.missing.Add(1)
	}
	return k.next.RoundTrip(r)
}

// testEnvironment checks that the SDK's environment variables do not override the
// explicit configuration, and that New leaves the caller's HTTP client alone.
func (c ModelCase) testEnvironment(t *testing.T, stream bool) {
	for k, v := range c.Env {
		t.Setenv(k, v)
	}
	srv := c.Server(t)
	kc := &keyCheck{key: c.Key, next: http.DefaultTransport}
	hc := &http.Client{Transport: kc}
	m, err := c.New(c.Key, srv.URL(), hc)
	if err != nil {
		t.Fatal(err)
	}
	if hc.Transport != kc {
		t.Error("New modified the caller's HTTP client")
	}
	if _, _, err = call(t.Context(), m, stream, userText("x")); err != nil {
		t.Fatal(err)
	}
	if kc.calls.Load() != 1 || kc.missing.Load() != 0 {
		t.Errorf("%d requests through the configured client, %d without the configured key; want 1, 0",
			kc.calls.Load(), kc.missing.Load())
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the fake got %d requests, want 1", len(reqs))
	}
	for _, h := range c.EnvHeaders {
		if v := reqs[0].Header.Get(h); v != "" {
			t.Errorf("request has %s: %s from the environment", h, v)
		}
	}
}
