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
// means no limit.
type RateLimit struct {
	Messages int
	Per      time.Duration
}

// Policy is an agent's access configuration. The zero value answers everybody in private
// chats and in every group, on the Mention trigger, without limits, and knows no admins.
type Policy struct {
	Private PrivatePolicy // "" is Open
	Allow   Users         // private chats under Allowlist and Pairing
	Block   Users         // never answered, never stored; wins over everything
	Admins  map[mynah.UserID]bool
	// Groups lists the groups the agent answers in; empty allows every group. Messages of
	// other groups are stored and never answered.
	Groups   map[mynah.ChatID]bool
	Trigger  Trigger                  // groups' default trigger; "" is Mention
	PerGroup map[mynah.ChatID]Trigger // per-group triggers over Trigger
	Limit    RateLimit                // per user, addressed messages only; admins are exempt
}

// IsAdmin reports whether user may use the admin commands.
func (p Policy) IsAdmin(user mynah.UserID) bool { return p.Admins[user] }

// GroupAllowed reports whether the agent answers in group chat.
func (p Policy) GroupAllowed(chat mynah.ChatID) bool { return len(p.Groups) == 0 || p.Groups[chat] }

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
// may use: /status, /stop and /activation.
func AdminCommand(name string) bool {
	return name == "status" || name == "stop" || name == "activation"
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
// only consulted, and only counts, when the message would otherwise reach the model.
//
// The order of the rules: a blocked sender is ignored; admin commands are handled for
// admins in any chat (so an admin can ask /status in a group that is not allowed yet, to
// learn its id) and only stored for anybody else; in groups, a group not allowed or
// stopped stores everything, commands are handled, and a message that does not match the
// group's trigger is stored; in private chats, a sender who may not talk to the agent gets
// a pairing code under Pairing and is stored otherwise, and commands are handled; channel
// posts are stored. What is left is addressed to the agent, and is answered unless the
// sender, not an admin, is over the rate limit.
func Decide(p Policy, m Message, now time.Time, limits *Limiter) Decision {
	if p.Block.Contains(m.Sender) {
		return Decision{Action: Ignore, Reason: "sender is blocked"}
	}
	admin := p.IsAdmin(m.Sender.ID)
	if AdminCommand(m.Command) {
		if admin {
			return Decision{Action: Command, Reason: "admin command"}
		}
		return Decision{Action: Store, Reason: "admin command from a non-admin"}
	}
	switch {
	case m.Chat.IsGroup():
		switch {
		case !p.GroupAllowed(m.Chat.ID):
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
	if admin || limits == nil {
		return Decision{Action: Answer, Reason: "addressed"}
	}
	ok, notify, wait := limits.Take(m.Sender.ID, now)
	switch {
	case ok:
		return Decision{Action: Answer, Reason: "addressed"}
	case notify:
		return Decision{Action: Notify, Reason: "over the rate limit, first time", Notice: limitNotice(wait)}
	}
	return Decision{Action: Store, Reason: "over the rate limit"}
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
