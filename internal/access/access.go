// Package access is the policy that decides whom an agent answers: private chats open to
// everybody, to an allowlist, or to users approved through a pairing code; groups on an
// allowlist with a trigger mode each; a blocklist; admins and their commands; per-user
// rate limits. It is pure: the caller looks up what the policy needs (whether the sender
// was paired, the chat's runtime mode) and acts on the Decision; nothing here does I/O.
package access

import (
	"fmt"
	"time"

	"github.com/mynah-ai/mynah"
)

// PrivatePolicy says who may talk to the agent in a private chat.
type PrivatePolicy string

// Private chat policies.
const (
	// Open answers everybody.
	Open PrivatePolicy = "open"
	// Allowlist answers the users on Policy.Allow (and those approved through pairing
	// earlier); other users' messages are stored and never answered.
	Allowlist PrivatePolicy = "allowlist"
	// Pairing answers the same users as Allowlist; anybody else gets a one-time code that
	// an operator approves with `mynah pair approve CODE`.
	Pairing PrivatePolicy = "pairing"
)

// ParsePrivate returns the policy named s.
func ParsePrivate(s string) (PrivatePolicy, error) {
	switch p := PrivatePolicy(s); p {
	case Open, Allowlist, Pairing:
		return p, nil
	}
	return "", fmt.Errorf("%q is not open, allowlist or pairing", s)
}

// Trigger says which group messages address the agent. An @mention of the bot always
// does; the modes differ in what else counts. Commands meant for the bot (/cmd@bot) are
// handled in every mode.
type Trigger string

// Trigger modes.
const (
	// Mention: an @mention, a reply to one of the agent's messages, or one of its names.
	Mention Trigger = "mention"
	// Reply: an @mention or a reply to one of its messages; names do not count (for agents
	// whose name is a common word).
	Reply Trigger = "reply"
	// Name: an @mention or one of its names; a reply to its messages does not count (for
	// groups that discuss what the agent posted among themselves).
	Name Trigger = "name"
	// Always: every message.
	Always Trigger = "always"
)

// ParseTrigger returns the trigger mode named s.
func ParseTrigger(s string) (Trigger, error) {
	switch t := Trigger(s); t {
	case Mention, Reply, Name, Always:
		return t, nil
	}
	return "", fmt.Errorf("%q is not mention, reply, name or always", s)
}

// Signals are the ways a message addressed the agent.
type Signals struct {
	Mention bool // @bot_username, or a text mention of the bot
	Reply   bool // a reply to one of the agent's messages
	Name    bool // one of the agent's names as a whole word
}

// Match reports whether s addresses the agent under mode t ("" is Mention).
func (s Signals) Match(t Trigger) bool {
	switch t {
	case Always:
		return true
	case Reply:
		return s.Mention || s.Reply
	case Name:
		return s.Mention || s.Name
	}
	return s.Mention || s.Reply || s.Name
}

// RateLimit is how many addressed messages a user may send per period; the zero value
// means no limit. Commands have a budget of their own in the same period: they cost no
// tokens, so they never use up a user's answers, but every one of them makes the bot
// send, so they are counted too.
type RateLimit struct {
	Messages int
	Per      time.Duration
	// Commands is how many commands (and pairing replies, and button presses) a user may
	// send per Per; 0 is as many as Messages.
	Commands int
}

// commands is the command budget per period.
func (r RateLimit) commands() int {
	if r.Commands > 0 {
		return r.Commands
	}
	return r.Messages
}

// Policy is an agent's access configuration. The zero value answers everybody in private
// chats and in every group, on the Mention trigger, without limits, and knows no admins;
// mynah's configuration defaults to pairing in private chats and approved groups.
type Policy struct {
	Private PrivatePolicy // "" is Open
	Allow   Users         // private chats under Allowlist and Pairing
	Block   Users         // never answered, never stored; wins over everything
	Admins  map[mynah.UserID]bool
	// Groups lists the groups the agent answers in; empty allows every group, unless
	// ApprovedGroups. Messages of other groups are stored and never answered.
	Groups map[mynah.ChatID]bool
	// ApprovedGroups, when Groups is empty, allows only the groups approved at runtime
	// (Message.GroupApproved) instead of every group.
	ApprovedGroups bool
	Trigger        Trigger                  // groups' default trigger; "" is Mention
	PerGroup       map[mynah.ChatID]Trigger // per-group triggers over Trigger
	Limit          RateLimit                // per user, addressed messages and commands; admins are exempt
}

// IsAdmin reports whether user may use the admin commands.
func (p Policy) IsAdmin(user mynah.UserID) bool { return p.Admins[user] }

// GroupAllowed reports whether the agent answers in group chat; approved says whether
// the group was approved at runtime, which counts under ApprovedGroups only.
func (p Policy) GroupAllowed(chat mynah.ChatID, approved bool) bool {
	if len(p.Groups) > 0 {
		return p.Groups[chat]
	}
	return !p.ApprovedGroups || approved
}

// NeedsGroupApproval reports whether deciding about a group message needs to know if the
// group was approved at runtime: the store lookup is skipped when the config decides.
func (p Policy) NeedsGroupApproval() bool { return len(p.Groups) == 0 && p.ApprovedGroups }

// Approves reports whether user counts as approved by the owner: an admin, on the
// allowlist, or approved through pairing (paired). Everybody may talk to an agent whose
// private chats are open, but not everybody is approved: only approved users approve a
// group by adding the agent's bot to it.
func (p Policy) Approves(user mynah.User, paired bool) bool {
	return !p.Block.Contains(user) && (p.IsAdmin(user.ID) || p.Allow.Contains(user) || paired)
}

// GroupTrigger is the trigger of group chat: the runtime mode's, else the per-group one,
// else the default, else Mention.
func (p Policy) GroupTrigger(chat mynah.ChatID, mode mynah.ChatMode) Trigger {
	if t, err := ParseTrigger(mode.Trigger); err == nil {
		return t
	}
	if t, ok := p.PerGroup[chat]; ok && t != "" {
		return t
	}
	if p.Trigger != "" {
		return p.Trigger
	}
	return Mention
}

// PrivateAllowed reports whether user may talk to the agent in a private chat; paired
// says whether the user was approved through pairing. Admins always may.
func (p Policy) PrivateAllowed(user mynah.User, paired bool) bool {
	return p.Private == "" || p.Private == Open || p.Allow.Contains(user) || paired || p.IsAdmin(user.ID)
}

// NeedsPairingCheck reports whether deciding about a private message of user needs to know
// if the user was paired: the store lookup is skipped for everybody the config decides.
func (p Policy) NeedsPairingCheck(user mynah.User) bool {
	return !p.Block.Contains(user) && !p.PrivateAllowed(user, false)
}

// AdminCommand reports whether the command (lower case, without '/') is one only admins
// may use: /status, /mute (and its old name /stop) and /activation.
func AdminCommand(name string) bool {
	return name == "status" || name == "mute" || name == "stop" || name == "activation"
}

// Message is what the policy needs to know about an inbound message.
type Message struct {
	Chat   mynah.Chat
	Sender mynah.User
	// Command is the bot command meant for this bot that the caller handles (lower case,
	// without '/'), or "" when the message is not one.
	Command string
	Signals Signals        // groups: how the message addressed the agent
	Paired  bool           // private chats: the sender was approved through pairing
	Mode    mynah.ChatMode // groups: the chat's runtime mode
	// GroupApproved: the group was approved at runtime (see Policy.ApprovedGroups).
	GroupApproved bool
}

// Action is what to do with a message.
type Action int

// Actions, from doing the least to the most.
const (
	// Ignore: do not store the message (a blocked sender); the update is still handled.
	Ignore Action = iota
	// Store: store the message and do nothing else.
	Store
	// Pair: store the message and reply with the sender's pairing code.
	Pair
	// Notify: store the message and reply with Decision.Notice, without the model.
	Notify
	// Command: store the message and handle Message.Command.
	Command
	// Answer: store the message and queue a model turn.
	Answer
)

var actionNames = [...]string{"ignore", "store", "pair", "notify", "command", "answer"}

func (a Action) String() string {
	if a < 0 || int(a) >= len(actionNames) {
		return fmt.Sprintf("Action(%d)", int(a))
	}
	return actionNames[a]
}

// Decision is the policy's verdict on one message.
type Decision struct {
	Action Action
	Reason string // why, for logs
	Notice string // Notify: the text for the sender
}

// Decide applies p to m at now. limits holds the rate-limit state (nil: no limits); it is
// only consulted, and only counts, when the message would otherwise reach the model (a
// message) or make the bot reply without it (a command, a pairing code).
//
// The order of the rules: a blocked sender is ignored; admin commands are handled for
// admins in any chat (so an admin can ask /status in a group that is not allowed yet, to
// learn its id) and only stored for anybody else; in groups, a group not allowed or
// stopped stores everything, commands are handled, and a message that does not match the
// group's trigger is stored; in private chats, a sender who may not talk to the agent gets
// a pairing code under Pairing and is stored otherwise, and commands are handled; channel
// posts are stored. What is left is addressed to the agent, and is answered. A sender who
// is not an admin and is over the rate limit (of messages, or of commands for commands
// and pairing codes) gets one notice per burst instead, and is only stored after it.
func Decide(p Policy, m Message, now time.Time, limits *Limiter) Decision {
	d := decide(p, m)
	if d.Action == Pair && m.Command == "" {
		// Not counted: a stranger gets a code once an hour at most, and silence when they
		// write again (only /start repeats the code).
		return d
	}
	return limit(p, m.Sender.ID, d, now, limits)
}

// DecidePress applies p to a press of an inline button by user at now: a blocked user's
// press is ignored; otherwise it is handled (Command), unless the user, not an admin, is
// over the command budget of the rate limit, as for a command.
func DecidePress(p Policy, user mynah.User, now time.Time, limits *Limiter) Decision {
	if p.Block.Contains(user) {
		return Decision{Action: Ignore, Reason: "sender is blocked"}
	}
	return limit(p, user.ID, Decision{Action: Command, Reason: "button press"}, now, limits)
}

// limit applies the rate limit to d, the decision about a message of user.
func limit(p Policy, user mynah.UserID, d Decision, now time.Time, limits *Limiter) Decision {
	if limits == nil || p.IsAdmin(user) {
		return d
	}
	var ok, notify bool
	var wait time.Duration
	switch d.Action {
	case Answer:
		ok, notify, wait = limits.Take(user, now)
	case Command, Pair:
		ok, notify, wait = limits.TakeCommand(user, now)
	default:
		return d
	}
	switch {
	case ok:
		return d
	case notify:
		return Decision{Action: Notify, Reason: "over the rate limit, first time", Notice: limitNotice(wait)}
	}
	return Decision{Action: Store, Reason: "over the rate limit"}
}

// decide is Decide without the rate limit.
func decide(p Policy, m Message) Decision {
	if p.Block.Contains(m.Sender) {
		return Decision{Action: Ignore, Reason: "sender is blocked"}
	}
	if AdminCommand(m.Command) {
		if p.IsAdmin(m.Sender.ID) {
			return Decision{Action: Command, Reason: "admin command"}
		}
		return Decision{Action: Store, Reason: "admin command from a non-admin"}
	}
	switch {
	case m.Chat.IsGroup():
		switch {
		case !p.GroupAllowed(m.Chat.ID, m.GroupApproved) && p.NeedsGroupApproval():
			return Decision{Action: Store, Reason: "group not approved"}
		case !p.GroupAllowed(m.Chat.ID, m.GroupApproved):
			return Decision{Action: Store, Reason: "group not on the allowlist"}
		case m.Mode.Stopped:
			return Decision{Action: Store, Reason: "stopped in this chat"}
		case m.Command != "":
			return Decision{Action: Command, Reason: "command"}
		case !m.Signals.Match(p.GroupTrigger(m.Chat.ID, m.Mode)):
			return Decision{Action: Store, Reason: "not addressed"}
		}
	case m.Chat.Type == mynah.ChatPrivate:
		switch {
		case !p.PrivateAllowed(m.Sender, m.Paired) && p.Private == Pairing:
			return Decision{Action: Pair, Reason: "unknown sender, pairing"}
		case !p.PrivateAllowed(m.Sender, m.Paired):
			return Decision{Action: Store, Reason: "sender not on the allowlist"}
		case m.Command != "":
			return Decision{Action: Command, Reason: "command"}
		}
	default:
		return Decision{Action: Store, Reason: "not a private chat or group"}
	}
	return Decision{Action: Answer, Reason: "addressed"}
}

// limitNotice tells a user over the rate limit when they will be answered again.
func limitNotice(wait time.Duration) string {
	var in string
	switch {
	case wait < time.Minute:
		in = fmt.Sprintf("%d s", max(1, int((wait+time.Second-1)/time.Second)))
	case wait < time.Hour:
		in = fmt.Sprintf("%d min", int((wait+time.Minute-1)/time.Minute))
	default:
		in = fmt.Sprintf("%.1f h", wait.Hours())
	}
	return "You're sending messages faster than I can answer. I'll answer again in " + in + "."
}
