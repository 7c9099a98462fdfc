package lane

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/prompt"
)

// Crew lets a crew (internal/crew) run the turns of an agent that is one of its members.
// The lanes ask it about every model turn before answering it, tell it how a member's
// turn ended, and tell it when a group's lane has delivered what it could, so the next
// member may speak. Implementations are safe for concurrent use.
type Crew interface {
	// Take is asked about every model turn of agent before it is answered. Its answer's
	// Role says what the lane does: CrewNone answers as usual; CrewTaken finishes the turn
	// without a model call (the crew took the message over: it started or joined a
	// cycle); CrewMember answers it as a member's turn (see CrewTurn). An error leaves the
	// turn queued, to be tried again.
	Take(ctx context.Context, agent string, t mynah.Turn) (CrewTurn, error)
	// Answered records how a member's turn ended (mynah.CrewSpoke, CrewPassed, CrewFailed
	// or CrewClosed) before the turn is finished with its plan; seen is the newest message
	// the member's prompt held. It returns false when the cycle no longer waits for the
	// turn (the member was skipped, the cycle stopped): its answer is then not sent. An
	// error leaves the turn queued, to be answered again.
	Answered(ctx context.Context, agent string, t mynah.Turn, outcome string, seen mynah.MessageID) (bool, error)
	// Settled is told that agent's lane of a group chat finished its work for now: the
	// parts it could deliver are delivered. It must not block.
	Settled(agent string, chat mynah.ChatID)
}

// CrewRole is what a crew makes of a turn (see Crew.Take).
type CrewRole int

// Crew roles of a turn.
const (
	CrewNone   CrewRole = iota // not a crew's: answered as usual
	CrewTaken                  // taken over by the crew: finished without an answer
	CrewMember                 // a member's turn in a cycle
)

// CrewTurn is how a member's turn is answered.
type CrewTurn struct {
	Role CrewRole
	// Layer ends the member's system instruction (the crew, its members, the rules);
	// Policy, when set, replaces the agent's history policy.
	Layer  string
	Policy *prompt.Policy
	// Timeout bounds the turn's model calls; past it the member is skipped for the round
	// (CrewFailed). 0: no bound beyond the model's own deadlines.
	Timeout time.Duration
	// Pass is what a member answers when it has nothing to add: an answer that is only
	// Pass (and white space) is not sent, and the turn ends CrewPassed.
	Pass string
	// Moderator marks the crew's moderator, who may close the cycle by ending a message
	// with Pass: the message is sent without it and the turn ends CrewClosed.
	Moderator bool

	seen mynah.MessageID // the newest message of the prompt, set by request
}

// crewKey carries the *CrewTurn of a member's turn through answer's calls.
type crewKey struct{}

// memberTurn returns the crew turn ctx carries, nil outside members' turns.
func memberTurn(ctx context.Context) *CrewTurn {
	ct, _ := ctx.Value(crewKey{}).(*CrewTurn)
	return ct
}

// memberFailed is how answer reports that no model answered a member's turn: a crew
// skips the member instead of sending an apology or holding the cycle back.
type memberFailed struct{ err error }

func (e memberFailed) Error() string { return "crew member's model failed: " + e.err.Error() }
func (e memberFailed) Unwrap() error { return e.err }

// answerMember answers a member's turn and reports its outcome to the crew. A pass is no
// plan at all; a failure (an error, the member's timeout) is logged and is no plan either,
// so the crew goes on without it. Store errors and a shutdown leave the turn queued.
func (r *Runner) answerMember(ctx context.Context, t *mynah.Turn, ct CrewTurn, o *mynah.TurnOutcome) ([]step, error) {
	mctx, drop := context.WithCancelCause(context.WithValue(ctx, crewKey{}, &ct))
	defer drop(nil)
	r.memberRunning(t.ID, drop)
	defer r.memberRunning(t.ID, nil)
	if ct.Timeout > 0 {
		var cancel context.CancelFunc
		mctx, cancel = context.WithTimeout(mctx, ct.Timeout)
		defer cancel()
	}
	var steps []step
	var err error
	if !errors.Is(context.Cause(mctx), errDropped) { // not dropped before it began
		steps, err = r.answer(mctx, t, o)
	}
	outcome := mynah.CrewSpoke
	var failed memberFailed
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(context.Cause(mctx), errDropped):
		// Answered drops whatever came; the crew is told the turn failed, which it ignores.
		steps, outcome = nil, mynah.CrewFailed
	case errors.As(err, &failed), err != nil && mctx.Err() != nil:
		r.log.Warn("crew member skipped this round: its model did not answer", "chat", t.Chat, "turn", t.ID, "timeout", ct.Timeout, "err", err)
		steps, outcome = nil, mynah.CrewFailed
	case err != nil:
		return nil, err
	case passes(steps, ct.Pass):
		steps, outcome = nil, mynah.CrewPassed
	case ct.Moderator && ct.Pass != "":
		var closed bool
		if steps, closed = closes(steps, ct.Pass); closed {
			outcome = mynah.CrewClosed
		}
	}
	wanted, err := r.opts.Crew.Answered(ctx, r.agent.Name, *t, outcome, ct.seen)
	if err != nil {
		return nil, err
	}
	if !wanted {
		r.log.Info("crew member's answer dropped: the cycle went on without it", "chat", t.Chat, "turn", t.ID)
		return nil, nil
	}
	return steps, nil
}

// errDropped cancels a member's turn the crew no longer waits for (Dropped).
var errDropped = errors.New("the crew went on without this turn")

// Dropped tells the lanes that the crew no longer waits for member turn turnID (the
// member was skipped with /next, the cycle stopped): a model call answering it is
// cancelled, so the member's lane is free for what comes next instead of writing an
// answer that would be dropped. A turn queued here but not begun is remembered and
// cancelled as it begins, before its model is asked: a /next right after the member's
// turn came up left the lane to ask the model anyway, and to wait for an answer the
// crew would drop (with a model that never answered, the member's next turns waited
// behind it). It never blocks.
func (r *Runner) Dropped(turnID int64) {
	r.membersMu.Lock()
	drop := r.members[turnID]
	if drop == nil {
		if r.dropped == nil || len(r.dropped) >= maxDropped {
			r.dropped = map[int64]bool{} // turns of another process, or long gone
		}
		r.dropped[turnID] = true
	}
	r.membersMu.Unlock()
	if drop != nil {
		r.log.Info("crew member's turn dropped: the cycle went on without it", "turn", turnID)
		drop(errDropped)
	}
}

// maxDropped is how many turns dropped before they began Runner remembers at most.
const maxDropped = 256

// memberRunning records the cancel of member turn turnID under way; nil: it is over. A
// turn dropped before it began is cancelled at once.
func (r *Runner) memberRunning(turnID int64, drop context.CancelCauseFunc) {
	r.membersMu.Lock()
	defer r.membersMu.Unlock()
	if drop == nil {
		delete(r.members, turnID)
		return
	}
	if r.dropped[turnID] {
		delete(r.dropped, turnID)
		r.log.Info("crew member's turn dropped before it began: the cycle went on without it", "turn", turnID)
		drop(errDropped)
		return
	}
	if r.members == nil {
		r.members = map[int64]context.CancelCauseFunc{}
	}
	r.members[turnID] = drop
}

// passes reports whether a plan says nothing: no steps, or only messages that are the
// pass token (with any white space around it).
func passes(steps []step, pass string) bool {
	for _, s := range steps {
		text := strings.TrimSpace(s.text)
		if s.kind != mynah.TaskSend || (text != "" && text != pass) {
			return false
		}
	}
	return true
}

// closes strips a trailing pass token from the plan's last message and reports whether it
// had one: the moderator's way of saying the cycle is over. A message left empty is
// dropped when nothing follows it.
func closes(steps []step, pass string) ([]step, bool) {
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].kind != mynah.TaskSend {
			continue
		}
		text := strings.TrimSpace(steps[i].text)
		if !strings.HasSuffix(text, pass) {
			return steps, false
		}
		steps[i].text = strings.TrimSpace(strings.TrimSuffix(text, pass))
		if steps[i].text == "" && i == len(steps)-1 {
			steps = steps[:i]
		}
		return steps, true
	}
	return steps, false
}

// settled tells the crew that the lane of a group finished its work.
func (r *Runner) settled(chat mynah.ChatID) {
	if r.opts.Crew != nil && chat < 0 {
		r.opts.Crew.Settled(r.agent.Name, chat)
	}
}
