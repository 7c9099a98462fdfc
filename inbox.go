package mynah

import "context"

// Intake is the durable effect of one Telegram update, applied atomically by Inbox.Accept.
type Intake struct {
	Chat    Chat
	Users   []User   // people seen in the update (sender, reply sender, mentioned)
	Message *Message // stored (or, when Edit is true, its text and entities updated)
	Edit    bool
	// Reset starts a new session after Message (the /reset command) in Message's chat and
	// forum topic (Message.ThreadID; 0 outside topics): other topics keep theirs.
	Reset bool
	// Turn, when non-nil, queues work for the agent in this chat. When Accept queued it,
	// *Turn is the turn as stored, its ID set, so the runtime can be told of it without
	// reading the queue back.
	Turn *Turn
}

// Inbox is the intake contract: an update is acknowledged to Telegram only after Accept
// returned nil.
type Inbox interface {
	// Accept records updateID for agent as handled and applies in, all or nothing.
	// It returns false and changes nothing when the update was accepted before.
	// A message (not an edit) is stored once per (agent, chat, message id): when it is
	// stored already, under another update id (a webhook replay), the stored one is kept
	// and in.Reset and in.Turn are dropped, so a message queues at most one turn.
	// An invalid intake (a reset or edit without a message, a message or turn without a
	// chat, a message of another chat than in.Chat) is refused with an error and the update
	// is not marked handled, so a corrected retry works. A zero in.Chat means the message's.
	Accept(ctx context.Context, agent string, updateID int64, in Intake) (bool, error)
}
