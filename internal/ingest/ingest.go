// Package ingest turns normalised Telegram updates into durable intake: it decides whether
// a message addresses the agent, recognises commands, and hands everything to the store in
// one atomic Accept, so an update is acknowledged only after it is stored.
package ingest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
)

// Update is one Telegram update in domain terms.
type Update struct {
	ID      int64
	Chat    mynah.Chat
	Message *mynah.Message // nil for update kinds mynah does not handle
	Edited  bool
	Users   []mynah.User
}

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
}

// Ingester handles the updates of one agent.
type Ingester struct {
	agent   Agent
	inbox   mynah.Inbox
	now     func() time.Time
	queued  func(mynah.ChatID)
	trigger Trigger
}

// Options configure an Ingester. Zero values are usable: Now defaults to time.Now and
// Queued to a no-op.
type Options struct {
	Now func() time.Time
	// Queued is called after a turn was durably queued for chat, to wake the runtime.
	Queued func(mynah.ChatID)
}

// New returns an Ingester for agent storing into inbox.
func New(agent Agent, inbox mynah.Inbox, opts Options) *Ingester {
	in := &Ingester{agent: agent, inbox: inbox, now: opts.Now, queued: opts.Queued}
	if in.now == nil {
		in.now = time.Now
	}
	if in.queued == nil {
		in.queued = func(mynah.ChatID) {}
	}
	in.trigger = NewTrigger(agent.Bot, agent.Names)
	return in
}

// Handle stores u and, when the message is addressed to the agent or is a command, queues
// a turn, all in one transaction. It returns nil for an update that was handled before
// (redelivered after a restart): nothing happens twice. An error means nothing was stored
// and the update must not be acknowledged.
func (in *Ingester) Handle(ctx context.Context, u Update) error {
	intake := mynah.Intake{Chat: u.Chat, Users: u.Users}
	if m := u.Message; m != nil {
		msg := *m
		msg.Agent = in.agent.Name
		intake.Message = &msg
		intake.Edit = u.Edited
		if !u.Edited {
			in.plan(&intake, &msg)
		}
	}
	fresh, err := in.inbox.Accept(ctx, in.agent.Name, u.ID, intake)
	if err != nil {
		return fmt.Errorf("ingest: update %d: %w", u.ID, err)
	}
	if fresh && intake.Turn != nil {
		in.queued(intake.Turn.Chat)
	}
	return nil
}

// plan decides what the agent does about a new message: a command reply, a model turn, or
// nothing (the message is only stored).
func (in *Ingester) plan(intake *mynah.Intake, msg *mynah.Message) {
	turn := &mynah.Turn{
		Agent:    in.agent.Name,
		Chat:     msg.Chat.ID,
		ThreadID: msg.ThreadID,
		Target:   msg.ID,
		Created:  in.now(),
	}
	if msg.Chat.IsGroup() {
		turn.ReplyTo = msg.ID
	}
	if cmd, ok := ParseCommand(msg, in.agent.Bot.Username); ok {
		switch cmd {
		case "start":
			turn.Static = in.agent.Texts.Start
		case "help":
			turn.Static = in.agent.Texts.Help
		case "reset", "new":
			intake.Reset = true
			turn.Static = in.agent.Texts.Reset
		}
		if turn.Static != "" {
			intake.Turn = turn
			return
		}
	}
	if in.trigger.Addressed(msg) {
		intake.Turn = turn
	}
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
