package crew

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
)

// Store is what the crews need from a backend.
type Store interface {
	mynah.Crews
	Message(ctx context.Context, agent string, chat mynah.ChatID, id mynah.MessageID) (mynah.Message, error)
	Chat(ctx context.Context, agent string, id mynah.ChatID) (mynah.Chat, error)
}

// Options tune an Engine. Zero values are usable.
type Options struct {
	Now    func() time.Time
	Logger *slog.Logger
	// Poll is how often Run looks at the cycles under way when no lane told it of
	// progress; default 2s.
	Poll time.Duration
}

// Engine runs the crews of one process. Create it with New, tell it each member's bot
// and lanes with Join, and start it with Run. It is safe for concurrent use.
type Engine struct {
	crews []Crew
	store Store
	opts  Options
	log   *slog.Logger
	kick  chan struct{}

	mu      sync.Mutex
	bots    map[string]mynah.User // by agent
	lanes   map[string]Lanes      // each member's lanes, to tell of its turns
	present map[presence]bool     // groups where every member of a "*" crew is present
}

// Lanes are a member's lanes as the engine tells them of its turns (lane.Runner is).
type Lanes interface {
	// Queued tells them of a turn queued for the member, so they take it without
	// reading the store.
	Queued(mynah.Turn)
	// Dropped tells them the cycle no longer waits for the member's turn turnID (skipped
	// with /next, stopped): a model call answering it may stop. It must not block.
	Dropped(turnID int64)
}

type presence struct {
	crew string
	chat mynah.ChatID
}

// New returns an Engine for crews; it does no I/O. It fails when a crew is invalid or
// an agent is in two crews that may run in the same chat.
func New(crews []Crew, store Store, opts Options) (*Engine, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Poll <= 0 {
		opts.Poll = 2 * time.Second
	}
	e := &Engine{store: store, opts: opts, log: opts.Logger, kick: make(chan struct{}, 1),
		bots: map[string]mynah.User{}, lanes: map[string]Lanes{}, present: map[presence]bool{}}
	for _, c := range crews {
		if err := c.validate(); err != nil {
			return nil, err
		}
		c = c.withDefaults()
		for _, other := range e.crews {
			if other.Name == c.Name {
				return nil, fmt.Errorf("two crews are named %s", c.Name)
			}
			if other.Chat != c.Chat {
				continue
			}
			for _, m := range c.Members {
				if other.index(m.Agent) >= 0 {
					return nil, fmt.Errorf("agent %s is in crews %s and %s, which run in the same chats", m.Agent, other.Name, c.Name)
				}
			}
		}
		e.crews = append(e.crews, c)
	}
	return e, nil
}

// Crews returns the crews, with their defaults filled in and the moderator first.
func (e *Engine) Crews() []Crew { return slices.Clone(e.crews) }

// Join tells the engine member agent's bot account and its lanes (nil: none in this
// process), which it tells of the turns it queues for the member and drops.
func (e *Engine) Join(agent string, bot mynah.User, lanes Lanes) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.bots[agent] = bot
	if lanes != nil {
		e.lanes[agent] = lanes
	}
}

// botsOf returns the members' bots known so far.
func (e *Engine) botsOf() map[string]mynah.User {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]mynah.User, len(e.bots))
	for k, v := range e.bots {
		out[k] = v
	}
	return out
}

// tell tells t's agent's lanes of t, queued.
func (e *Engine) tell(t mynah.Turn) {
	e.mu.Lock()
	l := e.lanes[t.Agent]
	e.mu.Unlock()
	if l != nil {
		l.Queued(t)
	}
}

// drop tells agent's lanes that the cycle no longer waits for its turn turnID.
func (e *Engine) drop(agent string, turnID int64) {
	e.mu.Lock()
	l := e.lanes[agent]
	e.mu.Unlock()
	if l != nil {
		l.Dropped(turnID)
	}
}

// Run keeps the crews' cycles going until ctx is done: it binds the crews that have a
// chat of their own (so their members see each other from the first message), then
// advances every cycle whose member has finished its turn, when a lane says so and every
// Options.Poll, resuming after a restart where each cycle stood.
func (e *Engine) Run(ctx context.Context) error {
	for _, c := range e.crews {
		if c.Chat == 0 {
			continue
		}
		if err := e.bind(ctx, c, c.Chat); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			e.log.Error("binding the crew to its chat", "crew", c.Name, "chat", c.Chat, "err", err)
		}
	}
	tick := time.NewTicker(e.opts.Poll)
	defer tick.Stop()
	for {
		e.reconcileAll(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-e.kick:
		case <-tick.C:
		}
	}
}

// Settled is lane.Crew's: a lane of a group finished its work, so a cycle may go on. It
// never blocks.
func (e *Engine) Settled(string, mynah.ChatID) { e.poke() }

func (e *Engine) poke() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// reconcileAll advances every cycle under way whose current turn is over.
func (e *Engine) reconcileAll(ctx context.Context) {
	states, err := e.store.ActiveCrews(ctx)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Error("reading the crews' cycles", "err", err)
		}
		return
	}
	for _, st := range states {
		c, ok := e.crew(st.Crew)
		if !ok {
			continue // a crew no longer configured: its cycle stays as it was
		}
		if err := e.update(ctx, c, st.Chat, func(st *mynah.CrewState) (*mynah.Turn, error) {
			return e.advance(ctx, c, st)
		}); err != nil && ctx.Err() == nil {
			e.log.Error("advancing a crew's cycle", "crew", c.Name, "chat", st.Chat, "err", err)
		}
	}
}

// crew returns the crew named name.
func (e *Engine) crew(name string) (Crew, bool) {
	for _, c := range e.crews {
		if c.Name == name {
			return c, true
		}
	}
	return Crew{}, false
}

// errNoChange ends an update that has nothing to save.
var errNoChange = errors.New("no change")

// update applies fn to the state of c in chat and saves it, with the turn fn queues,
// reading again and retrying when another writer saved first. fn returning errNoChange
// saves nothing. The member a turn was queued for is woken, when this instance runs it.
func (e *Engine) update(ctx context.Context, c Crew, chat mynah.ChatID, fn func(st *mynah.CrewState) (*mynah.Turn, error)) error {
	return e.updateReset(ctx, c, chat, func(st *mynah.CrewState) (*mynah.Turn, mynah.MessageID, error) {
		t, err := fn(st)
		return t, 0, err
	})
}

// updateReset is update for a change that may also reset the members' sessions.
func (e *Engine) updateReset(ctx context.Context, c Crew, chat mynah.ChatID, fn func(st *mynah.CrewState) (*mynah.Turn, mynah.MessageID, error)) error {
	for attempt := 0; ; attempt++ {
		st, err := e.store.CrewState(ctx, c.Name, chat)
		if err != nil {
			return err
		}
		syncMembers(c, &st)
		queue, reset, err := fn(&st)
		if errors.Is(err, errNoChange) {
			return nil
		}
		if err != nil {
			return err
		}
		st.Updated = time.Time{}
		saved, err := e.store.SaveCrew(ctx, st, queue, reset)
		if errors.Is(err, mynah.ErrConflict) && attempt < 100 {
			continue
		}
		if err == nil && queue != nil && queue.ID != 0 {
			// SaveCrew gave the turn an ID: this instance runs it (another serving the
			// member's chat was told instead).
			t := *queue
			if t.Chat == 0 {
				t.Chat = saved.Chat
			}
			e.tell(t)
		}
		return err
	}
}

// syncMembers makes st's members c's, in c's order, keeping what st knows of each.
func syncMembers(c Crew, st *mynah.CrewState) {
	members := make([]mynah.CrewMember, len(c.Members))
	for i, m := range c.Members {
		members[i] = mynah.CrewMember{Agent: m.Agent}
		for _, old := range st.Members {
			if old.Agent == m.Agent {
				members[i] = old
			}
		}
	}
	st.Members = members
	if st.Next >= len(members) {
		st.Next = 0
	}
}

// bind saves c's state in chat if it has none, so the members' messages there are shared
// from the start.
func (e *Engine) bind(ctx context.Context, c Crew, chat mynah.ChatID) error {
	return e.update(ctx, c, chat, func(st *mynah.CrewState) (*mynah.Turn, error) {
		if st.Version != 0 && slices.Equal(memberNames(st.Members), c.names()) {
			return nil, errNoChange
		}
		return nil, nil
	})
}

func memberNames(ms []mynah.CrewMember) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Agent
	}
	return out
}

// Reasons a cycle ends, as CrewState.Ended and /agents say them.
const (
	endPassed    = "every member passed"
	endFailed    = "every member failed (error or timeout)"
	endSilent    = "nobody had more to say"
	endRounds    = "the last round (max_rounds) is over"
	endModerator = "the moderator closed it"
	endStop      = "stopped with /stop"
	endReset     = "a new crew session (/crew reset)"
)

// advance moves st on when its current member's turn is over: answered and delivered, or
// superseded by a newer turn of the member's lane (which is queued again), or, when the
// turn is a command's reply that handed the turn on (/next), when the reply is delivered
// (the member whose turn it is is asked then). It returns the next member's turn, or
// errNoChange while the turn is under way.
func (e *Engine) advance(ctx context.Context, c Crew, st *mynah.CrewState) (*mynah.Turn, error) {
	if !st.Active {
		return nil, errNoChange
	}
	if st.Turn == 0 {
		return e.queue(c, st), nil
	}
	status, err := e.store.CrewTurn(ctx, st.Turn)
	if errors.Is(err, mynah.ErrNotFound) {
		e.log.Warn("a crew member's turn is gone; queueing it again", "crew", c.Name, "chat", st.Chat, "turn", st.Turn)
		return e.queue(c, st), nil
	}
	if err != nil {
		return nil, err
	}
	if !status.Done || status.Pending > 0 {
		return nil, errNoChange
	}
	member := &st.Members[st.Next]
	switch st.Outcome {
	case "":
		// A newer message in the member's lane superseded the turn before it was answered:
		// the member still speaks, now seeing that message too. Or the turn was the reply
		// to a /next that handed the turn to this member (Command), or a command's reply
		// that a new cycle waited for (Take): the reply is delivered, so the member speaks
		// now, after it, as the group must see them.
		return e.queue(c, st), nil
	case mynah.CrewSpoke, mynah.CrewClosed:
		st.Spoke = append(st.Spoke, member.Agent)
		member.Turns++
	case mynah.CrewPassed:
		st.Passed = append(st.Passed, member.Agent)
	default:
		st.Failed = append(st.Failed, member.Agent)
	}
	e.log.Info("crew member's turn over", "crew", c.Name, "chat", st.Chat, "cycle", st.Cycle, "round", st.Round,
		"member", member.Agent, "outcome", st.Outcome)
	moderated := c.Moderator != ""
	switch {
	case st.Outcome == mynah.CrewClosed, st.Closing:
		return e.end(c, st, endModerator), nil
	case moderated && st.Next == 0 && st.Outcome == mynah.CrewPassed:
		return e.end(c, st, endModerator), nil
	}
	st.Next++
	if st.Next < len(st.Members) {
		return e.queue(c, st), nil
	}
	// The round is over.
	n := len(st.Members)
	var reason string
	switch {
	case len(st.Passed) == n:
		reason = endPassed
	case len(st.Failed) == n:
		reason = endFailed
	case len(st.Spoke) == 0:
		reason = endSilent
	case moderated && len(st.Passed) == n-1 && !slices.Contains(st.Passed, c.Moderator):
		reason = endPassed // everybody but the moderator passed
	case st.Round >= c.MaxRounds:
		reason = endRounds
	}
	if reason != "" && moderated && !slices.Contains(st.Failed, c.Moderator) {
		// The moderator closes the cycle.
		st.Closing, st.Next = true, 0
		st.Spoke, st.Passed, st.Failed = nil, nil, nil
		return e.queue(c, st), nil
	}
	if reason != "" {
		return e.end(c, st, reason), nil
	}
	st.Round++
	st.Next = 0
	st.Spoke, st.Passed, st.Failed = nil, nil, nil
	return e.queue(c, st), nil
}

// queue returns the turn of the member whose turn it is in st: it answers the cycle's
// target, replying to it when no member has yet.
func (e *Engine) queue(c Crew, st *mynah.CrewState) *mynah.Turn {
	st.Asked = st.Target
	t := &mynah.Turn{Agent: st.Members[st.Next].Agent, Chat: st.Chat, ThreadID: st.Thread, Target: st.Target, Created: e.opts.Now()}
	if st.Target != st.Replied {
		t.ReplyTo = st.Target
	}
	return t
}

// end ends st's cycle for reason. A message written as the cycle ended, which no member's
// turn was asked about, starts the next cycle at once (unless the cycle was stopped), so
// it is answered as if it had come a moment later; the next cycle's turn is returned.
func (e *Engine) end(c Crew, st *mynah.CrewState, reason string) *mynah.Turn {
	e.log.Info("crew cycle over", "crew", c.Name, "chat", st.Chat, "cycle", st.Cycle, "rounds", st.Round, "reason", reason)
	st.Active, st.Closing, st.Ended, st.Turn, st.Outcome = false, false, reason, 0, ""
	if st.Target <= st.Asked || reason == endStop || reason == endReset {
		return nil
	}
	return e.start(c, st)
}

// start starts the next cycle in st, for its target, and returns the first member's turn.
func (e *Engine) start(c Crew, st *mynah.CrewState) *mynah.Turn {
	e.begin(c, st)
	return e.queue(c, st)
}

// begin starts the next cycle in st, for its target, without asking its first member.
func (e *Engine) begin(c Crew, st *mynah.CrewState) {
	st.Cycle++
	st.Active, st.Round, st.Next, st.Closing, st.Ended = true, 1, 0, false, ""
	st.Spoke, st.Passed, st.Failed = nil, nil, nil
	e.log.Info("crew cycle started", "crew", c.Name, "chat", st.Chat, "cycle", st.Cycle, "message", st.Target)
}

// replyPending reports whether st's turn, with no cycle under way, is a command's reply
// ("Stopped.") not yet delivered.
func (e *Engine) replyPending(ctx context.Context, st *mynah.CrewState) (bool, error) {
	if st.Active || st.Turn == 0 {
		return false, nil
	}
	status, err := e.store.CrewTurn(ctx, st.Turn)
	if errors.Is(err, mynah.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return !status.Done || status.Pending > 0, nil
}
