package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"
)

// ErrTimeout is wrapped by the *Error of a call that ran past one of its deadlines
// (WithDeadlines), and by the error of a connection that took longer than the
// transport's connect timeout (NewTransport). Both are retryable.
var ErrTimeout = errors.New("deadline exceeded")

// Default deadlines of WithDeadlines.
const (
	DefaultFirstToken = 2 * time.Minute
	DefaultTotal      = 5 * time.Minute
)

// Deadlines bound each call of a Model wrapped by WithDeadlines. A zero field takes the
// default beside it; a negative one sets no limit.
type Deadlines struct {
	// FirstToken bounds the wait for the first sign of an answer, from the call's start:
	// for Generate the response headers (which providers send with the whole answer),
	// for Stream the first byte of the stream's body when the call goes through
	// NewTransport, else the headers or the first text fragment, whichever comes first.
	// Default DefaultFirstToken.
	FirstToken time.Duration
	// Total bounds the whole call, a stream read to its end included: a stream that
	// stalls midway ends here. Default DefaultTotal.
	Total time.Duration
}

func (d Deadlines) withDefaults() Deadlines {
	if d.FirstToken == 0 {
		d.FirstToken = DefaultFirstToken
	}
	if d.Total == 0 {
		d.Total = DefaultTotal
	}
	return d
}

// WithDeadlines returns a Model whose calls to m end with a retryable *Error wrapping
// ErrTimeout (Status 0, no Provider) when they pass one of d's deadlines; its message
// names the deadline. A call cancelled by its caller still returns ctx's error. Wrap the
// adapter, then the result with WithRetry, so each try has its own deadlines. The
// result is safe for concurrent use if m is.
func WithDeadlines(m Model, d Deadlines) Model {
	return &deadlined{m: m, d: d.withDefaults()}
}

type deadlined struct {
	m Model
	d Deadlines
}

func (w *deadlined) Generate(ctx context.Context, req Request) (*Response, error) {
	return within(ctx, w.d, false, func(ctx context.Context, _ *progress) (*Response, error) {
		return w.m.Generate(ctx, req)
	})
}

func (w *deadlined) Stream(ctx context.Context, req Request, onText func(string)) (*Response, error) {
	return within(ctx, w.d, true, func(ctx context.Context, p *progress) (*Response, error) {
		return w.m.Stream(ctx, req, func(s string) {
			p.answered()
			if onText != nil {
				onText(s)
			}
		})
	})
}

// within runs fn under d: each deadline fires by cancelling fn's context with a cause
// naming it, which replaces the error fn returns.
func within[T any](ctx context.Context, d Deadlines, stream bool, fn func(context.Context, *progress) (T, error)) (T, error) {
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p := &progress{stream: stream}
	if d := d.Total; d > 0 {
		t := time.AfterFunc(d, func() { cancel(fmt.Errorf("%w: no complete answer within %v", ErrTimeout, d)) })
		defer t.Stop()
	}
	if d := d.FirstToken; d > 0 {
		t := time.AfterFunc(d, func() { cancel(fmt.Errorf("%w: no first token within %v", ErrTimeout, d)) })
		defer t.Stop()
		p.stop = func() { t.Stop() }
	}
	callCtx = context.WithValue(callCtx, progressKey{}, p)
	callCtx = httptrace.WithClientTrace(callCtx, &httptrace.ClientTrace{GotFirstResponseByte: p.headers})
	resp, err := fn(callCtx, p)
	if err == nil || ctx.Err() != nil {
		return resp, err
	}
	var zero T
	if cause := context.Cause(callCtx); errors.Is(cause, ErrTimeout) {
		return zero, &Error{Message: cause.Error(), Err: cause}
	}
	return zero, err
}

// progressKey carries a call's *progress to NewTransport's RoundTrip.
type progressKey struct{}

// progress is what one call under WithDeadlines has received so far: the first sign of
// an answer stops its first-token timer.
type progress struct {
	stream bool
	// viaTransport is set by NewTransport's RoundTrip, which then reports the body's
	// first byte: a stream's headers alone do not count.
	viaTransport atomic.Bool
	once         sync.Once
	stop         func() // stops the first-token timer; nil when there is none
}

// answered records the first sign of an answer.
func (p *progress) answered() {
	p.once.Do(func() {
		if p.stop != nil {
			p.stop()
		}
	})
}

// headers records the response headers' arrival: the answer of a Generate call, and of
// a Stream call when no transport reports its body.
func (p *progress) headers() {
	if !p.stream || !p.viaTransport.Load() {
		p.answered()
	}
}

func progressFrom(ctx context.Context) *progress {
	p, _ := ctx.Value(progressKey{}).(*progress)
	return p
}
