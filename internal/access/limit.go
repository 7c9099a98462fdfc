package access

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
)

// Limiter is the rate-limit state of one agent: per user, the times of the addressed
// messages and, apart from them, of the commands within the last period (sliding
// windows). It is safe for concurrent use and lives in memory; it is derived state, so a
// restart rebuilds the message windows with Restore from what the store kept (the model
// turns queued within the last period) instead of persisting them. Command windows start
// empty after a restart.
type Limiter struct {
	limit RateLimit

	mu        sync.Mutex
	users     map[mynah.UserID]*window
	sweepAt   int       // prune idle users when the map grows past this,
	lastSweep time.Time // or once a period
}

// window is one user's state: a bucket of messages and one of commands.
type window struct {
	messages, commands bucket
	lastSeen           time.Time
}

// bucket is the hits of one kind within the period.
type bucket struct {
	hits    []time.Time // oldest first, within the period
	noticed bool        // the user was told about the limit since last allowed
}

// NewLimiter returns the state for limit; nil when limit is the zero value (no limit),
// which Decide accepts.
func NewLimiter(limit RateLimit) *Limiter {
	if limit.Messages <= 0 || limit.Per <= 0 {
		return nil
	}
	return &Limiter{limit: limit, users: map[mynah.UserID]*window{}, sweepAt: 1024}
}

// Take counts an addressed message of user at now. It returns ok when the user sent fewer
// than Messages within the last Per (the message is counted); otherwise the message is not
// counted, notify is true for the first refusal since the user was last allowed (one
// notice per burst, not one per message), and wait is how long until the user is allowed
// again.
func (l *Limiter) Take(user mynah.UserID, now time.Time) (ok, notify bool, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.window(user, now).messages.take(l.limit.Messages, l.limit.Per, now)
}

// TakeCommand is Take for a command (or another reply that costs no model call: a
// pairing code, a button press), counted against the command budget, apart from messages.
func (l *Limiter) TakeCommand(user mynah.UserID, now time.Time) (ok, notify bool, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.window(user, now).commands.take(l.limit.commands(), l.limit.Per, now)
}

// window returns user's state, seen at now. l.mu must be held.
func (l *Limiter) window(user mynah.UserID, now time.Time) *window {
	l.sweep(now)
	w := l.users[user]
	if w == nil {
		w = &window{}
		l.users[user] = w
	}
	w.lastSeen = now
	return w
}

// take counts a hit at now when fewer than limit fell within per before it; see Take.
func (b *bucket) take(limit int, per time.Duration, now time.Time) (ok, notify bool, wait time.Duration) {
	cut := 0
	for cut < len(b.hits) && !b.hits[cut].After(now.Add(-per)) {
		cut++
	}
	b.hits = b.hits[cut:]
	if len(b.hits) < limit {
		b.hits = append(b.hits, now)
		b.noticed = false
		return true, false, 0
	}
	notify = !b.noticed
	b.noticed = true
	return false, notify, b.hits[0].Add(per).Sub(now)
}

// Restore counts an addressed message of user that was let through at when, before a
// restart, so that restarting does not reset anybody's limit. Calls may come in any
// order; times outside the period ending at now are ignored, and of the rest only the
// newest Messages count (more cannot have been let through; admins, who are exempt, are
// the exception, and older hits would only shorten the wait told to a limited user). A
// restored user over the limit is told about it once more.
func (l *Limiter) Restore(user mynah.UserID, when, now time.Time) {
	if l == nil || !when.After(now.Add(-l.limit.Per)) || when.After(now) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.users[user]
	if w == nil {
		w = &window{}
		l.users[user] = w
	}
	b := &w.messages
	i, _ := slices.BinarySearchFunc(b.hits, when, time.Time.Compare)
	b.hits = slices.Insert(b.hits, i, when)
	if over := len(b.hits) - l.limit.Messages; over > 0 {
		b.hits = slices.Delete(b.hits, 0, over)
	}
	if w.lastSeen.Before(when) {
		w.lastSeen = when
	}
}

// sweep forgets users idle for longer than the period, once a period or when the map has
// doubled, so the state stays proportional to the users active within about two periods.
func (l *Limiter) sweep(now time.Time) {
	if len(l.users) < l.sweepAt && now.Sub(l.lastSweep) <= l.limit.Per {
		return
	}
	l.lastSweep = now
	for id, w := range l.users {
		if now.Sub(w.lastSeen) > l.limit.Per {
			delete(l.users, id)
		}
	}
	l.sweepAt = max(1024, 2*len(l.users))
}

// TurnLog reads back the model turns queued since a time (the store).
type TurnLog interface {
	ModelTurnsSince(ctx context.Context, agent string, since time.Time, fn func(user mynah.UserID, at time.Time)) error
}

// RestoreLimiter rebuilds agent's limiter at now from the model turns of the last period,
// so that a restart does not reset anybody's limit. It is nil (no limit) when the limit is
// off. The state is derived, not stored: every message the limit let through queued a
// model turn, and turns are kept, so restoring costs one read at start and nothing per
// message.
func RestoreLimiter(ctx context.Context, turns TurnLog, agent string, limit RateLimit, now time.Time) (*Limiter, error) {
	l := NewLimiter(limit)
	if l == nil {
		return nil, nil
	}
	err := turns.ModelTurnsSince(ctx, agent, now.Add(-limit.Per), func(u mynah.UserID, at time.Time) { l.Restore(u, at, now) })
	if err != nil {
		return nil, fmt.Errorf("agent %s: restoring rate limits: %w", agent, err)
	}
	return l, nil
}
