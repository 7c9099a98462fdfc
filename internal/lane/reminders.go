package lane

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/mynah-ai/mynah"
)

// Due reminders are turns like any other, but a backlog of them must not starve live
// messages, nor may one chat pile them up: these are the reads and the ordering that
// see to it, and the count behind Agent.MaxReminders.

// pendingTurns reads the turns to run: those due now, oldest first. When they fill a
// scan, the live turns (the ones without Due, due at any time, hence already at the Unix
// epoch) are read apart and merged in, so that a backlog of due reminders never hides a
// message waiting for its answer.
func (r *Runner) pendingTurns(ctx context.Context) ([]mynah.Turn, error) {
	due, err := r.store.PendingTurns(ctx, r.agent.Name, r.opts.Now(), scanLimit)
	if err != nil || len(due) < scanLimit {
		return due, err
	}
	live, err := r.store.PendingTurns(ctx, r.agent.Name, time.UnixMilli(0), scanLimit)
	if err != nil {
		return nil, err
	}
	seen := make(map[int64]bool, len(due))
	for _, t := range due {
		seen[t.ID] = true
	}
	for _, t := range live {
		if !seen[t.ID] {
			due = append(due, t)
		}
	}
	slices.SortFunc(due, func(a, b mynah.Turn) int { return cmp.Compare(a.ID, b.ID) })
	return due, nil
}

// reminders reports whether the lane's only work is due reminders.
func (w *work) reminders() bool {
	return len(w.parts) == 0 && !slices.ContainsFunc(w.turns, func(t mynah.Turn) bool { return t.Due.IsZero() })
}

// fair reorders lanes, keeping their order otherwise, so that those for which later
// reports true take every other place while others are left: half the lanes started go
// to each kind as long as both have some.
func fair(lanes []laneKey, later func(laneKey) bool) []laneKey {
	if !slices.ContainsFunc(lanes, later) {
		return lanes
	}
	var first, second []laneKey
	for _, k := range lanes {
		if later(k) {
			second = append(second, k)
		} else {
			first = append(first, k)
		}
	}
	out := make([]laneKey, 0, len(lanes))
	for len(first) > 0 || len(second) > 0 {
		if len(first) > 0 {
			out, first = append(out, first[0]), first[1:]
		}
		if len(second) > 0 {
			out, second = append(out, second[0]), second[1:]
		}
	}
	return out
}

// reminderScan bounds the pending turns pendingReminders reads.
const reminderScan = 10000

// pendingReminders counts chat's reminders that are not sent yet: the agent's
// unfinished turns with a Due time. When the agent has more unfinished turns than one
// scan reads, the chat is taken to have no room left.
func (r *Runner) pendingReminders(ctx context.Context, chat mynah.ChatID) (int, error) {
	now := r.opts.Now()
	turns, err := r.store.PendingTurns(ctx, r.agent.Name, now.Add(maxSchedule+24*time.Hour), reminderScan)
	if err != nil {
		r.log.Error("counting pending reminders", "chat", chat, "err", err)
		return 0, err
	}
	if len(turns) == reminderScan {
		r.log.Warn("too many unfinished turns to count a chat's reminders; refusing more", "chat", chat, "turns", len(turns))
		return r.agent.MaxReminders, nil
	}
	n := 0
	for _, t := range turns {
		if t.Chat == chat && !t.Due.IsZero() {
			n++
		}
	}
	return n, nil
}
