package lane

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mynah-ai/mynah"
)

// lane is the work of one chat (or forum topic) as the runner's queue holds it:
// undelivered parts first, then turns in order. Only one lane per key runs at a time,
// which keeps each chat strictly ordered.
type lane struct {
	r     *Runner
	key   laneKey
	parts []mynah.OutPart
	turns []mynah.Turn
	rep   replaceable // the model turn under way, which a newer message may replace
}

// run delivers the pending parts, drops the model turns a newer one makes moot, then
// handles the first turn left and delivers what it enqueued. What it changed in the
// store comes back in the result; the runner starts the lane again for what is left,
// with what was queued meanwhile.
func (l *lane) run(ctx context.Context) laneResult {
	defer l.r.settled(l.key.chat)
	res := laneResult{key: l.key}
	parts := l.replan(ctx, &res)
	if !l.deliverAll(ctx, parts, &res) {
		return res
	}
	// Replanning: the newest model turn sees the whole history, so the older ones of the
	// lane are finished without a model call — a burst of messages gets one answer.
	last := -1
	for i, t := range l.turns {
		if t.Static == "" {
			last = i
		}
	}
	var turns []mynah.Turn
	for i, t := range l.turns {
		if t.Static != "" || i == last {
			turns = append(turns, t)
			continue
		}
		if _, err := l.r.store.FinishTurn(ctx, t.ID, nil); err != nil {
			if errors.Is(err, mynah.ErrNotHeld) {
				res.lost = true
				return res
			}
			wait := l.r.storeFailed(t.ID)
			l.r.log.Error("finishing superseded turn", "chat", l.key.chat, "turn", t.ID, "retry_in", wait, "err", err)
			res.retry = l.r.opts.Now().Add(wait)
			return res
		}
		l.r.forget(t.ID)
		res.finished = append(res.finished, t.ID)
	}
	if len(turns) == 0 {
		return res
	}
	turn := turns[0]
	if l.r.opts.Now().Before(turn.NotBefore) {
		res.retry, res.held = turn.NotBefore, turn.ID // the rest of a split message may still come
		return res
	}
	var (
		planned []mynah.OutPart
		err     error
	)
	if turn.Static != "" {
		planned, err = l.r.handle(ctx, turn)
	} else {
		tctx, ok := l.rep.open(ctx, turn)
		if ok {
			planned, err = l.r.handle(tctx, turn)
		}
		if by, replaced := l.rep.close(); replaced {
			l.replaced(ctx, turn, by, usageOf(err), &res)
			return res
		}
	}
	if err != nil {
		l.r.recordUsage(ctx, usageOf(err)) // calls made before the turn stopped
	}
	var later retryLater
	switch {
	case err == nil:
		res.finished = append(res.finished, turn.ID)
		res.answered = res.answered || turn.Static == ""
		res.enqueued = planned
		l.deliverAll(ctx, planned, &res)
	case errors.As(err, &later):
		res.retry, res.held = later.at, turn.ID // a newer message replans at once
	case errors.Is(err, mynah.ErrNotHeld): // another instance answers it
		l.r.forget(turn.ID)
		res.lost = true
	case ctx.Err() != nil:
	default:
		wait := l.r.storeFailed(turn.ID)
		l.r.log.Error("turn failed, will retry", "chat", l.key.chat, "turn", turn.ID, "retry_in", wait, "err", err)
		res.retry = l.r.opts.Now().Add(wait)
	}
	return res
}

// replaced finishes turn, which the newer turn by replaced before anything of its answer
// showed, without a reply (by answers with it in view: supersede.go), recording the usage
// of the model calls it made.
func (l *lane) replaced(ctx context.Context, turn, by mynah.Turn, usage []mynah.Usage, res *laneResult) {
	var err error
	if f, ok := l.r.store.(finisher); ok {
		_, err = f.FinishTurnWith(ctx, turn.ID, mynah.TurnOutcome{Usage: usage})
	} else {
		l.r.recordUsage(ctx, usage)
		_, err = l.r.store.FinishTurn(ctx, turn.ID, nil)
	}
	if err != nil {
		wait := l.r.storeFailed(turn.ID)
		l.r.log.Error("finishing a replaced turn", "chat", l.key.chat, "turn", turn.ID, "retry_in", wait, "err", err)
		res.retry = l.r.opts.Now().Add(wait)
		return
	}
	l.r.forget(turn.ID)
	res.finished = append(res.finished, turn.ID)
	res.replaced = true
	l.r.log.Info("a newer message replaced the turn before its answer showed", "chat", l.key.chat, "turn", turn.ID, "by", by.ID)
}

// replan drops what an earlier plan of the lane still waits to do when a newer message
// is to be answered: the new turn sees the whole conversation and plans afresh, so a
// plan pausing in a wait does not carry on as if nothing was said. Only the parts from
// the first pending wait of an older turn onwards go; a reply already under way (the
// rest of a long message) is finished. It returns the parts left to deliver.
func (l *lane) replan(ctx context.Context, res *laneResult) []mynah.OutPart {
	var newest int64
	for _, t := range l.turns {
		if t.Static == "" {
			newest = t.ID
		}
	}
	cut := slices.IndexFunc(l.parts, func(p mynah.OutPart) bool {
		return p.Kind == mynah.TaskWait && p.TurnID != 0 && p.TurnID < newest
	})
	if newest == 0 || cut < 0 {
		return l.parts
	}
	var keep []mynah.OutPart
	dropped := 0
	for i, p := range l.parts {
		if i < cut || p.TurnID == 0 || p.TurnID >= newest {
			keep = append(keep, p)
			continue
		}
		l.r.endWait(p.ID)
		if err := l.r.store.MarkFailed(ctx, p.ID, "replaced by the plan for a newer message"); err != nil {
			l.r.log.Error("dropping a replaced plan", "chat", l.key.chat, "part", p.Key, "err", err)
			keep = append(keep, p)
			continue
		}
		res.settled = append(res.settled, p.ID)
		dropped++
	}
	l.r.log.Info("newer message: dropped the rest of the earlier plan", "chat", l.key.chat, "tasks", dropped)
	return keep
}

// deliverAll carries out parts in order. A part whose dependency was given up is given up
// too; a part Telegram rejects for good is given up and the rest goes on. Flood control
// is no failure: the lane waits as long as Telegram asks, however long, and the part is
// neither counted as a try nor ever dropped for it (other chats' lanes go on meanwhile).
// On another failure the part is tried again after Agent.TaskRetryDelay (res.retry is
// set), and past Agent.TaskRetries tries the lane's whole plan is dropped — later tasks
// may depend on the failed one — and the lane waits for the next message. Settled parts
// are added to res. It reports whether the lane may go on to its turns.
func (l *lane) deliverAll(ctx context.Context, parts []mynah.OutPart, res *laneResult) bool {
	r := l.r
	var failed map[string]bool
	for i, p := range parts {
		if slices.ContainsFunc(p.DependsOn, func(k string) bool { return failed[k] }) {
			r.opts.Metrics.Task(kindOf(p), "dropped")
			r.giveUp(ctx, p, "a task it depends on failed", res)
			failed[p.Key] = true
			continue
		}
		var next *mynah.OutPart
		if i+1 < len(parts) {
			next = &parts[i+1]
		}
		err := r.perform(ctx, p, next)
		var (
			w     waiting
			flood *mynah.RetryAfterError
		)
		switch {
		case err == nil:
			r.opts.Metrics.Task(kindOf(p), "done")
			res.settled = append(res.settled, p.ID)
			continue
		case errors.As(err, &w):
			res.retry, res.held = w.until, p.TurnID // a newer message ends the wait early
			return false
		case errors.As(err, &flood):
			r.log.Info("flood control: waiting as telegram asks", "chat", l.key.chat, "part", p.Key, "retry_after", flood.After)
			res.retry = r.opts.Now().Add(max(flood.After, minFloodWait))
			return false
		case errors.Is(err, mynah.ErrBlocked):
			r.dropBlocked(ctx, parts[i:], res)
			return false
		case errors.Is(err, mynah.ErrNotHeld):
			r.log.Info("another instance serves the chat now; leaving its work to it", "chat", l.key.chat, "part", p.Key)
			res.lost = true
			return false
		case ctx.Err() != nil:
			return false
		case errors.Is(err, mynah.ErrRejected):
			r.log.Warn("telegram rejected a task; giving it up", "chat", l.key.chat, "part", p.Key, "kind", kindOf(p), "err", err)
			r.opts.Metrics.Task(kindOf(p), "rejected")
			r.giveUp(ctx, p, err.Error(), res)
			if failed == nil {
				failed = map[string]bool{}
			}
			failed[p.Key] = true
			continue
		}
		r.opts.Metrics.Task(kindOf(p), "retried")
		n, rerr := r.store.RetryPart(ctx, p.ID, err.Error())
		if rerr != nil {
			r.log.Error("counting a failed task", "chat", l.key.chat, "part", p.Key, "err", rerr)
		}
		if n >= r.agent.TaskRetries {
			r.log.Error("task failed for good; dropping the rest of the plan", "chat", l.key.chat, "part", p.Key,
				"kind", kindOf(p), "attempts", n, "tasks", len(parts)-i, "err", err)
			for _, q := range parts[i:] {
				r.opts.Metrics.Task(kindOf(q), "dropped")
				r.giveUp(ctx, q, fmt.Sprintf("task %s failed %d times: %v", p.Key, n, err), res)
			}
			return true
		}
		r.log.Warn("task failed, will retry", "chat", l.key.chat, "part", p.Key, "kind", kindOf(p),
			"attempt", n, "of", r.agent.TaskRetries, "err", err)
		res.retry = r.opts.Now().Add(r.agent.TaskRetryDelay)
		return false
	}
	return true
}

// giveUp marks p failed with reason, adding it to res's settled parts once recorded.
func (r *Runner) giveUp(ctx context.Context, p mynah.OutPart, reason string, res *laneResult) {
	r.endWait(p.ID)
	if err := r.store.MarkFailed(ctx, p.ID, reason); err != nil {
		r.log.Error("marking a task failed", "part", p.Key, "err", err)
		return
	}
	res.settled = append(res.settled, p.ID)
}

func kindOf(p mynah.OutPart) mynah.TaskKind {
	if p.Kind == "" {
		return mynah.TaskSend
	}
	return p.Kind
}
