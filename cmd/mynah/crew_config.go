package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/crew"
	"github.com/mynah-ai/mynah/internal/ingest"
	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/prompt"
)

// crewFile is one entry of crews in mynah.yaml, as written:
//
//	crews:
//	  - name: team
//	    chat: -1001234567890        # or "*": any group where every member is present
//	    members: [Analyst, Coder, Critic]
//	    max_rounds: 2
type crewFile struct {
	Name    string       `yaml:"name"`
	Chat    crewChat     `yaml:"chat"`
	Members []memberFile `yaml:"members"`
	// Mode is round_robin (the default) or moderator; Moderator names the member who
	// opens each round and closes the cycle (setting it alone chooses moderator mode).
	Mode      string `yaml:"mode"`
	Moderator string `yaml:"moderator"`
	MaxRounds int    `yaml:"max_rounds"`
	Pass      string `yaml:"pass"`
	// ReminderEvery re-sends a member's instructions to its stateful connector (a
	// command-line agent keeping a session) every that many of its turns; 0: never.
	ReminderEvery int `yaml:"reminder_every"`
	// Timeout bounds each member's turn; past it the member is skipped for the round.
	Timeout duration `yaml:"timeout"`
}

// crewChat is a crew's chat: a group's id, or "*" for any group.
type crewChat struct {
	ID  int64
	Any bool
	Set bool
}

// UnmarshalYAML reads a group id or "*".
func (c *crewChat) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Value == "*" {
		*c = crewChat{Any: true, Set: true}
		return nil
	}
	id, err := strconv.ParseInt(n.Value, 10, 64)
	if n.Kind != yaml.ScalarNode || err != nil || id >= 0 {
		return valueError(n, fmt.Sprintf("%q is not a group's chat id (negative, like -1001234567890) or * (any group where every member is)", n.Value))
	}
	*c = crewChat{ID: id, Set: true}
	return nil
}

// memberFile is one member as written: an agent's name, or a mapping with its settings.
type memberFile struct {
	Agent   string `yaml:"agent"`
	Role    string `yaml:"role"`    // what it does, shown to the others; default: its instructions' first line
	History string `yaml:"history"` // full, delta or window; default: the agent's own
	Window  int    `yaml:"history_window"`
}

// UnmarshalYAML reads a name or a mapping of agent, role, history and history_window.
func (m *memberFile) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*m = memberFile{Agent: n.Value}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return valueError(n, "a member is an agent's name, or a mapping with agent, role, history and history_window")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch k := n.Content[i]; k.Value {
		case "agent", "role", "history", "history_window":
		default:
			return valueError(k, fmt.Sprintf("unknown key %q in a member (want agent, role, history or history_window)", k.Value))
		}
	}
	type plain memberFile
	return n.Decode((*plain)(m))
}

// crewConfig is one crew, resolved against the agents.
type crewConfig struct {
	crew.Crew
	ReminderEvery int
}

// resolveCrews checks the crews of path against the configured agents and resolves them.
func resolveCrews(path string, files []crewFile, agents []agentConfig) ([]crewConfig, error) {
	var out []crewConfig
	for i, f := range files {
		key := fmt.Sprintf("crews[%d]", i)
		bad := func(k, msg string) error { return &configError{path, key + k, msg} }
		if !agentName().MatchString(f.Name) {
			return nil, bad(".name", fmt.Sprintf("%q: a crew needs a name of letters, digits, _ or -", f.Name))
		}
		if slices.ContainsFunc(out, func(c crewConfig) bool { return strings.EqualFold(c.Name, f.Name) }) {
			return nil, bad(".name", fmt.Sprintf("two crews are named %s", f.Name))
		}
		if !f.Chat.Set {
			return nil, bad(".chat", "required: the group's chat id (like -1001234567890), or * for any group where every member is")
		}
		c := crewConfig{Crew: crew.Crew{Name: f.Name, Chat: mynah.ChatID(f.Chat.ID), MaxRounds: f.MaxRounds, Pass: f.Pass,
			Timeout: time.Duration(f.Timeout)}, ReminderEvery: f.ReminderEvery}
		if len(f.Members) < 2 {
			return nil, bad(".members", "a crew needs at least two members (agents, each with its own bot)")
		}
		for j, mf := range f.Members {
			mkey := fmt.Sprintf(".members[%d]", j)
			a, ok := agentNamed(agents, mf.Agent)
			if !ok {
				return nil, bad(mkey, fmt.Sprintf("no agent %q (agents/<Name>.md): %s", mf.Agent, agentList(agents)))
			}
			if c.index(a.Name) >= 0 {
				return nil, bad(mkey, fmt.Sprintf("%s is named twice", a.Name))
			}
			m := crew.Member{Agent: a.Name, Role: cmp.Or(mf.Role, firstLine(a.Instructions))}
			switch mf.History {
			case "":
			case prompt.PolicyFull, prompt.PolicyDelta:
				m.History = &prompt.Policy{Kind: mf.History}
			case prompt.PolicyWindow:
				w := mf.Window
				if w == 0 {
					w = a.HistoryWindow
				}
				if w < 1 {
					return nil, bad(mkey+".history_window", fmt.Sprintf("%d is not a positive number", mf.Window))
				}
				m.History = &prompt.Policy{Kind: prompt.PolicyWindow, Window: w}
			default:
				return nil, bad(mkey+".history", fmt.Sprintf("%q is not full, delta or window", mf.History))
			}
			c.Members = append(c.Members, m)
		}
		switch f.Mode {
		case "", "round_robin":
			if f.Mode == "round_robin" && f.Moderator != "" {
				return nil, bad(".moderator", "set with mode round_robin: drop it, or set mode: moderator")
			}
		case "moderator":
			if f.Moderator == "" {
				return nil, bad(".moderator", "required with mode moderator: the member who opens and closes each cycle")
			}
		default:
			return nil, bad(".mode", fmt.Sprintf("%q is not round_robin or moderator", f.Mode))
		}
		if f.Moderator != "" {
			a, ok := agentNamed(agents, f.Moderator)
			if !ok || c.index(a.Name) < 0 {
				return nil, bad(".moderator", fmt.Sprintf("%q is not one of the crew's members", f.Moderator))
			}
			c.Moderator = a.Name
		}
		if f.MaxRounds < 0 || f.MaxRounds > 50 {
			return nil, bad(".max_rounds", fmt.Sprintf("%d is not between 1 and 50", f.MaxRounds))
		}
		if f.Pass != strings.TrimSpace(f.Pass) {
			return nil, bad(".pass", fmt.Sprintf("%q has white space around it", f.Pass))
		}
		if f.ReminderEvery < 0 {
			return nil, bad(".reminder_every", fmt.Sprintf("%d is negative", f.ReminderEvery))
		}
		if f.Timeout < 0 {
			return nil, bad(".timeout", fmt.Sprintf("%s is negative", time.Duration(f.Timeout)))
		}
		for _, other := range out {
			if other.Chat != c.Chat {
				continue
			}
			for _, m := range c.Members {
				if other.index(m.Agent) >= 0 {
					return nil, bad(".members", fmt.Sprintf("%s is in crew %s too, in the same chats: an agent works in one crew per group", m.Agent, other.Name))
				}
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// index returns the position of agent among c's members, -1 when none.
func (c crewConfig) index(agent string) int {
	return slices.IndexFunc(c.Members, func(m crew.Member) bool { return m.Agent == agent })
}

// agentNamed finds the agent called name, ignoring case.
func agentNamed(agents []agentConfig, name string) (agentConfig, bool) {
	for _, a := range agents {
		if strings.EqualFold(a.Name, name) {
			return a, true
		}
	}
	return agentConfig{}, false
}

func agentList(agents []agentConfig) string {
	names := make([]string, len(agents))
	for i, a := range agents {
		names[i] = a.Name
	}
	return "the agents are " + strings.Join(names, ", ")
}

// firstLine is the first line of an agent's instructions, without markdown heading
// marks, cut to 160 characters: what the other members learn of its role by default.
func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > 160 {
			line = string([]rune(line)[:159]) + "…"
		}
		return line
	}
	return ""
}

// crews returns the configured crews for the crew engine.
func (cfg *config) crews() []crew.Crew {
	out := make([]crew.Crew, len(cfg.Crews))
	for i, c := range cfg.Crews {
		out[i] = c.Crew
	}
	return out
}

// crewsOf returns the crews agent is a member of.
func (cfg *config) crewsOf(agent string) []crewConfig {
	var out []crewConfig
	for _, c := range cfg.Crews {
		if c.index(agent) >= 0 {
			out = append(out, c)
		}
	}
	return out
}

// describeCrew is check's line about c.
func describeCrew(c crewConfig) string {
	chat := "any group where every member is"
	if c.Chat != 0 {
		chat = fmt.Sprint(c.Chat)
	}
	mode := "round robin"
	if c.Moderator != "" {
		mode = "moderated by " + c.Moderator
	}
	names := make([]string, len(c.Members))
	for i, m := range c.Members {
		names[i] = m.Agent
		if m.History != nil {
			names[i] += " (history " + m.History.Kind + ")"
		}
	}
	rounds := c.MaxRounds
	if rounds == 0 {
		rounds = crew.DefaultMaxRounds
	}
	return fmt.Sprintf("crew %s in %s: %s; %s, at most %d rounds, pass %s", c.Name, chat, strings.Join(names, " → "), mode, rounds, cmp.Or(c.Pass, crew.DefaultPass))
}

// newCrews returns the crew engine of cfg's crews on store, nil when there are none.
func newCrews(cfg *config, store crew.Store, log *slog.Logger) (*crew.Engine, error) {
	if len(cfg.Crews) == 0 {
		return nil, nil
	}
	e, err := crew.New(cfg.crews(), store, crew.Options{Logger: log})
	if err != nil {
		return nil, fmt.Errorf("crews: %w", err)
	}
	return e, nil
}

// laneCrew is the crew hook of a's lanes: nil unless a is a member of a crew.
func laneCrew(cfg *config, a agentConfig, e *crew.Engine) lane.Crew {
	if e == nil || len(cfg.crewsOf(a.Name)) == 0 {
		return nil
	}
	return e
}

// ingestCrew is the crew hook of a's intake: nil unless a is a member of a crew.
func ingestCrew(cfg *config, a agentConfig, e *crew.Engine) ingest.Crew {
	if e == nil || len(cfg.crewsOf(a.Name)) == 0 {
		return nil
	}
	return e
}

// crewTurn makes t what agent's next turn in chat would be when it works in a crew there:
// the crew's layer, the member's history policy and, during a cycle, the message the cycle
// answers. It returns a note for context show, "" when agent is in no crew in chat.
func crewTurn(ctx context.Context, cfg *config, db store, agent string, chat mynah.ChatID, t *prompt.Turn) (string, error) {
	for _, c := range cfg.crewsOf(agent) {
		if c.Chat != chat && (c.Chat != 0 || chat >= 0) {
			continue
		}
		// The members' bots are known from what each sent.
		bots := map[string]mynah.User{}
		for _, m := range c.Members {
			hist, err := db.History(ctx, m.Agent, chat, 0, 0, 100)
			if err != nil {
				return "", err
			}
			for _, msg := range hist {
				if msg.Outgoing {
					bots[m.Agent] = msg.Sender
				}
			}
		}
		t.Layer = c.Layer(agent, bots)
		t.Policy = c.Members[c.index(agent)].History
		st, err := db.CrewState(ctx, c.Name, chat)
		if err != nil {
			return "", err
		}
		note := fmt.Sprintf(", crew %s", c.Name)
		if st.Active {
			t.Target = st.Target
			note += fmt.Sprintf(": cycle %d, round %d, %s's turn", st.Cycle, st.Round, st.Members[st.Next].Agent)
		}
		return note, nil
	}
	return "", nil
}
