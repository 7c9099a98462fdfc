package main

import (
	"strings"
	"testing"

	"github.com/mynah-ai/mynah/internal/prompt"
)

// crewFiles are three agents and a mynah.yaml with crews.
func crewFiles(crews string) map[string]string {
	files := map[string]string{"mynah.yaml": "defaults:\n  model: openai/gpt-4o-mini\n" + crews}
	for _, name := range []string{"Analyst", "Coder", "Critic"} {
		files["agents/"+name+".md"] = "---\ntelegram_token: " + testToken[:len(testToken)-1] + string(rune('a'+len(name)%26)) + "\n---\n# " + name + " reads the task\nMore.\n"
	}
	return files
}

// TestCrewConfig: the example validates, with its defaults; members may carry a
// role and a history policy; what cannot run is reported with the file and the key.
func TestCrewConfig(t *testing.T) {
	cfg, err := testConfig(t, crewFiles(`crews:
  - name: team
    chat: -1001234567890
    members: [Analyst, Coder, Critic]   # agents/<Name>.md, each with its own bot token
    max_rounds: 2
  - name: any
    chat: "*"
    mode: moderator
    moderator: critic
    members:
      - {agent: Analyst, history: delta}
      - {agent: Critic, role: reviews everything, history: window, history_window: 20}
    pass: "--"
    reminder_every: 5
    timeout: 2m
`), testEnv)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Crews) != 2 {
		t.Fatalf("%d crews", len(cfg.Crews))
	}
	team, anyGroup := cfg.Crews[0], cfg.Crews[1]
	if team.Chat != -1001234567890 || team.MaxRounds != 2 || len(team.Members) != 3 || team.Members[1].Role != "Coder reads the task" || team.Members[0].History != nil {
		t.Errorf("team = %+v", team)
	}
	if got := describeCrew(team); got != "crew team in -1001234567890: Analyst → Coder → Critic; round robin, at most 2 rounds, pass ....." {
		t.Errorf("check prints %q", got)
	}
	if anyGroup.Chat != 0 || anyGroup.Moderator != "Critic" || anyGroup.Pass != "--" || anyGroup.ReminderEvery != 5 ||
		*anyGroup.Members[0].History != (prompt.Policy{Kind: "delta"}) || *anyGroup.Members[1].History != (prompt.Policy{Kind: "window", Window: 20}) ||
		anyGroup.Members[1].Role != "reviews everything" {
		t.Errorf("any = %+v", anyGroup)
	}
	for _, c := range []struct{ name, crews, want string }{
		{"unknown member", "crews: [{name: t, chat: -1, members: [Analyst, Nobody]}]", `mynah.yaml: crews[0].members[1]: no agent "Nobody"`},
		{"one member", "crews: [{name: t, chat: -1, members: [Analyst]}]", "crews[0].members: a crew needs at least two members"},
		{"twice", "crews: [{name: t, chat: -1, members: [Analyst, analyst]}]", "crews[0].members[1]: Analyst is named twice"},
		{"private chat", "crews: [{name: t, chat: 42, members: [Analyst, Coder]}]", `crews[0].chat: "42" is not a group's chat id`},
		{"no chat", "crews: [{name: t, members: [Analyst, Coder]}]", "crews[0].chat: required"},
		{"no name", "crews: [{chat: -1, members: [Analyst, Coder]}]", "crews[0].name"},
		{"bad mode", "crews: [{name: t, chat: -1, mode: chaos, members: [Analyst, Coder]}]", `crews[0].mode: "chaos" is not round_robin or moderator`},
		{"moderator missing", "crews: [{name: t, chat: -1, mode: moderator, members: [Analyst, Coder]}]", "crews[0].moderator: required with mode moderator"},
		{"moderator outside", "crews: [{name: t, chat: -1, moderator: Critic, members: [Analyst, Coder]}]", `crews[0].moderator: "Critic" is not one of the crew's members`},
		{"bad history", "crews: [{name: t, chat: -1, members: [{agent: Analyst, history: most}, Coder]}]", `crews[0].members[0].history: "most" is not full, delta or window`},
		{"unknown member key", "crews: [{name: t, chat: -1, members: [{agent: Analyst, histroy: delta}, Coder]}]", `unknown key "histroy" in a member`},
		{"unknown crew key", "crews: [{name: t, chat: -1, members: [Analyst, Coder], rounds: 2}]", `unknown key "rounds"`},
		{"rounds", "crews: [{name: t, chat: -1, max_rounds: 99, members: [Analyst, Coder]}]", "crews[0].max_rounds: 99 is not between 1 and 50"},
		{"pass", "crews: [{name: t, chat: -1, pass: ' x ', members: [Analyst, Coder]}]", "crews[0].pass"},
		{"two crews one chat", "crews: [{name: a, chat: -1, members: [Analyst, Coder]}, {name: b, chat: -1, members: [Coder, Critic]}]",
			"crews[1].members: Coder is in crew a too"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := testConfig(t, crewFiles(c.crews), testEnv)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestCLIConfig: model cli/NAME names a provider of kind cli, with its command line and
// output format; it needs no API key. What cannot run is reported with its key.
func TestCLIConfig(t *testing.T) {
	files := func(providers, model string) map[string]string {
		return map[string]string{
			"mynah.yaml":      "providers:\n" + providers,
			"agents/Mynah.md": agentFile("model: " + model + "\n"),
		}
	}
	cfg, err := testConfig(t, files("  claude-code:\n    kind: cli\n    command: claude -p --output-format stream-json --verbose\n    format: claude\n    timeout: 10m\n", "cli/claude-code"), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Agents[0]
	if a.Provider.Kind != "cli" || strings.Join(a.Provider.Command, " ") != "claude -p --output-format stream-json --verbose" || a.ModelID != "claude-code" {
		t.Errorf("agent's provider %+v, model %q", a.Provider, a.ModelID)
	}
	for _, c := range []struct{ name, providers, model, want string }{
		{"no such provider", "  x:\n    kind: openai\n", "cli/claude-code", "model: cli/claude-code: add a provider claude-code of kind cli"},
		{"not a cli", "  claude-code:\n    kind: openai\n", "cli/claude-code", "add a provider claude-code of kind cli"},
		{"no command", "  claude-code:\n    kind: cli\n    format: claude\n", "cli/claude-code", "providers.claude-code.command: required for kind cli"},
		{"bad format", "  claude-code:\n    kind: cli\n    command: claude\n    format: yaml\n", "cli/claude-code", `providers.claude-code.format: "yaml" is not claude, codex, gemini or text`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := testConfig(t, files(c.providers, c.model), testEnv)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}
