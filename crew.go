package mynah

import (
	"context"
	"errors"
	"time"
)

// ErrConflict is returned by Crews.SaveCrew when the stored state changed since it was
// read: the caller reads it again and decides anew.
var ErrConflict = errors.New("changed concurrently")

// CrewState is where a crew stands in one chat: its members in speaking order, the cycle
// under way (or the last one), whose turn it is and what each member did this round. It
// lives in the store, so a restart resumes a cycle at the member whose turn it was.
type CrewState struct {
	Crew string
	Chat ChatID
	// Thread is the forum topic the current cycle runs in; 0 outside topics.
	Thread int64
	// Version counts the saves; SaveCrew stores a state only over the version it was read
	// at. 0: never saved.
	Version int64
	Members []CrewMember // in speaking order
	// Cycle numbers the cycles of the crew in this chat; 0: none yet.
	Cycle  int64
	Active bool // a cycle is under way
	Round  int  // the round of the cycle, from 1
	// Next is the index in Members of the member whose turn it is; Closing marks the
	// moderator's closing turn of a cycle.
	Next    int
	Closing bool
	// Turn is the turn queued for that member (0: none yet), and Outcome what became of it
	// once answered: CrewSpoke, CrewPassed, CrewFailed or CrewClosed ("" while unanswered,
	// or when a newer message of the member's lane superseded it). After a crew command
	// Turn is the command's reply (Outcome ""): when the command handed the turn to the
	// member at Next (/next), that member's turn is queued only once the reply is
	// delivered, so the group sees the reply first, and a restart in between resumes there.
	Turn    int64
	Outcome string
	// Target is the newest user message the cycle answers: the one that started it, or one
	// written during it. Asked is the target of the member's turn queued last (a message
	// newer than it, written as the cycle ended, starts the next cycle). Replied is the
	// last target a member's message replied to.
	Target  MessageID
	Asked   MessageID
	Replied MessageID
	// Spoke, Passed and Failed are the members that spoke, passed and failed (an error, a
	// timeout) in this round.
	Spoke, Passed, Failed []string
	// Ended says why the last cycle ended; "" while it runs or before the first.
	Ended string
	// Command is the newest command message applied to the crew here: a command is
	// applied once, however many members' bots receive it.
	Command MessageID
	// Session is the message after which the current crew session starts (/crew reset);
	// 0 for the first session.
	Session MessageID
	Updated time.Time
}

// CrewMember is one member of a crew as the store keeps it.
type CrewMember struct {
	Agent string
	// LastSeen is the newest message of the chat the member's last prompt held; Turns
	// counts the turns it spoke in this crew session.
	LastSeen MessageID
	Turns    int
}

// Crew turn outcomes (CrewState.Outcome).
const (
	CrewSpoke  = "spoke"
	CrewPassed = "passed"
	CrewFailed = "failed"
	// CrewClosed: the moderator spoke and closed the cycle.
	CrewClosed = "closed"
)

// CrewTurn is how far a turn queued for a crew member got.
type CrewTurn struct {
	Done    bool // finished: answered, or superseded by a newer turn of the lane
	Pending int  // parts of its answer not yet delivered (or given up)
	Sent    int  // parts delivered
}

// Crews keeps the state of crews. A crew's members see each other through the store:
// Telegram does not deliver one bot's messages to another, so whenever Outbox.MarkSent
// records a message an agent sent in a chat where it is a member of a crew (a chat with
// a saved CrewState listing it), the same transaction records the message in the view of
// every other member of that crew, as an inbound message from the sender's bot (Outgoing
// false, the Telegram message id unchanged), once: a member whose view holds the id
// already keeps its row. An edit is mirrored the same way.
type Crews interface {
	// CrewState returns crew's state in chat; a crew never saved there has a zero state
	// with Crew and Chat filled in (Version 0), not an error.
	CrewState(ctx context.Context, crew string, chat ChatID) (CrewState, error)
	// ActiveCrews returns every state with a cycle under way, of every crew and chat.
	ActiveCrews(ctx context.Context) ([]CrewState, error)
	// SaveCrew stores s if the stored state's version is s.Version (0: none stored), and
	// returns it as stored, with Version incremented and Updated set (zero: now). Otherwise
	// it changes nothing and returns an error wrapping ErrConflict. In the same
	// transaction, when queue is non-nil, it queues the turn for queue.Agent (Chat 0: s's
	// chat) and stores its id in Turn (with Outcome cleared), and in queue.ID when this
	// instance may run the turn straight away, as Intake.Turn: always with one instance;
	// with several, not when another serves the member's chat (that one is told, and
	// queue.ID is left 0). When reset is non-zero, every member's session of the chat
	// starts after message reset, as a /reset would. Members must not be empty and must
	// not repeat an agent.
	SaveCrew(ctx context.Context, s CrewState, queue *Turn, reset MessageID) (CrewState, error)
	// CrewTurn reports how far turn turnID got; an unknown turn is an error wrapping
	// ErrNotFound.
	CrewTurn(ctx context.Context, turnID int64) (CrewTurn, error)
	// ShareMessage stores m in each agent's view of m's chat (m.Chat.ID must be set),
	// skipping agents whose view holds its id already, and records the chat in views that
	// lack it. Agent and Outgoing are ignored: m is an inbound message to them.
	ShareMessage(ctx context.Context, agents []string, m Message) error
}

// ModelSession is the session a stateful model (a command-line agent) keeps for one
// conversation, so a restart resumes it.
type ModelSession struct {
	// Key names the conversation: the agent, the chat, the topic and the prompt session
	// (llm.Request.Session), so a reset starts a new model session.
	Key string
	// ID is the model's own session id; "" when there is none (never started, expired,
	// or failed and to be started again with the whole history).
	ID string
	// Seen is the newest message of the conversation the session was sent.
	Seen MessageID
	// Turns counts the calls made in the session.
	Turns   int
	Started time.Time
	Used    time.Time
}

// ModelSessions stores model sessions.
type ModelSessions interface {
	// ModelSession returns the session of key, or an error wrapping ErrNotFound.
	ModelSession(ctx context.Context, key string) (ModelSession, error)
	// SaveModelSession stores s, replacing the session of its key.
	SaveModelSession(ctx context.Context, s ModelSession) error
}
