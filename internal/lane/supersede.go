package lane

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
)

// A newer message replaces a running model turn of its lane until that turn's answer
// shows: people often send a thought in several messages, and an answer to the first
// alone, arriving after the second, answers a question nobody asks any more. The running
// turn's model call is cancelled and the turn finished without a reply (its message stays
// stored, as every message does); the newer turn answers with the whole burst in view,
// as lane.run does for turns queued together. Nothing is replaced once something of the
// answer is visible or done: a draft or preview shown, a tool run (remember, …), the
// answer committed. So that nobody waits for ever, only a newer message of the same
// sender replaces a turn (in a group, somebody else's message waits its turn), and a lane
// stops replacing once maxSupersedes turns in a row were replaced and the row began
// replaceBurst ago or more: a burst of any length still gets one answer, a user who keeps
// writing for longer gets answers along the way.

// maxSupersedes and replaceBurst bound the turns of a lane replaced in a row (see above).
const (
	maxSupersedes = 3
	replaceBurst  = 2 * time.Second
)

// replacedRow is a lane's row of replaced turns: how many, since when.
type replacedRow struct {
	n     int
	start time.Time
}

// more reports whether the row may grow at now.
func (w replacedRow) more(now time.Time) bool {
	return w.n < maxSupersedes || now.Sub(w.start) < replaceBurst
}

// errSuperseded ends a turn a newer message replaced.
var errSuperseded = errors.New("replaced by a newer message")

// States of a replaceable.
const (
	repNone     = iota // no model turn under way
	repOpen            // a model turn under way, nothing of it visible yet
	repShown           // something of the answer is visible or done: it stays
	repReplaced        // replaced by a newer turn
)

// replaceable is what a lane is answering, as a newer message may replace it. The
// runner's goroutine offers the lane's newer turns; the lane opens its model turn and
// marks it shown at the first thing the user could see or that cannot be undone.
type replaceable struct {
	mu     sync.Mutex
	state  int
	turn   mynah.Turn // the turn under way (repOpen, repShown, repReplaced)
	cancel context.CancelCauseFunc
	by     mynah.Turn // the turn that replaced it, or one offered before it opened
}

// replaces reports whether newer replaces t: a newer model turn of the same sender. In a
// private chat everybody is its one user; in a group the sender must be known
// (mynah.Turn.Sender) and the same.
func replaces(newer, t mynah.Turn) bool {
	if newer.ID <= t.ID || newer.Static != "" || !newer.Due.IsZero() || t.Static != "" || t.Preview != 0 {
		return false
	}
	if newer.Chat != t.Chat || newer.ThreadID != t.ThreadID {
		return false
	}
	if t.Chat > 0 { // positive chat ids are private chats
		return true
	}
	return t.Sender != 0 && newer.Sender == t.Sender
}

// open starts answering t: it returns the context to answer it in, which a newer turn
// cancels while nothing of the answer shows, and false when a turn offered already
// replaces t (nothing is to be done but finishing it).
func (rp *replaceable) open(ctx context.Context, t mynah.Turn) (context.Context, bool) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.turn = t
	if rp.by.ID != 0 && replaces(rp.by, t) {
		rp.state = repReplaced
		return ctx, false
	}
	rp.by = mynah.Turn{}
	ctx, rp.cancel = context.WithCancelCause(ctx)
	rp.state = repOpen
	return context.WithValue(ctx, replaceableKey{}, rp), true
}

// close ends the turn opened and reports whether it was replaced, and by which turn.
func (rp *replaceable) close() (mynah.Turn, bool) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.cancel != nil {
		rp.cancel(nil)
		rp.cancel = nil
	}
	replaced := rp.state == repReplaced
	by := rp.by
	rp.state, rp.by = repNone, mynah.Turn{}
	return by, replaced
}

// offer tells the lane of a newer turn of its chat; it reports whether the turn under
// way was replaced (its model call is cancelled). A turn offered before the lane opened
// its own replaces that one when it opens.
func (rp *replaceable) offer(newer mynah.Turn) bool {
	if newer.Static != "" || !newer.Due.IsZero() {
		return false // a command's reply or a reminder replaces nothing
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	switch rp.state {
	case repNone:
		if newer.ID > rp.by.ID {
			rp.by = newer
		}
	case repOpen:
		if replaces(newer, rp.turn) {
			rp.state, rp.by = repReplaced, newer
			rp.cancel(errSuperseded)
			return true
		}
	case repReplaced:
		if newer.ID > rp.by.ID {
			rp.by = newer
		}
	}
	return false
}

// replaceableKey carries the *replaceable of a turn under way through answer's calls.
type replaceableKey struct{}

// shown marks the answer of the turn ctx answers as visible from now on (a draft, a
// tool's effect, the answer itself), so no newer turn replaces it any more. It reports
// false when one did already: the caller must show and do nothing more. Outside a
// replaceable turn it is always true.
func shown(ctx context.Context) bool {
	rp, _ := ctx.Value(replaceableKey{}).(*replaceable)
	if rp == nil {
		return true
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	switch rp.state {
	case repReplaced:
		return false
	case repOpen:
		rp.state = repShown
	}
	return true
}
