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
// message). It says what the lane changed in the store, for the runner's queue.
type laneResult struct {
	key      laneKey
	retry    time.Time
	held     int64           // the turn held back until retry; a newer turn of the lane ends the wait
	finished []int64         // turns finished: answered or superseded
	answered bool            // a model turn was answered
	replaced bool            // the model turn under way was replaced by a newer one (supersede.go)
	settled  []int64         // parts sent, done or given up
	enqueued []mynah.OutPart // parts the lane's turn enqueued, as stored
	// lost: another instance sharing the store serves the chat now (mynah.ErrNotHeld);
	// the lane's work leaves the queue and is read again from the store.
	lost bool
}

// Run serves the agent's queue until ctx is cancelled. Then it stops starting model turns,
// lets running turns finish and delivers their replies, bounded by Options.Grace (a send
// under way then still completes and is recorded; see deliver), and returns after every
// lane goroutine has exited — at once when what is left waits past the grace period
// (flood control, a retry).
//
// The queue is read from the store when Run starts, when Wake asks, every Options.Poll
// for turns queued by other processes, and when a reminder falls due; otherwise Run
// keeps it in memory, told of new turns by Queued and of what each lane did by its
// result.
func (r *Runner) Run(ctx context.Context) error {
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	q := newQueue()
	active := map[laneKey]*lane{}
	replaced := map[laneKey]replacedRow{} // turns of each lane replaced in a row (supersede.go)
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
	scanTurns, scanParts := true, true // what to read from the store before dispatching
	lost := false                      // a lane's chat is served by another instance (laneResult.lost)

	for {
		news, rescan := r.takeNews()
		r.take(q, news)
		if !draining {
			r.offer(news, active, replaced)
		}
		if rescan {
			scanTurns, scanParts = true, true
		}
		if draining {
			scanTurns = false // no turn is started any more
		}
		failed := false
		if scanTurns || scanParts {
			if failed = !r.scan(work, q, scanTurns, scanParts); !failed {
				scanTurns, scanParts = false, false
			}
		}
		next, idle := r.dispatch(work, q, active, notBefore, held, done, draining)
		if failed {
			next = earliest(next, r.opts.Now().Add(time.Second))
		}
		if draining && len(active) == 0 && (idle || next.After(graceEnd)) {
			return nil
		}
		if !next.IsZero() {
			timer.Reset(time.Until(next))
		}
		finished := func(res laneResult) {
			delete(active, res.key)
			delete(held, res.key)
			switch {
			case res.replaced:
				row := replaced[res.key]
				if row.n == 0 {
					row.start = r.opts.Now()
				}
				row.n++
				replaced[res.key] = row
			case res.answered:
				delete(replaced, res.key)
			}
			if !res.retry.IsZero() {
				notBefore[res.key] = res.retry
			}
			if res.held != 0 {
				held[res.key] = res.held
			}
			q.apply(res)
			if q.lanes[res.key] == nil {
				delete(replaced, res.key) // nothing left to answer: the row is over
			}
			lost = lost || res.lost
			// More turns than a scan reads wait in the store, or the lane scheduled a
			// reminder that is due already: read them.
			scanTurns = scanTurns || q.full || r.dueNow()
		}
		select {
		case res := <-done:
			finished(res)
			// Collect whatever else is ready, so a burst of events costs one dispatch.
			for more := true; more; {
				select {
				case res := <-done:
					finished(res)
				default:
					more = false
				}
			}
		case <-r.wake:
		case <-timer.C:
			scanTurns = scanTurns || r.dueNow()
		case <-poll.C:
			scanTurns = true // turns queued by another process (mynah pair approve)
			// A lane found its chat served by another instance: what is this one's of it
			// is read again, at the pace of the poll should the store keep refusing.
			scanParts, lost = scanParts || lost, false
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

// earliest is the earlier of two times, zero meaning none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// scan reads the pending turns and the undelivered parts, as asked, from the store into
// q, and reports whether it could (a failure is logged).
func (r *Runner) scan(ctx context.Context, q *queue, turns, parts bool) bool {
	if turns {
		ts, err := r.pendingTurns(ctx)
		if err != nil {
			r.log.Error("reading turn queue", "err", err)
			return false
		}
		q.full = len(ts) >= scanLimit
		for _, t := range ts {
			q.addTurn(t)
		}
	}
	if parts {
		ps, err := r.store.PendingParts(ctx, r.agent.Name, scanLimit)
		if err != nil {
			r.log.Error("reading outbox", "err", err)
			return false
		}
		for _, p := range ps {
			q.addPart(p)
		}
	}
	return true
}

// take queues the turns Queued reported: those due now; a reminder for later is left to
// the store, read when it falls due.
func (r *Runner) take(q *queue, news []mynah.Turn) {
	now := r.opts.Now()
	for _, t := range news {
		if t.Due.After(now) {
			r.noteDue(t.Due)
			continue
		}
		q.addTurn(t)
	}
}

// offer tells the running lanes of the newer turns of their chats, so that one may
// replace the turn under way (supersede.go) — unless the lane's row of replaced turns is
// long enough already.
func (r *Runner) offer(news []mynah.Turn, active map[laneKey]*lane, replaced map[laneKey]replacedRow) {
	now := r.opts.Now()
	for _, t := range news {
		k := laneKey{t.Chat, t.ThreadID}
		if l := active[k]; l != nil && replaced[k].more(now) {
			l.rep.offer(t)
		}
	}
}

// dispatch starts a lane for every chat of q with work that has none running, up to the
// limits of lanes running and working (Options.Parallel, Options.Working). It returns the earliest retry time among chats that are waiting (zero
// if none) and whether nothing at all is pending. Draining, only parts are delivered.
func (r *Runner) dispatch(ctx context.Context, q *queue, active map[laneKey]*lane, notBefore map[laneKey]time.Time, held map[laneKey]int64, done chan<- laneResult, draining bool) (time.Time, bool) {
	var next time.Time
	if !draining {
		next = r.nextDue(ctx)
	}
	now := r.opts.Now()
	waiting := 0 // lanes with work held back until later
	order := q.order(draining, func(k laneKey) bool {
		if active[k] != nil {
			return true
		}
		at, ok := notBefore[k]
		if w := q.lanes[k]; !ok && len(w.parts) == 0 && len(w.turns) == 1 && w.turns[0].Static == "" && now.Before(w.turns[0].NotBefore) {
			// A lone message held for the rest of a burst (debounce): the lane would do
			// nothing but say so.
			at, ok = w.turns[0].NotBefore, true
			notBefore[k], held[k] = at, w.turns[0].ID
		}
		if !ok {
			return false
		}
		if id, ok := held[k]; ok && slices.ContainsFunc(q.lanes[k].turns, func(t mynah.Turn) bool { return t.Static == "" && t.ID > id }) {
			// A newer message arrived: it replaces the held turn, no need to wait. A static
			// turn (a command's reply) replaces nothing and waits its turn.
			at = now
		}
		if now.Before(at) {
			next = earliest(next, at)
			waiting++
			return true
		}
		delete(notBefore, k)
		delete(held, k)
		return false
	})
	// Chats with nothing but due reminders take every other place, so a backlog of them
	// never delays the live ones (see fair).
	order = fair(order, func(k laneKey) bool { return q.lanes[k].reminders() })
	for _, c := range order {
		if len(active) >= r.opts.Parallel || len(active)-int(r.waitingModel.Load()) >= r.opts.Working {
			break
		}
		w := q.lanes[c]
		l := &lane{r: r, key: c, parts: slices.Clone(w.parts)}
		active[c] = l
		if !draining {
			l.turns = slices.Clone(w.turns)
		}
		go func() { done <- l.run(ctx) }()
	}
	return next, len(order) == 0 && waiting == 0 && len(active) == 0
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

// dueNow reports whether the next scheduled turn is due, so that the queue is read.
func (r *Runner) dueNow() bool {
	r.dueMu.Lock()
	defer r.dueMu.Unlock()
	return !r.due.IsZero() && !r.opts.Now().Before(r.due)
}

// noteDue tells the runner of a turn it scheduled for at.
func (r *Runner) noteDue(at time.Time) {
	r.dueMu.Lock()
	defer r.dueMu.Unlock()
	if r.due.IsZero() || at.Before(r.due) {
		r.due = at
	}
}
