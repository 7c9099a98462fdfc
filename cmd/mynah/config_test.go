package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/prompt"
)

const testToken = "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ012345678"

// testConfig writes files (path → content) into a new directory and loads it with env as
// the environment.
func testConfig(t *testing.T, files, env map[string]string) (*config, error) {
	t.Helper()
	dir := t.TempDir()
	for path, content := range files {
		write(t, filepath.Join(dir, path), content)
	}
	getenv := func(name string) string { return env[name] }
	return loadConfig(dir, getenv, loadOptions{})
}

// agentFile is an agent's file with front matter front.
func agentFile(front string) string {
	return "---\ntelegram_token: " + testToken + "\n" + front + "---\nYou are a test.\n"
}

var testEnv = map[string]string{"OPENAI_API_KEY": "sk-test"}

// TestConfigDurations: a duration is parsed where it is decoded; a value that is not one,
// or is out of range, is reported with the file and the key that hold it.
func TestConfigDurations(t *testing.T) {
	for _, c := range []struct {
		name        string
		yaml, front string
		env         map[string]string
		want        string // in the error; empty: loads
	}{
		{name: "not a duration in an agent", front: "debounce: soon\n",
			want: `agents/Mynah.md: debounce: "soon" is not a duration`},
		{name: "not a duration in defaults", yaml: "defaults:\n  session_idle: soon\n",
			want: `mynah.yaml: defaults.session_idle: "soon" is not a duration`},
		{name: "nested in defaults", yaml: "defaults:\n  access:\n    rate_limit: {messages: 5, per: soon}\n",
			want: `mynah.yaml: defaults.access.rate_limit.per: "soon" is not a duration`},
		{name: "top level", yaml: "shutdown_timeout: soon\n",
			want: `mynah.yaml: shutdown_timeout: "soon" is not a duration`},
		{name: "shutdown out of range", yaml: "shutdown_timeout: 0s\n",
			want: `mynah.yaml: shutdown_timeout: "0s" is not a duration like 15s`},
		{name: "range in an agent", front: "summaries:\n  week_every: 30m\n",
			want: `agents/Mynah.md: summaries.week_every: "30m" is not 0s (never) or a duration of at least 1h`},
		{name: "range in defaults", yaml: "defaults:\n  task_retry_delay: 2h\n",
			want: `mynah.yaml: defaults.task_retry_delay: "2h" is not a duration between 100ms and 1h`},
		{name: "debounce range", front: "debounce: 90s\n",
			want: `agents/Mynah.md: debounce: "1m30s" is not a duration between 0s and 1m`},
		{name: "rate limit range", front: "access:\n  rate_limit: {messages: 5, per: 10ms}\n",
			want: `agents/Mynah.md: access.rate_limit.per: "10ms" is not a duration of at least 1s`},
		{name: "search range", front: "search:\n  recency_half_life: 30m\n",
			want: `agents/Mynah.md: search.recency_half_life: "30m" is not a duration of at least 1h`},
		{name: "idle range", front: "session: idle\nsession_idle: 30s\n",
			want: `agents/Mynah.md: session_idle: "30s" is not a duration of at least 1m`},
		{name: "check_every range", front: "summaries: {check_every: 48h}\n",
			want: `agents/Mynah.md: summaries.check_every: "48h" is not a duration between 10ms and 24h`},
		{name: "unknown keys after a variable are still found", front: "debounce: ${DEBOUNCE}\nmodle: x\n",
			want: `agents/Mynah.md: line 4: unknown key "modle"`},
		{name: "a variable", front: "debounce: ${DEBOUNCE}\n", env: map[string]string{"DEBOUNCE": "2s"}},
		{name: "0s turns a summary off", front: "summaries: {week_every: 0s}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"OPENAI_API_KEY": "sk-test"}
			for k, v := range c.env {
				env[k] = v
			}
			_, err := testConfig(t, map[string]string{
				"mynah.yaml":      "defaults:\n  model: openai/gpt-4o-mini\n" + strings.Replace(c.yaml, "defaults:\n", "", 1),
				"agents/Mynah.md": agentFile(c.front),
			}, env)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("loading failed: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
		})
	}
}

// TestConfigDurationValues: what is loaded is the duration written, everywhere it is used.
func TestConfigDurationValues(t *testing.T) {
	cfg, err := testConfig(t, map[string]string{
		"mynah.yaml": "shutdown_timeout: 3s\ndefaults:\n  model: openai/gpt-4o-mini\n  debounce: 1.5s\n",
		"agents/Mynah.md": agentFile("session: idle\nsession_idle: ${IDLE}\ntask_retry_delay: 250ms\n" +
			"summaries: {week_every: 0s, month_every: 48h, check_every: 30s}\nsearch: {recency_half_life: 24h}\n" +
			"access: {rate_limit: {messages: 3, per: 10m}}\n"),
	}, map[string]string{"OPENAI_API_KEY": "sk-test", "IDLE": "2h"})
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Agents[0]
	for _, c := range []struct {
		name      string
		got, want time.Duration
	}{
		{"shutdown_timeout", cfg.Shutdown, 3 * time.Second},
		{"debounce", time.Duration(a.Debounce), 1500 * time.Millisecond},
		{"session_idle", promptAgent(a, mynah.User{}).Freshness.Idle, 2 * time.Hour},
		{"task_retry_delay", time.Duration(a.TaskRetryDelay), 250 * time.Millisecond},
		{"week_every", time.Duration(a.Summaries.WeekEvery), 0},
		{"month_every", time.Duration(a.Summaries.MonthEvery), 48 * time.Hour},
		{"check_every", time.Duration(a.Summaries.CheckEvery), 30 * time.Second},
		{"recency_half_life", searchOptions(a.Search).Recency.HalfLife, 24 * time.Hour},
		{"rate_limit.per", a.Policy.Limit.Per, 10 * time.Minute},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestConfigInheritance: each agent's front matter is decoded over mynah.yaml's defaults,
// which are decoded over mynah's own. A key left out, empty or null inherits; lists,
// shares, rate_limit and per_group are replaced whole; and what one agent sets never
// leaks into the defaults another inherits.
func TestConfigInheritance(t *testing.T) {
	cfg, err := testConfig(t, map[string]string{
		"mynah.yaml": `defaults:
  model: openai/gpt-4o-mini
  context_tokens: 64000
  stream: false
  typing_delay: true
  session_hour: 6
  max_facts: 30
  stickers: [cats]
  shares: {tools: 0.1, memory: 0.2}
  summaries: {rolling: false, min_messages: 40}
  search: {recency_weight: 0.5}
  access:
    allow: ["1", "2"]
    groups: {trigger: always, per_group: {"-1001": reply}}
    rate_limit: {messages: 10, per: 1h}
`,
		// A is loaded first: if decoding it wrote through to the defaults, B would show it.
		"agents/A.md": agentFile(`model: ${NO_SUCH_VARIABLE}
context_tokens: 16000
stream: true
typing_delay:
session_hour: 0
stickers: [dogs]
shares: {recall: 0.3}
summaries: {flush: false}
search: {recency_weight: 0}
access:
  allow: []
  groups: {per_group: {"-1002": name}}
  rate_limit: {messages: 0}
`),
		"agents/B.md": "---\ntelegram_token: 654321:ABCDEFGHIJKLMNOPQRSTUVWXYZ012345678\n---\n",
	}, testEnv)
	if err != nil {
		t.Fatal(err)
	}
	a, b := cfg.Agents[0].agentSettings, cfg.Agents[1].agentSettings

	wantB := defaultSettings()
	wantB.Model = modelList{"openai/gpt-4o-mini"}
	wantB.ContextTokens = 64000
	wantB.Stream = false
	wantB.TypingDelay = true
	wantB.SessionHour = 6
	wantB.MaxFacts = 30
	wantB.Stickers = []string{"cats"}
	wantB.Shares = &sharesConfig{Tools: 0.1, Memory: 0.2}
	wantB.Summaries.Rolling = false
	wantB.Summaries.MinMessages = 40
	wantB.Search.RecencyWeight = 0.5
	wantB.Access = accessConfig{
		Allow:     []string{"1", "2"},
		Groups:    groupsConfig{Trigger: "always", PerGroup: map[string]string{"-1001": "reply"}},
		RateLimit: &rateLimitConfig{Messages: 10, Per: duration(time.Hour)},
	}
	if diff := cmp.Diff(b, wantB); diff != "" {
		t.Errorf("B, which sets nothing, inherits (-got +want):\n%s", diff)
	}

	wantA := wantB
	wantA.ContextTokens = 16000
	wantA.Stream = true
	wantA.SessionHour = 0
	wantA.Stickers = []string{"dogs"}
	wantA.Shares = &sharesConfig{Recall: 0.3}
	wantA.Summaries.Flush = false
	wantA.Search.RecencyWeight = 0
	wantA.Access = accessConfig{
		Allow:     []string{},
		Groups:    groupsConfig{Trigger: "always", PerGroup: map[string]string{"-1002": "name"}},
		RateLimit: &rateLimitConfig{},
	}
	if diff := cmp.Diff(a, wantA); diff != "" {
		t.Errorf("A's own settings (-got +want):\n%s", diff)
	}
}

// TestConfigDefaultsReportedWhereWritten: a bad value in mynah.yaml's defaults is
// reported against mynah.yaml, not against the agent that inherits it.
func TestConfigDefaultsReportedWhereWritten(t *testing.T) {
	for _, c := range []struct{ defaults, want string }{
		{"history: everything", `mynah.yaml: defaults.history: "everything" is not full, delta or window`},
		{"timezone: Mars/Olympus", `mynah.yaml: defaults.timezone: unknown time zone "Mars/Olympus"`},
		{"summaries: {min_tokens: -1}", `mynah.yaml: defaults.summaries.min_tokens: -1 is not a positive number`},
		{"search: {neighbour_weight: 3}", `mynah.yaml: defaults.search.neighbour_weight: 3 is not between 0 and 1`},
		{"shares: {tools: 0.9, memory: 0.5}", `mynah.yaml: defaults.shares: the layers take 140% of the budget`},
		{"reply_tokens: -5", `mynah.yaml: defaults.reply_tokens: -5 is not a positive number`},
		{"tokens: bpe", `mynah.yaml: defaults.tokens: "bpe" is not estimate or exact`},
	} {
		_, err := testConfig(t, map[string]string{
			"mynah.yaml":      "defaults:\n  model: openai/gpt-4o-mini\n  " + c.defaults + "\n",
			"agents/Mynah.md": agentFile(""),
		}, testEnv)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.defaults, err, c.want)
		}
	}
}

// TestInitWritesTheDefaults: mynah.yaml as init writes it spells out mynah's own defaults.
func TestInitWritesTheDefaults(t *testing.T) {
	dir := t.TempDir()
	if err := writeConfig(dir, initData{Name: "Mynah", Model: "openai/gpt-4o-mini"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(dir, func(name string) string {
		return map[string]string{"TELEGRAM_BOT_TOKEN": testToken, "OPENAI_API_KEY": "sk-test"}[name]
	}, loadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := defaultSettings()
	got := cfg.Agents[0].agentSettings
	if s := prompt.DefaultShares(); *got.Shares != (sharesConfig{s.Tools, s.Memory, s.Summaries, s.Recall}) {
		t.Errorf("shares = %+v, want prompt.DefaultShares %+v", *got.Shares, s)
	}
	// The written file also picks a model, an empty sticker list and a starting access
	// policy; everything else is mynah's default.
	want.Model, want.Stickers, want.Shares, want.Access = got.Model, got.Stickers, got.Shares, got.Access
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("settings of the written configuration (-got +want):\n%s", diff)
	}
}
