package ingest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
)

// Command is a bot command ingest answers itself; other commands are ordinary text.
type Command struct {
	Name        string // without the '/'
	Description string // its line in the bot's command menu
	Admin       bool   // only the agent's admins may use it (see access.AdminCommand)
	// Help is its line in the default reply to /help; empty: the line of another command
	// covers it, or it is an admin command.
	Help string
}

// Commands returns the commands ingest answers, in the order of the command menu.
func Commands() []Command {
	return []Command{
		{Name: "start", Description: "Say hello"},
		{Name: "help", Description: "What I can do", Help: "/help shows this message."},
		{Name: "reset", Description: "Start a new conversation", Help: "/reset (or /new) starts a new conversation: I keep the old messages but stop looking at them."},
		{Name: "new", Description: "Start a new conversation"},
		{Name: "memories", Description: "What I remember about you", Help: "/memories shows what I remember about you; /forget N (or /forget all) makes me forget it."},
		{Name: "forget", Description: "Forget something I remember about you"},
		{Name: "status", Description: "How I'm doing (admins)", Admin: true},
		{Name: "mute", Description: "Stop answering in this chat (admins)", Admin: true},
		// /stop is /mute's old name, kept as its alias in groups where no crew works; in a
		// crew's group it ends the crew's cycle (see Crew).
		{Name: "stop", Description: "Same as /mute (admins)", Admin: true},
		{Name: "activation", Description: "When I answer here: mention or always (admins)", Admin: true},
	}
}

// answers reports whether name is one of Commands.
func answers(name string) bool {
	return slices.ContainsFunc(Commands(), func(c Command) bool { return c.Name == name })
}

// command returns the reply to a command the policy let through, applying its effect: a
// reset is part of the intake; /stop and /activation change the chat's mode, in groups
// only (a private chat gets a note saying so).
func (in *Ingester) command(ctx context.Context, am access.Message, msg *mynah.Message, intake *mynah.Intake) (string, error) {
	switch am.Command {
	case "start":
		return in.agent.Texts.Start, nil
	case "help":
		return in.agent.Texts.Help, nil
	case "reset", "new":
		intake.Reset = true
		return in.agent.Texts.Reset, nil
	case "status":
		return in.status(am), nil
	}
	if !msg.Chat.IsGroup() {
		return "/" + am.Command + " works in groups: it sets how I take part there.", nil
	}
	mode := am.Mode
	mode.Agent, mode.Chat, mode.Updated = in.agent.Name, msg.Chat.ID, in.now()
	var reply string
	if am.Command == "mute" || am.Command == "stop" {
		mode.Stopped = true
		reply = "Muted: I won't answer in this chat until an admin sends /activation mention or /activation always."
	} else {
		arg := commandArg(msg.Text)
		t, err := access.ParseTrigger(arg)
		if err != nil {
			return fmt.Sprintf("Usage: /activation mention|reply|name|always (now: %s%s).",
				in.policy.GroupTrigger(msg.Chat.ID, am.Mode), stoppedNote(am.Mode)), nil
		}
		mode.Trigger, mode.Stopped = string(t), false
		reply = "Activation: " + string(t) + ". " + triggerHelp[t]
	}
	err := in.state.SetChatMode(ctx, mode)
	if err == nil && am.Command == "activation" {
		err = in.activateGroup(ctx, am)
	}
	if err != nil {
		if errors.Is(err, errNoState) {
			return "This setting can't be saved here.", nil
		}
		return "", err
	}
	return reply, nil
}

var triggerHelp = map[access.Trigger]string{
	access.Mention: "I answer when mentioned, replied to or called by name.",
	access.Reply:   "I answer when mentioned or replied to.",
	access.Name:    "I answer when mentioned or called by name.",
	access.Always:  "I answer every message here.",
}

// status is the reply to /status: cheap facts an admin wants to see at a glance.
func (in *Ingester) status(am access.Message) string {
	chat, mode := am.Chat, am.Mode
	var b strings.Builder
	up := in.now().Sub(in.started).Round(time.Second)
	fmt.Fprintf(&b, "%s is running", in.agent.Name)
	if in.agent.Model != "" {
		fmt.Fprintf(&b, " on %s", in.agent.Model)
	}
	fmt.Fprintf(&b, ", up %s.\n", up)
	private := in.policy.Private
	if private == "" {
		private = access.Open
	}
	fmt.Fprintf(&b, "Private chats: %s.", private)
	if chat.IsGroup() {
		fmt.Fprintf(&b, "\nThis group: %d, trigger %s%s.", chat.ID, in.policy.GroupTrigger(chat.ID, mode), stoppedNote(mode))
		switch {
		case in.policy.GroupAllowed(chat.ID, am.GroupApproved):
		case in.policy.NeedsGroupApproval():
			b.WriteString("\nIt is not approved: I store its messages and answer only admin commands. " +
				"/activation approves it.")
		default:
			b.WriteString("\nIt is not on the group allowlist: I store its messages and answer only admin commands.")
		}
	}
	if l := in.policy.Limit; l.Messages > 0 {
		fmt.Fprintf(&b, "\nRate limit: %d messages per %s per user.", l.Messages, l.Per)
	}
	return b.String()
}

func stoppedNote(m mynah.ChatMode) string {
	if m.Stopped {
		return ", stopped"
	}
	return ""
}

// commandArg returns the first word after the command, lower case.
func commandArg(text string) string {
	f := strings.Fields(text)
	if len(f) < 2 {
		return ""
	}
	return strings.ToLower(f[1])
}
