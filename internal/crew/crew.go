// Package crew runs crews: several agents, each with its own bot, working one group
// together. A user's message addressed to any member starts a cycle in which the members
// speak in order, each seeing the user's message and what the members before it said; a
// member with nothing to add passes. The cycle ends when every member passes in a round,
// the moderator passes or closes it, max_rounds is reached, or nobody in a round could
// speak.
//
// Everything a cycle needs lives in the store (mynah.Crews): the round, whose turn it is,
// who passed, each member's last-seen message and turn count. Members see each other
// through the store too, since Telegram does not deliver one bot's messages to another:
// Outbox.MarkSent records what a member sent in every other member's view. Each member's
// turn is an ordinary turn in its own lane (internal/lane), answered by the same context
// engine as any other, with the crew's layer added; the Engine is the lanes' lane.Crew
// and ingest's crew commands.
package crew

import (
	"fmt"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/prompt"
)

// Defaults of a crew's settings.
const (
	DefaultMaxRounds = 3
	DefaultPass      = "....."
)

// Crew is one configured crew.
type Crew struct {
	Name string
	// Chat is the crew's group; 0 runs it in any group where every member is present
	// (each member's bot has seen the group).
	Chat mynah.ChatID
	// Members speak in this order; with a Moderator, the moderator opens each round and
	// closes the cycle, the others follow in this order.
	Members   []Member
	Moderator string
	MaxRounds int           // rounds per cycle; 0: DefaultMaxRounds
	Pass      string        // what a member answers when it has nothing to add; "": DefaultPass
	Timeout   time.Duration // bounds each member's turn; 0: only the model's own deadlines
}

// Member is one agent of a crew.
type Member struct {
	Agent string
	// Role says in a line what the member does; the other members' prompts show it.
	Role string
	// History, when set, is the member's history policy in the crew's chat instead of its
	// own (full, delta, window).
	History *prompt.Policy
}

// withDefaults fills c's zero settings and puts the moderator first.
func (c Crew) withDefaults() Crew {
	if c.MaxRounds <= 0 {
		c.MaxRounds = DefaultMaxRounds
	}
	if c.Pass == "" {
		c.Pass = DefaultPass
	}
	if c.Moderator != "" {
		members := []Member{}
		for _, m := range c.Members {
			if m.Agent == c.Moderator {
				members = append([]Member{m}, members...)
			} else {
				members = append(members, m)
			}
		}
		c.Members = members
	}
	return c
}

// validate reports what makes c impossible to run.
func (c Crew) validate() error {
	if c.Name == "" {
		return fmt.Errorf("a crew has no name")
	}
	if len(c.Members) < 2 {
		return fmt.Errorf("crew %s: a crew needs at least two members", c.Name)
	}
	seen := map[string]bool{}
	for _, m := range c.Members {
		if m.Agent == "" || seen[m.Agent] {
			return fmt.Errorf("crew %s: member %q is empty or named twice", c.Name, m.Agent)
		}
		seen[m.Agent] = true
	}
	if c.Moderator != "" && !seen[c.Moderator] {
		return fmt.Errorf("crew %s: the moderator %s is not one of its members", c.Name, c.Moderator)
	}
	if strings.TrimSpace(c.Pass) != c.Pass {
		return fmt.Errorf("crew %s: the pass token %q has white space around it", c.Name, c.Pass)
	}
	return nil
}

// index returns the position of agent among c's members, -1 when it is none of them.
func (c Crew) index(agent string) int {
	for i, m := range c.Members {
		if m.Agent == agent {
			return i
		}
	}
	return -1
}

// mode describes how c's members take turns.
func (c Crew) mode() string {
	if c.Moderator != "" {
		return "moderator " + c.Moderator
	}
	return "round robin"
}

// names lists c's members in speaking order.
func (c Crew) names() []string {
	out := make([]string, len(c.Members))
	for i, m := range c.Members {
		out[i] = m.Agent
	}
	return out
}

// Layer is what member agent's prompt adds to its instructions in c's chat: who the crew
// is, how the members take turns and how to pass. It holds nothing that changes from turn
// to turn, so providers' prompt caches keep hitting. bots are the members' bot accounts.
func (c Crew) Layer(agent string, bots map[string]mynah.User) string {
	c = c.withDefaults()
	var others []string
	for _, m := range c.Members {
		if m.Agent != agent {
			others = append(others, m.Agent)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Crew %q\nYou are %s, one of the crew %q working together in this group with %s. ",
		c.Name, agent, c.Name, andList(others))
	if c.Moderator != "" {
		fmt.Fprintf(&b, "%s moderates: it opens each round and closes the work; then the others speak in this order: %s. ",
			c.Moderator, strings.Join(c.names()[1:], ", "))
	} else {
		fmt.Fprintf(&b, "The members speak in turn, in this order: %s. ", strings.Join(c.names(), ", "))
	}
	b.WriteString("The others' messages reach you as messages from their bots, with their names in [meta]; what you write goes to the group through your own bot, so do not repeat what they said.\n")
	for _, m := range c.Members {
		if m.Agent == agent {
			continue
		}
		fmt.Fprintf(&b, "- %s", m.Agent)
		if u := bots[m.Agent]; u.Username != "" {
			fmt.Fprintf(&b, " (@%s)", u.Username)
		}
		if m.Role != "" {
			fmt.Fprintf(&b, ": %s", m.Role)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "When you have nothing to add, answer only %s: it is not sent, and when every member passes the work is done.", c.Pass)
	if c.Moderator == agent {
		fmt.Fprintf(&b, " When the work is done, end your message with %s to close it.", c.Pass)
	}
	return b.String()
}

// andList joins words as "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
