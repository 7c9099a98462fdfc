package mynah

import (
	"context"
	"errors"
	"time"
)

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
	// Hold is called just before a part is sent to Telegram: it fails with an error
	// wrapping ErrNotHeld when this process must not send it, because another instance
	// sharing the store serves the part's chat now, or the part is no longer pending.
	// Then the caller drops the chat's work it holds in memory and reads it again from
	// the store. When it succeeds, the chat stays this process's long enough for the
	// send to start. A store serving one process only (SQLite) always succeeds.
	Hold(ctx context.Context, partID int64) error
}

// ErrNotHeld is Outbox.Hold's refusal: another instance serves the chat now, or the part
// was settled meanwhile. Turns.FinishTurn refuses the same way to finish a turn of a chat
// another instance took over.
var ErrNotHeld = errors.New("the chat is served by another instance now")
