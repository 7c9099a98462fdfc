package lane

import (
	"context"
	"slices"
	"time"

	"github.com/mynah-ai/mynah"
)

// scanLimit bounds how many pending turns and parts one scan reads.
const scanLimit = 512

// laneKey names a lane: a chat, or one forum topic of a chat.
type laneKey struct {
	chat   mynah.ChatID
	thread int64
}

// laneResult reports a finished lane; retry is non-zero when the lane must not be
// restarted before then (a transient failure, or a turn held back for the rest of a split
// message).
type laneResult struct {
	key   laneKey
	retry time.Time
	held  int64 // the turn held back until retry; a newer turn of the lane ends the wait
}

// Run serves the agent's queue until ctx is cancelled. Then it stops starting model turns,
// lets running turns finish and delivers their replies, bounded by Options.Grace (a send
// under way then still completes and is recorded; see deliver), and returns after every
// lane goroutine has exited — at once when what is left waits past the grace period
// (flood control, a retry).
func (r *Runner) Run(ctx context.Context) error {
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	active := map[laneKey]bool{}
	notBefore := map[laneKey]time.Time{}
	held := map[laneKey]int64{}
	done := make(chan laneResult)
	draining := false
	var (
		grace    <-chan time.Time
		graceEnd time.Time
	)
	stop := ctx.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	poll := time.NewTicker(r.opts.Poll)
	defer poll.Stop()

	for {
		next, idle := r.dispatch(work, active, notBefore, held, done, draining)
		if draining && len(active) == 0 && (idle || next.After(graceEnd)) {
			return nil
		}
		if !next.IsZero() {
			timer.Reset(time.Until(next))
		}
		finished := func(res laneResult) {
			delete(active, res.key)
			delete(held, res.key)
			if !res.retry.IsZero() {
				notBefore[res.key] = res.retry
			}
			if res.held != 0 {
				held[res.key] = res.held
			}
		}
		select {
		case res := <-done:
			finished(res)
			// Collect whatever else is ready, so a burst of events costs one scan.
			for more := true; more; {
				select {
				case res := <-done:
					finished(res)
				case <-r.wake:
				default:
					more = false
				}
			}
		case <-r.wake:
		case <-timer.C:
		case <-poll.C:
		case <-stop:
			stop = nil
			draining = true
			grace, graceEnd = time.After(r.opts.Grace), r.opts.Now().Add(r.opts.Grace)
		case <-grace:
			r.log.Warn("shutdown grace period over, abandoning running turns", "running", len(active))
			cancelWork()
			for len(active) > 0 {
				res := <-done
				delete(active, res.key)
			}
			return nil
		}
	}
}

// dispatch scans the queue and starts a lane for every chat with work that has none
// running, up to the parallel limit. It returns the earliest retry time among chats that
// are waiting (zero if none) and whether nothing at all is pending.
func (r *Runner) dispatch(ctx context.Context, active map[laneKey]bool, notBefore map[laneKey]time.Time, held map[laneKey]int64, done chan<- laneResult, draining bool) (time.Time, bool) {
	parts, err := r.store.PendingParts(ctx, r.agent.Name, scanLimit)
	if err != nil {
		r.log.Error("reading outbox", "err", err)
		return r.opts.Now().Add(time.Second), false
	}
	var turns []mynah.Turn
	if !draining {
		if turns, err = r.pendingTurns(ctx); err != nil {
			r.log.Error("reading turn queue", "err", err)
			return r.opts.Now().Add(time.Second), false
		}
	}
	var next time.Time
	if !draining {
		next = r.nextDue(ctx)
	}
	// Lanes are started in the order of their oldest work, so a chat that has waited
	// longest goes first and a busy group gets one lane like everyone else: round robin.
	// Chats with nothing but due reminders take every other place, so a backlog of them
	// never delays the live ones (see fair).
	work := map[laneKey]*lane{}
	var order []laneKey
	get := func(k laneKey) *lane {
		l := work[k]
		if l == nil {
			l = &lane{r: r, key: k}
			work[k] = l
			order = append(order, k)
		}
		return l
	}
	for _, p := range parts {
		l := get(laneKey{p.Chat, p.ThreadID})
		l.parts = append(l.parts, p)
	}
	for _, t := range turns {
		l := get(laneKey{t.Chat, t.ThreadID})
		l.turns = append(l.turns, t)
	}
	order = fair(order, func(k laneKey) bool { return work[k].reminders() })
	now := r.opts.Now()
	for _, c := range order {
		if active[c] {
			continue
		}
		if at, ok := notBefore[c]; ok {
			l := work[c]
			if id, ok := held[c]; ok && slices.ContainsFunc(l.turns, func(t mynah.Turn) bool { return t.Static == "" && t.ID > id }) {
				// A newer message arrived: it replaces the held turn, no need to wait. A
				// static turn (a command's reply) replaces nothing and waits its turn.
				at = now
			}
			if now.Before(at) {
				if next.IsZero() || at.Before(next) {
					next = at
				}
				continue
			}
			delete(notBefore, c)
			delete(held, c)
		}
		if len(active) >= r.opts.Parallel {
			break
		}
		active[c] = true
		go func(l *lane) { done <- l.run(ctx) }(work[c])
	}
	return next, len(order) == 0
}

// dueRecheck bounds how long the runner trusts what it knows of the next scheduled turn
// without asking the store again.
const dueRecheck = time.Minute

// nextDue returns when the agent's next scheduled turn falls due (zero: none), so the
// runner wakes for it. The store is asked at start, when the known one falls due, when
// this runner schedules one (noteDue) and once a minute — not on every scan.
func (r *Runner) nextDue(ctx context.Context) time.Time {
	now := r.opts.Now()
	r.dueMu.Lock()
	defer r.dueMu.Unlock()
	if r.dueAsked.IsZero() || now.Sub(r.dueAsked) >= dueRecheck || (!r.due.IsZero() && !now.Before(r.due)) {
		due, err := r.store.NextDue(ctx, r.agent.Name, now)
		if err != nil {
			r.log.Error("reading scheduled turns", "err", err)
			return now.Add(time.Second)
		}
		r.due, r.dueAsked = due, now
	}
	return r.due
}

// noteDue tells the runner of a turn it scheduled for at.
func (r *Runner) noteDue(at time.Time) {
	r.dueMu.Lock()
	defer r.dueMu.Unlock()
	if r.due.IsZero() || at.Before(r.due) {
		r.due = at
	}
}
