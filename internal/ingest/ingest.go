// Package ingest turns normalised Telegram updates into durable intake: it applies the
// access policy (internal/access), decides whether a message addresses the agent,
// recognises commands, and hands everything to the store in one atomic Accept, so an
// update is acknowledged only after it is stored. Messages the policy does not let through
// are stored (blocked senders' are not) and never reach a model.
package ingest

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
)

// Texts are the fixed replies to commands; the agent's config may override them.
type Texts struct {
	Start string // /start
	Help  string // /help
	Reset string // /reset and /new
}

// Agent describes what ingest needs to know about the agent receiving the update.
type Agent struct {
	Name  string
	Bot   mynah.User // the agent's own bot account (getMe)
	Names []string   // words that address the agent in groups, matched as whole words
	Texts Texts
	Model string // provider/model, shown by /status
	// Debounce holds every model turn this long, so a burst of messages typed in quick
	// succession gets one answer (a newer turn of the chat replaces a held one). 0: none
	// — a newer message of the same sender still replaces a turn whose answer is not
	// shown yet (see package lane).
	Debounce time.Duration
	// ConfigDir is the configuration directory, printed in the pairing commands the
	// operator is shown ("mynah pair approve CODE --config DIR"); empty leaves it out.
	ConfigDir string
}

// AccessState is what the access policy needs from the store: pairing codes and approvals
// (mynah.Pairings), the chat modes admins set (mynah.ChatModes) and the groups approved at
// runtime (mynah.GroupApprovals).
type AccessState interface {
	RequestPairing(ctx context.Context, agent string, user mynah.User, code string, now time.Time, ttl time.Duration, maxPending int) (mynah.Pairing, bool, error)
	Approved(ctx context.Context, agent string, user mynah.UserID) (bool, error)
	ChatMode(ctx context.Context, agent string, chat mynah.ChatID) (mynah.ChatMode, error)
	SetChatMode(ctx context.Context, m mynah.ChatMode) error
	GroupApproval(ctx context.Context, agent string, chat mynah.ChatID) (mynah.GroupApproval, error)
	GroupAdded(ctx context.Context, agent string, chat mynah.Chat, by mynah.User, when time.Time) error
	ApproveGroup(ctx context.Context, agent string, chat mynah.ChatID, by mynah.UserID, now time.Time) (mynah.GroupApproval, error)
	NoticeGroup(ctx context.Context, agent string, chat mynah.Chat, now time.Time) (bool, error)
}

// Ingester handles the updates of one agent. It is safe for concurrent use.
type Ingester struct {
	agent   Agent
	inbox   mynah.Inbox
	now     func() time.Time
	queued  func(mynah.Turn)
	trigger Trigger
	policy  access.Policy
	state   AccessState
	limits  *access.Limiter
	random  io.Reader
	started time.Time
	log     *slog.Logger
	// Users known to be paired, groups known to be approved, groups the owner was told
	// about.
	paired         syncSet[mynah.UserID]
	approvedGroups syncSet[mynah.ChatID]
	noticedGroups  syncSet[mynah.ChatID]
	facts          FactStore
	answer         func(ctx context.Context, callbackID, text string) error
	crew           Crew
}

// Options configure an Ingester. Zero values are usable: Now defaults to time.Now, Queued
// to a no-op, Policy answers everybody (see access.Policy), Random to crypto/rand.Reader,
// Logger discards.
type Options struct {
	Now func() time.Time
	// Queued is called after a turn was durably queued, with the turn as the inbox
	// stored it (its ID set, when the inbox sets it), to wake the runtime.
	Queued func(mynah.Turn)
	// Policy decides whom the agent answers; State persists what it needs. Without State,
	// nobody is paired, no group is approved at runtime, pairing codes cannot be issued
	// (strangers are only stored) and /stop and /activation fail.
	Policy access.Policy
	State  AccessState
	// Random is the source of pairing codes.
	Random io.Reader
	// Limits is the rate-limit state for Policy.Limit, restored after a restart
	// (access.Limiter.Restore); nil starts from an empty one.
	Limits *access.Limiter
	// Started is when the agent started, for the uptime /status shows; zero is New's time.
	Started time.Time
	Logger  *slog.Logger
	// Facts backs /memories and /forget; without it they say there are no memories.
	Facts FactStore
	// Answer answers a button press (answerCallbackQuery) with text, "" for none. It is
	// called once the press is stored; nil answers nothing.
	Answer func(ctx context.Context, callbackID, text string) error
	// Crew, if set, answers the crew commands in the groups where the agent works in a
	// crew (crew.go).
	Crew Crew
}

// New returns an Ingester for agent storing into inbox. It does no I/O.
func New(agent Agent, inbox mynah.Inbox, opts Options) *Ingester {
	in := &Ingester{agent: agent, inbox: inbox, now: opts.Now, queued: opts.Queued, policy: opts.Policy,
		state: opts.State, random: opts.Random, started: opts.Started, log: opts.Logger,
		facts: opts.Facts, answer: opts.Answer, crew: opts.Crew}
	if in.answer == nil {
		in.answer = func(context.Context, string, string) error { return nil }
	}
	if in.now == nil {
		in.now = time.Now
	}
	if in.queued == nil {
		in.queued = func(mynah.Turn) {}
	}
	if in.state == nil {
		in.state = noState{}
	}
	if in.random == nil {
		in.random = rand.Reader
	}
	if in.started.IsZero() {
		in.started = in.now()
	}
	if in.log == nil {
		in.log = slog.New(slog.DiscardHandler)
	}
	in.trigger = NewTrigger(agent.Bot, agent.Names)
	in.limits = opts.Limits
	if in.limits == nil {
		in.limits = access.NewLimiter(opts.Policy.Limit)
	}
	return in
}

// Handle stores u and, when the access policy lets the message through and it addresses
// the agent or is a command, queues a turn, all in one transaction. A blocked sender's
// message is not stored (the update is still recorded as handled). It returns nil for an
// update that was handled before (redelivered after a restart, or a message replayed under
// a new update id): nothing happens twice. An error means nothing was stored and the
// update must not be acknowledged. A button press (u.Callback) is stored the same way, may
// queue an edit of the message it was under, and is answered through Options.Answer once
// stored. The bot being added to a group (u.Member) records who added it.
func (in *Ingester) Handle(ctx context.Context, u mynah.Update) error {
	if u.Callback != nil {
		return in.handleCallback(ctx, u)
	}
	if u.Member != nil {
		if err := in.memberChange(ctx, u.Chat, *u.Member); err != nil {
			return fmt.Errorf("ingest: update %d: %w", u.ID, err)
		}
	}
	intake := mynah.Intake{Chat: u.Chat, Users: u.Users}
	if u.Message == nil {
		// A kind mynah does not act on (a reaction, a member change, a kind newer than
		// this build): recorded as handled, so Telegram stops redelivering it.
		in.log.Debug("update not acted on", "update_id", u.ID, "kind", u.Kind, "chat", u.Chat.ID)
	}
	if m := u.Message; m != nil {
		msg := *m
		msg.Agent = in.agent.Name
		intake.Message = &msg
		intake.Edit = u.Edited
		if u.Edited && in.policy.Block.Contains(msg.Sender) {
			intake = mynah.Intake{}
		}
		if !u.Edited {
			if err := in.plan(ctx, &intake, &msg); err != nil {
				return fmt.Errorf("ingest: update %d: %w", u.ID, err)
			}
			if t := intake.Turn; t != nil && t.Static == "" {
				t.NotBefore = holdBack(&msg, u.MediaGroup, in.agent.Debounce, in.now())
			}
		}
	}
	fresh, err := in.inbox.Accept(ctx, in.agent.Name, u.ID, intake)
	if err != nil {
		return fmt.Errorf("ingest: update %d: %w", u.ID, err)
	}
	if fresh && intake.Turn != nil {
		in.queued(*intake.Turn)
	}
	return nil
}

// Telegram delivers a long paste as several messages of up to 4096 characters, a second
// or so apart, an album as one message per item, moments apart, and a batch of forwarded
// messages as one update each, milliseconds apart. A turn for such a message waits a
// little, so the model sees the whole of it (and a newer turn of the lane replaces this
// one) instead of starting a call the next message would cancel.
const (
	splitHold   = 1500 * time.Millisecond
	albumHold   = 500 * time.Millisecond
	forwardHold = 250 * time.Millisecond
	// splitLength is where a text is probably a part of a split: Telegram cuts at 4096
	// characters, at a line or word boundary.
	splitLength = 3500
)

// holdBack returns when the turn answering msg may start (zero: at once): the longest of
// the agent's debounce and the wait for the rest of a split paste, an album or a batch
// of forwarded messages.
func holdBack(msg *mynah.Message, mediaGroup string, debounce time.Duration, now time.Time) time.Time {
	hold := debounce
	switch {
	case utf8.RuneCountInString(msg.Text) >= splitLength:
		hold = max(hold, splitHold)
	case mediaGroup != "":
		hold = max(hold, albumHold)
	case msg.Forward != nil:
		hold = max(hold, forwardHold)
	}
	if hold <= 0 {
		return time.Time{}
	}
	return now.Add(hold)
}

// ParseCommand returns the command name (lower case, without '/') when msg starts with a
// bot command meant for this bot: "/cmd" or "/cmd@botname". A command addressed to another
// bot ("/cmd@otherbot") is not ours.
func ParseCommand(msg *mynah.Message, botUsername string) (string, bool) {
	if len(msg.Entities) == 0 || msg.Entities[0].Type != "bot_command" || msg.Entities[0].Offset != 0 {
		return "", false
	}
	word, _, _ := strings.Cut(msg.Text, " ")
	word, _, _ = strings.Cut(word, "\n")
	if !strings.HasPrefix(word, "/") {
		return "", false
	}
	name, target, hasTarget := strings.Cut(word[1:], "@")
	if hasTarget && !strings.EqualFold(target, botUsername) {
		return "", false
	}
	return strings.ToLower(name), name != ""
}
