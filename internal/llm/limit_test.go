package llm_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
)

// capped is a provider that serves at most capacity calls at once, each taking latency,
// and refuses any beyond with a 429, as a provider at its rate limit does.
type capped struct {
	capacity int
	latency  time.Duration
	mu       sync.Mutex
	running  int
	peak     int
	refused  int
	served   int
}

func (c *capped) Generate(ctx context.Context, _ llm.Request) (*llm.Response, error) {
	c.mu.Lock()
	if c.running >= c.capacity {
		c.refused++
		c.mu.Unlock()
		return nil, &llm.Error{Provider: "fake", Status: 429, Message: "too many requests"}
	}
	c.running++
	c.peak = max(c.peak, c.running)
	c.mu.Unlock()
	time.Sleep(c.latency)
	c.mu.Lock()
	c.running--
	c.served++
	c.mu.Unlock()
	return &llm.Response{Text: "ok"}, nil
}

func (c *capped) Stream(ctx context.Context, req llm.Request, _ func(string)) (*llm.Response, error) {
	return c.Generate(ctx, req)
}

// TestLimiterFindsTheProvidersCapacity: 200 calls, 40 at a time, to a provider serving 5
// at once: a limiter starting at 32 backs off on the first 429s and settles near the
// provider's capacity, every call answered, with few refusals — where the same calls
// without it are refused again and again. Time is synthetic.
func TestLimiterFindsTheProvidersCapacity(t *testing.T) {
	run := func(limit bool) (refused int, peak int, l *llm.Limiter) {
		synctest.Test(t, func(t *testing.T) {
			p := &capped{capacity: 5, latency: 500 * time.Millisecond}
			var m llm.Model = p
			if limit {
				l = llm.NewLimiter(32, 256)
				m = llm.WithLimit(m, l)
			}
			m = llm.WithRetry(m, llm.RetryPolicy{Attempts: 1000, Base: 100 * time.Millisecond, Max: time.Second})
			var failed atomic.Int64
			sem := make(chan struct{}, 40)
			var wg sync.WaitGroup
			for range 200 {
				sem <- struct{}{}
				wg.Go(func() {
					defer func() { <-sem }()
					if _, err := m.Generate(t.Context(), llm.Request{}); err != nil {
						failed.Add(1)
					}
				})
			}
			wg.Wait()
			if n := failed.Load(); n > 0 {
				t.Errorf("%d calls failed, want all answered", n)
			}
			if p.served != 200 {
				t.Errorf("%d calls served, want 200", p.served)
			}
			refused, peak = p.refused, p.peak
		})
		return refused, peak, l
	}
	refused, _, l := run(true)
	without, _, _ := run(false)
	t.Logf("429s: %d with the limiter (limit now %d), %d without", refused, l.Limit(), without)
	if got := l.Limit(); got < 2 || got > 10 {
		t.Errorf("the limit settled at %d for a provider serving 5 at once, want near 5", got)
	}
	if refused*4 > without {
		t.Errorf("%d refusals with the limiter, %d without: want it to avoid most of them", refused, without)
	}
}

// TestLimiterGrowsAndKeepsItsCeiling: with a provider that takes everything, a limiter
// started low grows with the calls answered at its limit, up to its ceiling and no
// further.
func TestLimiterGrowsAndKeepsItsCeiling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &capped{capacity: 1000, latency: 100 * time.Millisecond}
		l := llm.NewLimiter(2, 12)
		m := llm.WithLimit(p, l)
		var wg sync.WaitGroup
		for range 400 {
			wg.Go(func() { _, _ = m.Generate(t.Context(), llm.Request{}) })
		}
		wg.Wait()
		if got := l.Limit(); got != 12 {
			t.Errorf("limit %d after 400 calls at the limit, want the ceiling 12", got)
		}
		if p.peak != 12 {
			t.Errorf("%d calls ran at once, want at most and at last 12", p.peak)
		}
	})
}

// TestLimiterHalvesOncePerRound: a whole round of calls refused for load halves the limit
// once, not once per refusal; other failures leave it as it is.
func TestLimiterHalvesOncePerRound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := llm.NewLimiter(16, 16)
		release := make(chan struct{})
		m := llm.WithLimit(modelFunc(func(ctx context.Context) error {
			<-release
			return &llm.Error{Provider: "fake", Status: 529, Message: "overloaded"}
		}), l)
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() { _, _ = m.Generate(t.Context(), llm.Request{}) })
		}
		synctest.Wait()
		close(release)
		wg.Wait()
		if got := l.Limit(); got != 8 {
			t.Errorf("limit %d after a round of 16 overloads, want 16 halved once: 8", got)
		}
		bad := llm.WithLimit(modelFunc(func(context.Context) error { return &llm.Error{Provider: "fake", Status: 400} }), l)
		for range 5 {
			_, _ = bad.Generate(t.Context(), llm.Request{})
		}
		if got := l.Limit(); got != 8 {
			t.Errorf("limit %d after refused requests (400), want it unchanged at 8", got)
		}
	})
}

// TestLimiterServesInOrderAndHonoursCancel: calls waiting for a slot get it in the order
// they came; one whose context ends while it waits gives up without taking a slot.
func TestLimiterServesInOrderAndHonoursCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := llm.NewLimiter(1, 1)
		gate := make(chan struct{})
		var mu sync.Mutex
		var order []int
		m := llm.WithLimit(modelFunc(func(ctx context.Context) error {
			<-gate
			return nil
		}), l)
		record := llm.WithLimit(modelFunc(func(ctx context.Context) error { return nil }), l)
		var wg sync.WaitGroup
		wg.Go(func() { _, _ = m.Generate(t.Context(), llm.Request{}) }) // holds the slot
		synctest.Wait()
		cancelled, cancel := context.WithCancel(t.Context())
		var cancelErr error
		wg.Go(func() { _, cancelErr = record.Generate(cancelled, llm.Request{}) })
		synctest.Wait()
		for i := range 3 {
			wg.Go(func() {
				_, _ = record.Generate(t.Context(), llm.Request{})
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
			})
			synctest.Wait()
		}
		cancel()
		synctest.Wait()
		close(gate)
		wg.Wait()
		if !errors.Is(cancelErr, context.Canceled) {
			t.Errorf("the cancelled call returned %v, want context.Canceled", cancelErr)
		}
		if len(order) != 3 || order[0] != 0 || order[1] != 1 || order[2] != 2 {
			t.Errorf("waiting calls served in order %v, want [0 1 2]", order)
		}
	})
}

// modelFunc is a Model whose calls return what f returns.
type modelFunc func(ctx context.Context) error

func (f modelFunc) Generate(ctx context.Context, _ llm.Request) (*llm.Response, error) {
	if err := f(ctx); err != nil {
		return nil, err
	}
	return &llm.Response{Text: "ok"}, nil
}

func (f modelFunc) Stream(ctx context.Context, req llm.Request, _ func(string)) (*llm.Response, error) {
	return f.Generate(ctx, req)
}
