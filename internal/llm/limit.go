package llm

import (
	"context"
	"errors"
	"sync"
)

// Limiter bounds the calls in flight to one provider by what the provider accepts,
// instead of a fixed number: it starts generous, halves when the provider answers that it
// is overloaded (429, 503, 529) — once per round of calls, however many of that round
// fail — and grows again with every call answered while the limit was in use: by one a
// call up to half the limit of the last overload, by one a round beyond it (additive
// increase, multiplicative decrease, as TCP finds a path's capacity). It never goes below
// 1 or above its ceiling. Waiting calls are served in the order they came. Safe for
// concurrent use; share one per provider among the models and agents that call it.
type Limiter struct {
	max int

	mu        sync.Mutex
	limit     float64
	threshold float64 // growth slows past this: half the limit of the last overload
	inflight  int
	round     uint64 // incremented on each decrease; a call remembers the round it started in
	waiting   []chan struct{}
}

// NewLimiter returns a Limiter allowing initial calls at once at first and never more
// than ceiling (initial when it is less than 1; ceiling at least initial).
func NewLimiter(initial, ceiling int) *Limiter {
	initial = max(initial, 1)
	ceiling = max(ceiling, initial)
	return &Limiter{max: ceiling, limit: float64(initial), threshold: float64(ceiling)}
}

// Limit returns how many calls the limiter lets through at once now.
func (l *Limiter) Limit() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int(l.limit)
}

// acquire waits for a slot, in arrival order, until ctx is done. It returns the round
// the call starts in.
func (l *Limiter) acquire(ctx context.Context) (uint64, error) {
	l.mu.Lock()
	if l.inflight < int(l.limit) && len(l.waiting) == 0 {
		l.inflight++
		r := l.round
		l.mu.Unlock()
		return r, nil
	}
	ready := make(chan struct{})
	l.waiting = append(l.waiting, ready)
	l.mu.Unlock()
	select {
	case <-ready:
		l.mu.Lock()
		r := l.round
		l.mu.Unlock()
		return r, nil
	case <-ctx.Done():
		l.mu.Lock()
		defer l.mu.Unlock()
		for i, w := range l.waiting {
			if w == ready {
				l.waiting = append(l.waiting[:i], l.waiting[i+1:]...)
				return 0, ctx.Err()
			}
		}
		// Handed a slot just as ctx ended: give it to the next in line.
		l.inflight--
		l.wakeLocked()
		return 0, ctx.Err()
	}
}

// release ends a call started in round; overloaded reports the provider refusing it for
// load, ok an answer.
func (l *Limiter) release(round uint64, ok, overloaded bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	atLimit := l.inflight >= int(l.limit)
	l.inflight--
	switch {
	case overloaded && round == l.round:
		l.threshold = max(l.limit/2, 1)
		l.limit = l.threshold
		l.round++
	case ok && atLimit && l.limit < float64(l.max):
		if l.limit < l.threshold {
			l.limit++
		} else {
			l.limit += 1 / l.limit
		}
		l.limit = min(l.limit, float64(l.max))
	}
	l.wakeLocked()
}

// wakeLocked hands free slots to the waiting calls, oldest first.
func (l *Limiter) wakeLocked() {
	for len(l.waiting) > 0 && l.inflight < int(l.limit) {
		l.inflight++
		close(l.waiting[0])
		l.waiting = l.waiting[1:]
	}
}

// WithLimit returns a Model whose calls to m wait for a slot of l. Put it inside
// WithRetry, so that a retry waits its backoff without holding a slot and each refusal
// for load reaches l. The result is safe for concurrent use if m is.
func WithLimit(m Model, l *Limiter) Model {
	return &limited{m: m, l: l}
}

type limited struct {
	m Model
	l *Limiter
}

func (x *limited) Generate(ctx context.Context, req Request) (*Response, error) {
	round, err := x.l.acquire(ctx)
	if err != nil {
		return nil, err
	}
	resp, err := x.m.Generate(ctx, req)
	x.l.release(round, err == nil, overloaded(err))
	return resp, err
}

func (x *limited) Stream(ctx context.Context, req Request, onText func(string)) (*Response, error) {
	round, err := x.l.acquire(ctx)
	if err != nil {
		return nil, err
	}
	resp, err := x.m.Stream(ctx, req, onText)
	x.l.release(round, err == nil, overloaded(err))
	return resp, err
}

// overloaded reports whether err is a provider refusing a call for load: too many
// requests, unavailable, or (Anthropic) overloaded.
func overloaded(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	return e.Status == 429 || e.Status == 503 || e.Status == 529
}
