// Package runtime runs an agent's queued work: per-chat lanes that answer turns with the
// model and deliver the replies through the outbox, one turn at a time per chat, several
// chats in parallel. All work is read from the store, so a restart resumes it.
package runtime

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
)

// Store is what the runtime needs from a backend.
type Store interface {
	mynah.Turns
	mynah.Outbox
	mynah.Messages
	mynah.Sessions
	mynah.Chats
	mynah.UsageLog
	mynah.PromptLog
}

// Outgoing is one message to send to Telegram.
type Outgoing struct {
	Chat     mynah.ChatID
	ThreadID int64
	Text     string
	HTML     bool // Text is Telegram HTML
	ReplyTo  mynah.MessageID
}

// Telegram is the part of the Bot API the runtime uses. Send's errors are classified
// with the sentinels below (wrapped), so the runtime can react without knowing the wire.
type Telegram interface {
	Send(ctx context.Context, o Outgoing) (mynah.Message, error)
	Typing(ctx context.Context, chat mynah.ChatID, thread int64) error
}

// Delivery failures a Telegram implementation reports (wrapped with %w).
var (
	// ErrBadMarkup: Telegram could not parse the HTML; the part is resent as plain text.
	ErrBadMarkup = errors.New("telegram rejected the markup")
	// ErrReplyMissing: the message to reply to is gone; the part is resent without reply.
	ErrReplyMissing = errors.New("message to be replied not found")
	// ErrBlocked: the user blocked the bot; the chat's pending parts are dropped.
	ErrBlocked = errors.New("bot was blocked by the user")
)

// RetryAfterError is a flood-control answer: wait After, then send again.
type RetryAfterError struct{ After time.Duration }

func (e *RetryAfterError) Error() string { return "too many requests, retry after " + e.After.String() }

// Piece is one sendable part of a reply: Telegram HTML and the same text without markup.
type Piece struct {
	HTML  string
	Plain string
}

// Agent is the runtime's view of one configured agent.
type Agent struct {
	Name        string
	Bot         mynah.User
	Model       llm.Model
	ModelName   string // provider/model, recorded with usage
	ModelID     string // the provider's model name sent in requests
	ReplyTokens int
	Apology     string // sent when the model finally fails
	// Stream shows answers in private chats as drafts while they are written.
	Stream bool
	// Prompt builds each turn's prompt from the store and the layer sources.
	Prompt *prompt.Assembler
}

// Options tune a Runner. Zero values are usable.
type Options struct {
	Parallel int                     // lanes running at once; default 8
	Format   func(md string) []Piece // Markdown → sendable pieces; default sends plain text
	Grace    time.Duration           // how long shutdown waits for running turns; default 10s
	// DraftInterval is the least time between two draft updates; default 1s.
	DraftInterval time.Duration
	Now           func() time.Time
	Logger        *slog.Logger
}

// Runner runs one agent's lanes. Create it with New and start it with Run.
type Runner struct {
	agent Agent
	store Store
	tg    Telegram
	opts  Options
	log   *slog.Logger
	wake  chan struct{}
}

// New returns a Runner; it does no I/O.
func New(agent Agent, store Store, tg Telegram, opts Options) *Runner {
	if opts.Parallel <= 0 {
		opts.Parallel = 8
	}
	if opts.Format == nil {
		opts.Format = func(md string) []Piece { return []Piece{{Plain: md}} }
	}
	if opts.DraftInterval <= 0 {
		opts.DraftInterval = time.Second
	}
	if opts.Grace <= 0 {
		opts.Grace = 10 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Runner{
		agent: agent, store: store, tg: tg, opts: opts,
		log:  opts.Logger.With("agent", agent.Name),
		wake: make(chan struct{}, 1),
	}
}

// Wake tells the runner that new work was queued. It never blocks.
func (r *Runner) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}
