package mynah

import (
	"context"
	"time"
)

// Turn is queued work for an agent in one chat: answer Target with the model, or, when
// Static is set, send Static without calling the model (command replies, apologies).
type Turn struct {
	ID       int64 // assigned by the store
	Agent    string
	Chat     ChatID
	ThreadID int64
	Target   MessageID
	// Sender is the author of Target as ingest saw it, so the runner can tell whose
	// message a newer turn answers (a newer message of the same sender replaces a turn
	// whose answer is not shown yet). It is not stored: zero in turns read from a store.
	Sender  UserID
	Static  string
	ReplyTo MessageID // reply to this message; 0 sends a plain message
	Created time.Time
	// NotBefore, when set, holds the turn back until then: the rest of a long paste that
	// Telegram split, or the other items of an album, may still be on their way, and a
	// newer turn of the lane replaces this one.
	NotBefore time.Time
	// Buttons, for a static turn, is an inline keyboard shown under the message.
	Buttons [][]Button
	// Due, when set, keeps the turn out of the queue until then: a reminder the agent
	// scheduled. Unlike NotBefore it holds nothing else back, and no newer turn replaces it.
	Due time.Time
	// Preview is the message showing the answer while the model wrote it (groups, with
	// streaming on): the answer's first message replaces its text instead of being sent
	// anew, also when the turn is retried after a crash.
	Preview MessageID
	// Edit, for a static turn, is a message the agent sent earlier whose text (and
	// keyboard) Static replaces, instead of sending a new message (a page of /memories).
	Edit MessageID
}

// Button is an inline keyboard button: pressing it sends Data back to the agent as a
// callback query (at most 64 bytes, as Telegram allows).
type Button struct {
	Text string
	Data string
}

// Turns is the persistent queue of turns.
type Turns interface {
	// PendingTurns returns up to limit unfinished turns of agent that are due at now,
	// oldest first.
	PendingTurns(ctx context.Context, agent string, now time.Time, limit int) ([]Turn, error)
	// SetPreview records the message previewing turnID's answer (see Turn.Preview).
	SetPreview(ctx context.Context, turnID int64, msg MessageID) error
	// NextDue returns when agent's earliest turn that is not yet due at now becomes due,
	// or the zero time when there is none.
	NextDue(ctx context.Context, agent string, now time.Time) (time.Time, error)
	// FinishTurn marks the turn done and enqueues parts for delivery, atomically, and
	// returns the given parts as stored (ID set), in the given order and each Key once,
	// leaving out those already sent or failed: what the caller can deliver at once
	// without rescanning the outbox. Every part needs a Key; a part whose Key exists is
	// not enqueued again and the stored part is returned in its place, so finishing twice
	// enqueues once and returns the same pending parts. Finishing a finished turn
	// enqueues nothing. A part with Chat 0 goes to the turn's chat and thread. An unknown
	// turn is an error wrapping ErrNotFound. A store shared by several instances refuses
	// to finish an unfinished turn of a chat another instance took over, with an error
	// wrapping ErrNotHeld: that instance answers it.
	FinishTurn(ctx context.Context, turnID int64, parts []OutPart) ([]OutPart, error)
}

// TurnOutcome is everything finishing a turn leaves in the store besides marking it
// done: the parts of its plan, the usage of its model calls and the record of its prompt.
// A store that takes a TurnOutcome commits all of it at once, so an answered message
// costs one transaction besides its delivery (see the lanes' optional finisher).
type TurnOutcome struct {
	Parts  []OutPart     // as FinishTurn takes them
	Usage  []Usage       // recorded as UsageLog.RecordUsage would
	Prompt *PromptRecord // recorded as PromptLog.RecordPrompt would, when set
}
