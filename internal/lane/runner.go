// Package lane runs an agent's queued work: per-chat lanes that answer turns with the
// model and deliver the replies through the outbox, one turn at a time per chat, several
// chats in parallel. All work is in the store, so a restart resumes it; the runner reads
// it once at start and keeps its queue in memory, told of new turns as they are queued
// (Queued), so no event costs a scan of the store.
package lane

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/tool"
)

// Store is what the lanes need from a backend.
type Store interface {
	mynah.Turns
	mynah.Outbox
	mynah.Messages
	mynah.Sessions
	mynah.Chats
	mynah.UsageLog
	mynah.PromptLog
}

// Telegram is the part of the Bot API the lanes use. Its errors match the delivery
// sentinels of package mynah (errors.Is: mynah.ErrBadMarkup, mynah.ErrReplyMissing,
// mynah.ErrBlocked, mynah.ErrRejected; errors.As: *mynah.RetryAfterError), so a lane can
// react without knowing the wire.
type Telegram interface {
	// Send sends o, or edits message o.Edit when it is set (returning the edited message
	// with Edited set; "message is not modified" counts as done).
	Send(ctx context.Context, o mynah.Outgoing) (mynah.Message, error)
	Typing(ctx context.Context, chat mynah.ChatID, thread int64) error
	// Sticker sends the sticker of set whose emoji is emoji.
	Sticker(ctx context.Context, chat mynah.ChatID, thread int64, set, emoji string, replyTo mynah.MessageID) (mynah.Message, error)
	// React sets the agent's reaction on a message.
	React(ctx context.Context, chat mynah.ChatID, msg mynah.MessageID, emoji string) error
}

// Model is one model an agent answers with.
type Model struct {
	Model llm.Model
	Name  string // provider/model, recorded with usage and reported to Metrics
	ID    string // the provider's model name sent in requests
	// Observe, if set, is told each request the model answered and the prompt tokens its
	// provider reported for it (tokens.Calibration learns from them).
	Observe func(req llm.Request, inputTokens int)
}

// Agent is the lanes' view of one configured agent.
type Agent struct {
	Name string
	Bot  mynah.User
	// Models are the models the agent answers with, in order: the first answers while it
	// can, and a call failing past its own retries (llm.WithRetry) moves on to the next,
	// each failure logged and reported to Metrics under the model's Name. At least one
	// is required.
	Models []Model
	// Model, ModelName and ModelID are the only model when Models is empty.
	Model       llm.Model
	ModelName   string
	ModelID     string
	ReplyTokens int
	Apology     string // sent when the model finally fails
	// SetupApology is sent instead when the provider refuses the API key (401, 403):
	// waiting will not help, so it does not ask the user to try again.
	SetupApology string
	// Stream shows answers in private chats as drafts while they are written.
	Stream bool
	// Prompt builds each turn's prompt from the store and the layer sources.
	Prompt *prompt.Assembler
	// Tools are the agent's tools besides the plan tools; ToolRounds bounds the model
	// calls of one turn (default 4).
	Tools      tool.Registry
	ToolRounds int
	// StickerSets are the sticker sets the agent may send from (none: no send_sticker).
	StickerSets []string
	// TypingDelay precedes each message the model sends with "typing…" for about as long
	// as a person would take to type it (at most 4 s).
	TypingDelay bool
	// TaskRetries is how often a failed task is tried before the lane's plan is dropped
	// (default 10), TaskRetryDelay the pause between tries (default 10 s).
	TaskRetries    int
	TaskRetryDelay time.Duration
	// MaxTasks bounds the tasks (plan tool calls) of one turn's plan, default 20;
	// MaxReminders the reminders a chat may have pending, default 50. A call past either
	// is refused with a tool result saying so, which the model sees.
	MaxTasks     int
	MaxReminders int
}

// Options tune a Runner. Zero values are usable.
type Options struct {
	// Parallel bounds the lanes running at once; default 256. Model calls are best bounded
	// where they are made, by what the provider accepts (llm.WithLimit).
	Parallel int
	// Working bounds the lanes running at once that are not waiting for a model's answer
	// — building prompts, storing, sending — default 16. Their work is the CPU's and the
	// store's, which more lanes would not speed up but make hold more memory; lanes
	// waiting for a model do not count, so a slow model never keeps other chats waiting.
	Working int
	Format  func(md string) []mynah.Piece // Markdown → sendable pieces; default sends plain text
	Grace   time.Duration                 // how long shutdown waits for running turns; default 10s
	// Poll is how often the queue is scanned for work nobody woke the runner for (turns
	// queued by another process, like mynah pair approve's welcome); default 2s.
	Poll time.Duration
	// DraftInterval is the least time between two draft updates; default 1s.
	DraftInterval time.Duration
	// RetryWindow is how long a turn whose model calls all fail with retryable errors
	// (after llm.WithRetry's own tries and every fallback model) stays queued, tried
	// again after 5 s, then after waits doubling up to a minute, before the apology is
	// sent; default 3 min, negative: apologise at once. A newer message in the chat
	// replaces the waiting turn as usual. The window is kept in memory: a restart opens
	// a new one.
	RetryWindow time.Duration
	Now         func() time.Time
	Logger      *slog.Logger
	// Metrics, if set, counts model calls and how tasks end.
	Metrics Metrics
	// Crew, if set, runs the turns of the crews the agent is a member of (crew.go).
	Crew Crew
}

// Metrics receives what the lanes count. Each model call is reported with u.Model set
// to the Name of the model called, also when it failed (err set, no tokens). Task
// outcomes are "done", "retried" (one failed try), "rejected" (refused for good) and
// "dropped" (given up with its plan).
type Metrics interface {
	ModelCall(err error, u mynah.Usage, d time.Duration)
	Task(kind mynah.TaskKind, outcome string)
}

// noMetrics counts nothing.
type noMetrics struct{}

func (noMetrics) ModelCall(error, mynah.Usage, time.Duration) {}
func (noMetrics) Task(mynah.TaskKind, string)                 {}

// Runner runs one agent's lanes. Create it with New and start it with Run.
type Runner struct {
	agent Agent
	store Store
	tg    Telegram
	opts  Options
	log   *slog.Logger
	wake  chan struct{}

	newMu  sync.Mutex
	news   []mynah.Turn // turns Queued and not yet taken into Run's queue
	rescan bool         // Wake or a turn without an id: read the queue from the store

	waitsMu sync.Mutex
	waits   map[int64]time.Time // wait parts under way: when each ends

	dueMu    sync.Mutex
	due      time.Time // the next scheduled turn's time, as last known; zero: none
	dueAsked time.Time // when the store was last asked

	unfinished unfinished // turns tried and not finished yet (retry.go)
	tools      []llm.Tool // the plan tools and the agent's, offered in every request

	waitingModel atomic.Int32 // lanes waiting for a model's answer
	unblocked    sync.Map     // chats known not to be marked blocked (see unblock)

	membersMu sync.Mutex
	members   map[int64]context.CancelCauseFunc // crew members' turns under way (Dropped)
	dropped   map[int64]bool                    // crew members' turns dropped before they began
}

// New returns a Runner; it does no I/O. agent needs a model (Models, or Model).
func New(agent Agent, store Store, tg Telegram, opts Options) *Runner {
	if opts.Parallel <= 0 {
		opts.Parallel = 256
	}
	if opts.Working <= 0 {
		opts.Working = 16
	}
	if opts.Format == nil {
		opts.Format = func(md string) []mynah.Piece { return []mynah.Piece{{Plain: md}} }
	}
	if opts.Poll <= 0 {
		opts.Poll = 2 * time.Second
	}
	if opts.DraftInterval <= 0 {
		opts.DraftInterval = time.Second
	}
	if opts.Grace <= 0 {
		opts.Grace = 10 * time.Second
	}
	if agent.ToolRounds <= 0 {
		agent.ToolRounds = 4
	}
	if agent.TaskRetries <= 0 {
		agent.TaskRetries = 10
	}
	if agent.TaskRetryDelay <= 0 {
		agent.TaskRetryDelay = 10 * time.Second
	}
	if agent.MaxTasks <= 0 {
		agent.MaxTasks = 20
	}
	if agent.MaxReminders <= 0 {
		agent.MaxReminders = 50
	}
	if len(agent.Models) == 0 && agent.Model != nil {
		agent.Models = []Model{{Model: agent.Model, Name: agent.ModelName, ID: agent.ModelID}}
	}
	if opts.RetryWindow == 0 {
		opts.RetryWindow = 3 * time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Metrics == nil {
		opts.Metrics = noMetrics{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Runner{
		agent: agent, store: store, tg: tg, opts: opts,
		log:   opts.Logger.With("agent", agent.Name),
		wake:  make(chan struct{}, 1),
		waits: map[int64]time.Time{},

		unfinished: unfinished{turns: map[int64]*unfinishedTurn{}},
		tools:      append(PlanTools(agent.StickerSets), agent.Tools.Specs()...),
	}
}

// Wake tells the runner that work was queued that it was not told of, so it reads its
// queue from the store again. It never blocks.
func (r *Runner) Wake() {
	r.newMu.Lock()
	r.rescan = true
	r.newMu.Unlock()
	r.signal()
}

// Queued tells the runner of a turn queued for it, as the store returned it (see
// mynah.Intake.Turn): the runner takes it into its queue without reading the store. A
// turn without an ID makes it read the store instead. It never blocks.
func (r *Runner) Queued(t mynah.Turn) {
	r.newMu.Lock()
	if t.ID == 0 {
		r.rescan = true
	} else {
		r.news = append(r.news, t)
	}
	r.newMu.Unlock()
	r.signal()
}

func (r *Runner) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// takeNews returns the turns Queued since the last call and whether the store must be
// read again.
func (r *Runner) takeNews() ([]mynah.Turn, bool) {
	r.newMu.Lock()
	defer r.newMu.Unlock()
	news, rescan := r.news, r.rescan
	r.news, r.rescan = nil, false
	return news, rescan
}
