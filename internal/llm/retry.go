package llm

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// RetryPolicy says how WithRetry repeats failed calls. The zero value is usable: every
// zero field takes the default documented beside it.
type RetryPolicy struct {
	Attempts int           // total tries including the first; default 4
	Base     time.Duration // backoff before the second try, doubled after each; default 500ms
	Max      time.Duration // cap of any single wait, also of a provider's RetryAfter; default 30s
	// Sleep waits d or until ctx is done, returning ctx.Err() in that case. Nil means a
	// real timer; tests inject a recorder.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger, if set, logs each failure that is retried (at Warn, with the attempt and
	// the wait before the next); nil logs nothing. The last failure is returned, not
	// logged.
	Logger *slog.Logger
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Attempts <= 0 {
		p.Attempts = 4
	}
	if p.Base <= 0 {
		p.Base = 500 * time.Millisecond
	}
	if p.Max <= 0 {
		p.Max = 30 * time.Second
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	return p
}

// delay is the wait before try number attempt+1 (attempt counts from 1) after err: the
// provider's RetryAfter when it gave one, else exponential backoff with jitter in
// [d/2, d]; both capped by Max.
func (p RetryPolicy) delay(attempt int, err *Error) time.Duration {
	if err.RetryAfter > 0 {
		return min(err.RetryAfter, p.Max)
	}
	d := p.Base
	for i := 1; i < attempt && d < p.Max; i++ {
		d *= 2
	}
	d = min(d, p.Max)
	half := d / 2
	return half + rand.N(d-half+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WithRetry returns a Model that repeats calls to m failing with a retryable *Error
// (see Error.Retryable), waiting between tries as p says. Stream calls are repeated only
// while no text has reached onText, so the caller never sees a fragment twice. Other
// errors, and a cancelled ctx, end the call at once. The last error is returned. The
// result is safe for concurrent use if m is.
func WithRetry(m Model, p RetryPolicy) Model {
	return &retrying{m: m, p: p.withDefaults()}
}

type retrying struct {
	m Model
	p RetryPolicy
}

func (r *retrying) Generate(ctx context.Context, req Request) (*Response, error) {
	return r.do(ctx, func() (*Response, error) { return r.m.Generate(ctx, req) }, nil)
}

func (r *retrying) Stream(ctx context.Context, req Request, onText func(string)) (*Response, error) {
	delivered := false
	wrapped := func(s string) {
		delivered = true
		if onText != nil {
			onText(s)
		}
	}
	return r.do(ctx, func() (*Response, error) { return r.m.Stream(ctx, req, wrapped) },
		func() bool { return delivered })
}

// do runs call up to p.Attempts times; stop, when set, vetoes further tries.
func (r *retrying) do(ctx context.Context, call func() (*Response, error), stop func() bool) (*Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := call()
		if err == nil {
			return resp, nil
		}
		if (stop != nil && stop()) || !r.p.again(ctx, attempt, err) {
			return nil, err
		}
	}
}

// again reports whether the call that failed with err on try attempt is tried once
// more, after waiting as p says: only a retryable *Error, while tries are left and ctx
// is not done.
func (p RetryPolicy) again(ctx context.Context, attempt int, err error) bool {
	var e *Error
	if !errors.As(err, &e) || !e.Retryable() || attempt >= p.Attempts || ctx.Err() != nil {
		return false
	}
	d := p.delay(attempt, e)
	if p.Logger != nil {
		p.Logger.Warn("model provider call failed, retrying", "attempt", attempt, "of", p.Attempts, "wait", d, "err", err)
	}
	return p.Sleep(ctx, d) == nil
}

// RetryAfter reads a provider's retry hint from response headers: retry-after-ms
// (milliseconds), else Retry-After in seconds or as an HTTP date relative to now. It
// returns 0 when there is none or it is unparseable or in the past. Adapters use it to
// fill Error.RetryAfter.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
