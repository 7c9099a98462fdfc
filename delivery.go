package mynah

import (
	"errors"
	"time"
)

// Outgoing is one message to send to Telegram, or an edit of one the agent sent.
type Outgoing struct {
	Chat     ChatID
	ThreadID int64 // forum topic; 0 for none
	Text     string
	HTML     bool       // Text is Telegram HTML (parse_mode HTML)
	ReplyTo  MessageID  // reply to this message of Chat; 0 for none
	Buttons  [][]Button // inline keyboard under the message
	Edit     MessageID  // edit this message of the agent's instead of sending; 0 sends
}

// Piece is one sendable part of a reply: Telegram HTML and the same text without markup,
// sent instead when Telegram cannot parse the HTML.
type Piece struct {
	HTML  string
	Plain string
}

// Delivery failures. A Telegram adapter reports them so that errors.Is matches; each
// says what the lanes do about it.
var (
	// ErrBadMarkup: Telegram could not parse the HTML; the part is resent as plain text.
	ErrBadMarkup = errors.New("telegram rejected the markup")
	// ErrReplyMissing: the message to reply to is gone; the part is resent without reply.
	ErrReplyMissing = errors.New("message to be replied not found")
	// ErrBlocked: the user blocked the bot; the chat's pending parts are dropped.
	ErrBlocked = errors.New("bot was blocked by the user")
	// ErrRejected: Telegram refused the task for good (a bad request: an unknown sticker,
	// a message to react to that is gone); trying again cannot help, so the task and
	// those depending on it are given up, and the rest of the plan goes on.
	ErrRejected = errors.New("telegram rejected the request")
)

// RetryAfterError is a flood-control answer: wait After, then send again. A Telegram
// adapter reports it so that errors.As finds it.
type RetryAfterError struct{ After time.Duration }

func (e *RetryAfterError) Error() string { return "too many requests, retry after " + e.After.String() }
