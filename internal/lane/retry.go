package lane

import (
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
)

// Backoffs of turns that could not be finished: a store that refuses writes is retried
// after storeBackoff, doubling up to maxBackoff; a model outage after outageBackoff,
// doubling up to maxBackoff, within Options.RetryWindow.
const (
	storeBackoff  = 2 * time.Second
	outageBackoff = 5 * time.Second
	maxBackoff    = time.Minute
)

// unfinished is what the runner remembers of the turns it tried and could not finish:
// an answer the store refused, and how long the model has been failing. It lives in
// memory only; a restart calls the model again and opens a new window.
type unfinished struct {
	mu    sync.Mutex
	turns map[int64]*unfinishedTurn
}

type unfinishedTurn struct {
	answered   bool              // answer holds the turn's outcome, which the store refused
	answer     mynah.TurnOutcome // (an empty answer has no parts)
	storeFails int               // failed store writes in a row
	outage     time.Time         // when the models first failed to answer; zero: they have not
	modelFails int               // tries of the turn that no model answered
}

// get returns turn id's record, creating it.
func (u *unfinished) get(id int64) *unfinishedTurn {
	t := u.turns[id]
	if t == nil {
		t = &unfinishedTurn{}
		u.turns[id] = t
	}
	return t
}

// keepAnswer remembers the outcome of turn id's answer, which the store refused.
func (r *Runner) keepAnswer(id int64, o mynah.TurnOutcome) {
	r.unfinished.mu.Lock()
	defer r.unfinished.mu.Unlock()
	t := r.unfinished.get(id)
	t.answered, t.answer = true, o
}

// keptAnswer returns the outcome keepAnswer remembered for turn id.
func (r *Runner) keptAnswer(id int64) (mynah.TurnOutcome, bool) {
	r.unfinished.mu.Lock()
	defer r.unfinished.mu.Unlock()
	if t := r.unfinished.turns[id]; t != nil && t.answered {
		return t.answer, true
	}
	return mynah.TurnOutcome{}, false
}

// storeFailed counts a failed attempt to finish turn id and returns how long to wait
// before the next: storeBackoff, doubling with each failure in a row up to maxBackoff.
func (r *Runner) storeFailed(id int64) time.Duration {
	r.unfinished.mu.Lock()
	defer r.unfinished.mu.Unlock()
	t := r.unfinished.get(id)
	t.storeFails++
	return doubled(storeBackoff, t.storeFails)
}

// modelFailed counts a try of turn id that no model answered, at now. It returns when
// to try again, or false when the RetryWindow opened by the first such try is over.
func (r *Runner) modelFailed(id int64, now time.Time) (time.Time, bool) {
	if r.opts.RetryWindow < 0 {
		return time.Time{}, false
	}
	r.unfinished.mu.Lock()
	defer r.unfinished.mu.Unlock()
	t := r.unfinished.get(id)
	if t.outage.IsZero() {
		t.outage = now
	}
	end := t.outage.Add(r.opts.RetryWindow)
	if !now.Before(end) {
		return time.Time{}, false
	}
	t.modelFails++
	if next := now.Add(doubled(outageBackoff, t.modelFails)); next.Before(end) {
		return next, true
	}
	return end, true // one last try as the window closes
}

// forget drops what was remembered of turn id, once it is finished.
func (r *Runner) forget(id int64) {
	r.unfinished.mu.Lock()
	defer r.unfinished.mu.Unlock()
	delete(r.unfinished.turns, id)
}

// doubled is d doubled for each failure after the first, at most maxBackoff.
func doubled(d time.Duration, failures int) time.Duration {
	for i := 1; i < failures && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}
