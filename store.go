package mynah

import (
	"context"
	"errors"
	"time"
)

// Intake is the durable effect of one Telegram update, applied atomically by Inbox.Accept.
type Intake struct {
	Chat    Chat
	Users   []User   // people seen in the update (sender, reply sender, mentioned)
	Message *Message // stored (or, when Edit is true, its text and entities updated)
	Edit    bool
	// Reset starts a new session after Message (the /reset command) in Message's chat and
	// forum topic (Message.ThreadID; 0 outside topics): other topics keep theirs.
	Reset bool
	// Turn, when non-nil, queues work for the agent in this chat.
	Turn *Turn
}

// Inbox is the intake contract: an update is acknowledged to Telegram only after Accept
// returned nil.
type Inbox interface {
	// Accept records updateID for agent as handled and applies in, all or nothing.
	// It returns false and changes nothing when the update was accepted before.
	// An invalid intake (a reset or edit without a message, a message or turn without a
	// chat, a message of another chat than in.Chat) is refused with an error and the update
	// is not marked handled, so a corrected retry works. A zero in.Chat means the message's.
	Accept(ctx context.Context, agent string, updateID int64, in Intake) (bool, error)
}

// Turn is queued work for an agent in one chat: answer Target with the model, or, when
// Static is set, send Static without calling the model (command replies, apologies).
type Turn struct {
	ID       int64 // assigned by the store
	Agent    string
	Chat     ChatID
	ThreadID int64
	Target   MessageID
	Static   string
	ReplyTo  MessageID // reply to this message; 0 sends a plain message
	Created  time.Time
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

// OutPart is one message to deliver. Key is unique per agent (turn id and part index), so
// a part is enqueued and sent at most once.
type OutPart struct {
	ID       int64 // assigned by the store
	Agent    string
	Chat     ChatID
	ThreadID int64
	Key      string
	HTML     string // Telegram HTML; empty when only Plain applies
	Plain    string // the same text without markup, used when Telegram rejects the HTML
	ReplyTo  MessageID
	Created  time.Time
	Buttons  [][]Button // inline keyboard under the message
	Edit     MessageID  // replace this sent message's text instead of sending a new one

	// Kind is what the part does; the zero value sends HTML/Plain as a message.
	Kind TaskKind
	// StickerSet and Emoji choose a sticker (TaskSticker); Emoji is also the reaction
	// (TaskReact), set on message Target.
	StickerSet string
	Emoji      string
	Target     MessageID
	Wait       time.Duration // TaskWait
	// At is when a TaskSchedule part's text (Plain, Markdown) is sent to the chat.
	At time.Time
	// DependsOn holds the keys of earlier parts of the same plan that must be done first.
	DependsOn []string
	// Attempts counts the failed tries so far; past the agent's limit the plan is dropped.
	Attempts int
	// TurnID is the turn whose plan the part belongs to (0 for none), set by the store.
	TurnID int64
}

// TaskKind is what one part of a plan does.
type TaskKind string

// Task kinds. A model's answer is a plan of these; a plain text answer is one send (or
// several, when it is longer than a Telegram message).
const (
	TaskSend     TaskKind = "send"
	TaskSticker  TaskKind = "sticker"
	TaskReact    TaskKind = "react"
	TaskWait     TaskKind = "wait"
	TaskSchedule TaskKind = "schedule"
)

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
	// turn is an error wrapping ErrNotFound.
	FinishTurn(ctx context.Context, turnID int64, parts []OutPart) ([]OutPart, error)
}

// Outbox is the persistent delivery queue.
type Outbox interface {
	// PendingParts returns undelivered parts of agent in enqueue order.
	PendingParts(ctx context.Context, agent string, limit int) ([]OutPart, error)
	// MarkSent records that part was delivered as sent, storing sent (sent.ID must be
	// set; Outgoing is forced true) as the agent's own message in the same transaction.
	// A part moves from pending to sent or failed once: marking it again is a no-op.
	// An unknown part is an error wrapping ErrNotFound.
	MarkSent(ctx context.Context, partID int64, sent Message) error
	// MarkFailed records that part will never be delivered (for example, the bot was
	// blocked), with a reason for operators.
	MarkFailed(ctx context.Context, partID int64, reason string) error
	// MarkDone records that a part which sends no message (a reaction, a wait, a
	// schedule) was carried out; when then is non-nil it is queued as a new turn in the
	// same transaction (the reminder a schedule part sets). Like MarkSent it is a no-op on
	// a settled part.
	MarkDone(ctx context.Context, partID int64, then *Turn) error
	// RetryPart counts a failed attempt of a pending part and returns the attempts so far.
	RetryPart(ctx context.Context, partID int64, reason string) (int, error)
}

// Messages reads stored messages.
type Messages interface {
	// Message returns one message or ErrNotFound.
	Message(ctx context.Context, agent string, chat ChatID, id MessageID) (Message, error)
	// History returns the newest messages of chat with id > after (and, when thread is
	// non-zero, in that forum topic), at most limit of them, in chronological order. It
	// costs O(limit), whatever the size of the chat; a limit ≤ 0 returns nothing.
	// A message's Chat is the chat as last seen.
	History(ctx context.Context, agent string, chat ChatID, thread int64, after MessageID, limit int) ([]Message, error)
}

// Session is the current conversation of an agent in a chat, or in one forum topic of a
// chat: the prompt includes only messages after Start. Old sessions' messages stay stored.
type Session struct {
	Agent   string
	Chat    ChatID
	Thread  int64     // forum topic; 0 for a chat without topics (and a forum's General)
	Start   MessageID // the prompt includes messages with id > Start
	Started time.Time
}

// Sessions reads the current session of a chat or forum topic.
type Sessions interface {
	// Session returns the current session of chat's topic thread (0: outside topics).
	// Each topic has its own: a reset in one topic leaves the others as they were. A topic
	// without a reset has Start 0.
	Session(ctx context.Context, agent string, chat ChatID, thread int64) (Session, error)
}

// Chats records per-chat delivery state.
type Chats interface {
	Chat(ctx context.Context, agent string, id ChatID) (Chat, error)
	// SetBlocked marks that the chat's user blocked the agent's bot (or unblocked it).
	SetBlocked(ctx context.Context, agent string, id ChatID, blocked bool) error
	Blocked(ctx context.Context, agent string, id ChatID) (bool, error)
}

// Usage is the token count of one provider call.
type Usage struct {
	Agent        string
	Chat         ChatID
	Model        string // provider/model
	InputTokens  int
	OutputTokens int
	CachedTokens int
	Time         time.Time
}

// UsageLog records provider usage.
type UsageLog interface {
	RecordUsage(ctx context.Context, u Usage) error
}

// PromptRecord is what the prompt of one turn contained, kept so that an operator can ask
// why a reply said what it said (`mynah context explain`). Composition is the prompt
// package's JSON record (layers, tokens per layer, message ids, what was trimmed).
type PromptRecord struct {
	Agent       string
	Chat        ChatID
	Turn        int64 // the turn whose reply this prompt produced
	Model       string
	Composition []byte
	Usage       Usage
	Time        time.Time
}

// PromptLog stores prompt records.
type PromptLog interface {
	// RecordPrompt stores rec; recording a turn again replaces its record (a retried turn
	// keeps the prompt that produced the reply).
	RecordPrompt(ctx context.Context, rec PromptRecord) error
	// PromptForReply returns the record of the turn whose reply was delivered as Telegram
	// message reply in chat (chat 0: any chat of agent; the newest match wins), or an
	// error wrapping ErrNotFound.
	PromptForReply(ctx context.Context, agent string, chat ChatID, reply MessageID) (PromptRecord, error)
}

// Store is everything a backend provides. Consumers depend on the narrow interfaces.
type Store interface {
	Inbox
	Turns
	Outbox
	Messages
	Sessions
	Chats
	UsageLog
	PromptLog
	Close() error
}

// ErrPairingsFull is returned by Pairings.RequestPairing when the agent already has as many
// pending codes as allowed: the user is told to try again later.
var ErrPairingsFull = errors.New("too many pending pairing requests")

// Pairing is a one-time code that a user who is not on an agent's allowlist received in a
// private chat. An operator approves it (`mynah pair approve CODE`); from then on the user
// may talk to the agent.
type Pairing struct {
	Agent    string
	Code     string
	User     User
	Created  time.Time
	Expires  time.Time
	Approved time.Time // zero while pending
}

// Pairings persists pairing codes and the users approved through them. Codes are unique
// across agents, so a code alone identifies its agent.
type Pairings interface {
	// RequestPairing returns user's pending code for agent when one has not expired at now
	// (created false). Otherwise, when agent has fewer than maxPending unexpired pending
	// codes, it stores code for user, created at now and expiring after ttl, and returns it
	// (created true); otherwise it returns an error wrapping ErrPairingsFull. A code that
	// exists already (of any agent, any time) is an error: the caller draws another.
	RequestPairing(ctx context.Context, agent string, user User, code string, now time.Time, ttl time.Duration, maxPending int) (p Pairing, created bool, err error)
	// ApprovePairing approves the pending code (matched exactly; callers normalise case),
	// if it has not expired at now, and records its user as approved for its agent, all in
	// one transaction. When welcome is not empty it also queues a static turn sending
	// welcome to the user's private chat. An unknown, expired or already approved code is
	// an error wrapping ErrNotFound.
	ApprovePairing(ctx context.Context, code string, now time.Time, welcome string) (Pairing, error)
	// Approved reports whether user was approved for agent through pairing.
	Approved(ctx context.Context, agent string, user UserID) (bool, error)
	// ListPairings returns agent's codes that are pending and unexpired at now, and the
	// approved ones, oldest first; agent "" lists every agent's.
	ListPairings(ctx context.Context, agent string, now time.Time) ([]Pairing, error)
}

// ChatMode is what an agent's admins set for one chat at runtime (/stop, /activation): it
// overrides the configured trigger and survives restarts.
type ChatMode struct {
	Agent   string
	Chat    ChatID
	Trigger string // mention, reply, name or always; "" keeps the configured trigger
	Stopped bool   // the agent answers nothing but admin commands in this chat
	Updated time.Time
}

// ChatModes persists chat modes.
type ChatModes interface {
	// ChatMode returns the chat's mode; a chat never set has a zero mode (with Agent and
	// Chat filled in), not an error.
	ChatMode(ctx context.Context, agent string, chat ChatID) (ChatMode, error)
	// SetChatMode stores m, replacing the chat's previous mode; a zero Updated means now.
	SetChatMode(ctx context.Context, m ChatMode) error
}
