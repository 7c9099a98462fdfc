package main

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// agentSettings are the tunables an agent inherits from defaults and may override: an
// agent's front matter is decoded over mynah.yaml's defaults, which are decoded over
// defaultSettings.
type agentSettings struct {
	Model           modelList     `yaml:"model"`            // provider/model, or a list: the first, then fallbacks
	ContextTokens   int           `yaml:"context_tokens"`   // the model's context window
	ReplyTokens     int           `yaml:"reply_tokens"`     // reserved for the answer
	HistoryMessages int           `yaml:"history_messages"` // cap on history messages per prompt
	Timezone        string        `yaml:"timezone"`         // IANA zone for times shown to the model
	History         string        `yaml:"history"`          // full, delta or window
	HistoryWindow   int           `yaml:"history_window"`   // window: how many recent messages
	Format          string        `yaml:"format"`           // structured or compact
	Tokens          string        `yaml:"tokens"`           // estimate (calibrated by the provider's counts) or exact (OpenAI's BPE tables)
	Shares          *sharesConfig `yaml:"shares"`           // budget shares of the optional layers; nil: prompt.DefaultShares
	Stream          bool          `yaml:"stream"`           // show answers in private chats as drafts while they are written
	Debounce        duration      `yaml:"debounce"`         // wait this long before answering every message; 0: at once
	Session         string        `yaml:"session"`          // never, idle or daily: when a chat starts a new session
	SessionIdle     duration      `yaml:"session_idle"`     // idle: how long without messages, e.g. 2h
	SessionHour     int           `yaml:"session_hour"`     // daily: the hour (0-23, in timezone) a new session starts
	Access          accessConfig  `yaml:"access"`           // who the agent answers
	Stickers        []string      `yaml:"stickers"`         // sticker sets the agent may send from
	TypingDelay     bool          `yaml:"typing_delay"`     // show "typing…" as long as typing each message would take
	TaskRetries     int           `yaml:"task_retries"`     // tries of a failed task before its plan is dropped
	TaskRetryDelay  duration      `yaml:"task_retry_delay"` // pause between tries, e.g. 10s
	ToolRounds      int           `yaml:"tool_rounds"`      // model calls per turn when tools answer back
	MaxFacts        int           `yaml:"max_facts"`        // facts kept per person, the oldest evicted; ≤ 0: 100
	Embeddings      string        `yaml:"embeddings"`       // provider/model for vector search; empty: keyword search only
	// Timeouts bound every model call: connecting, the first token, the whole call.
	Timeouts timeoutsConfig `yaml:"timeouts"`
	// RetryWindow is how long a turn whose models all fail keeps being tried before the
	// apology is sent (negative: apologise at once).
	RetryWindow duration `yaml:"retry_window"`
	// MaxTasks bounds the tasks of one answer's plan; MaxReminders the reminders a chat
	// may have pending.
	MaxTasks     int `yaml:"max_tasks"`
	MaxReminders int `yaml:"max_reminders"`
	// Summaries: rolling compaction and periodic summaries (summaries.go).
	Summaries summariesConfig `yaml:"summaries"`
	// Search: how memory search ranks (tools.go).
	Search searchConfig `yaml:"search"`
	// Media: how the agent sees, hears and reads what it is sent (media_config.go).
	Media mediaConfig `yaml:"media"`
}

// timeoutsConfig bounds model calls; a negative value turns a limit off.
type timeoutsConfig struct {
	Connect    duration `yaml:"connect"`     // dialling and TLS
	FirstToken duration `yaml:"first_token"` // until the first token (streaming) or the answer's headers
	Total      duration `yaml:"total"`       // the whole call
}

// modelList is the model key: one "provider/model", or a list of them (the first answers,
// each next one takes over when the one before fails past its retries).
type modelList []string

// UnmarshalYAML accepts a single model or a list.
func (m *modelList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Value == "" {
			*m = nil
			return nil
		}
		*m = modelList{n.Value}
		return nil
	case yaml.SequenceNode:
		var list []string
		if err := n.Decode(&list); err != nil {
			return valueError(n, "must be provider/model or a list of them")
		}
		*m = list
		return nil
	}
	return valueError(n, "must be provider/model or a list of them")
}

// sharesConfig are the fractions of the prompt budget the optional layers may use.
type sharesConfig struct {
	Tools     float64 `yaml:"tools"`
	Memory    float64 `yaml:"memory"`
	Summaries float64 `yaml:"summaries"`
	Recall    float64 `yaml:"recall"`
}

// defaultSettings are mynah's own defaults, beneath mynah.yaml's.
func defaultSettings() agentSettings {
	return agentSettings{
		ContextTokens:   32000,
		ReplyTokens:     1024,
		HistoryMessages: 500,
		Timezone:        "UTC",
		History:         "full",
		HistoryWindow:   50,
		Format:          "structured",
		Tokens:          "estimate",
		Stream:          true,
		// No settle window: a lone message is answered at once, and a burst still gets one
		// answer, as a newer message of the same sender replaces a turn whose answer is
		// not shown yet (package lane); split pastes, albums and forwarded batches are
		// held briefly by ingest all the same.
		Debounce:       0,
		Session:        "never",
		SessionIdle:    duration(4 * time.Hour),
		SessionHour:    4,
		TaskRetries:    10,
		TaskRetryDelay: duration(10 * time.Second),
		ToolRounds:     4,
		Timeouts:       timeoutsConfig{Connect: duration(10 * time.Second), FirstToken: duration(2 * time.Minute), Total: duration(5 * time.Minute)},
		RetryWindow:    duration(3 * time.Minute),
		MaxTasks:       20,
		MaxReminders:   50,
		Summaries:      defaultSummaries(),
		Search:         defaultSearch(),
		Media:          defaultMedia(),
	}
}

// replaceWhole clears the settings that root, an agent's front matter, sets as a whole,
// so that decoding it replaces them instead of merging into the inherited ones: the budget
// shares are one split, the rate limit one rule, per_group one table. Decoding then never
// writes through a pointer or map that s shares with the defaults it copies; lists need
// nothing, as decoding one makes a new slice.
func (s *agentSettings) replaceWhole(root *yaml.Node) {
	if lookup(root, "shares") != nil {
		s.Shares = nil
	}
	if lookup(root, "access", "rate_limit") != nil {
		s.Access.RateLimit = nil
	}
	if lookup(root, "access", "groups", "per_group") != nil {
		s.Access.Groups.PerGroup = nil
	}
}

// validate checks s, the settings of file under prefix ("defaults." in mynah.yaml), one
// value at a time; loadAgent checks what depends on the agent.
func (s *agentSettings) validate(file, prefix string) error {
	bad := func(key, msg string) error { return &configError{file, prefix + key, msg} }
	if _, err := accessPolicy(file, prefix+"access", s.Access); err != nil {
		return err
	}
	for _, c := range []struct {
		key string
		n   int
	}{{"reply_tokens", s.ReplyTokens}, {"history_messages", s.HistoryMessages}, {"history_window", s.HistoryWindow}} {
		if c.n < 1 {
			return bad(c.key, fmt.Sprintf("%d is not a positive number", c.n))
		}
	}
	switch s.History {
	case "full", "delta", "window":
	default:
		return bad("history", fmt.Sprintf("%q is not full, delta or window", s.History))
	}
	switch s.Format {
	case "structured", "compact":
	default:
		return bad("format", fmt.Sprintf("%q is not structured or compact", s.Format))
	}
	switch s.Tokens {
	case "estimate", "exact":
	default:
		return bad("tokens", fmt.Sprintf("%q is not estimate or exact", s.Tokens))
	}
	if d := time.Duration(s.TaskRetryDelay); d < 100*time.Millisecond || d > time.Hour {
		return bad("task_retry_delay", fmt.Sprintf("%q is not a duration between 100ms and 1h, like 10s", s.TaskRetryDelay))
	}
	if s.TaskRetries < 1 || s.TaskRetries > 1000 {
		return bad("task_retries", fmt.Sprintf("%d is not between 1 and 1000", s.TaskRetries))
	}
	if s.MaxTasks < 1 || s.MaxTasks > 1000 {
		return bad("max_tasks", fmt.Sprintf("%d is not between 1 and 1000", s.MaxTasks))
	}
	if s.MaxReminders < 1 || s.MaxReminders > 10000 {
		return bad("max_reminders", fmt.Sprintf("%d is not between 1 and 10000", s.MaxReminders))
	}
	if s.ToolRounds < 1 || s.ToolRounds > 32 {
		return bad("tool_rounds", fmt.Sprintf("%d is not between 1 and 32", s.ToolRounds))
	}
	for i, set := range s.Stickers {
		if strings.TrimSpace(set) == "" {
			return bad(fmt.Sprintf("stickers[%d]", i), "a sticker set name is empty")
		}
	}
	if d := time.Duration(s.Debounce); d < 0 || d > time.Minute {
		return bad("debounce", fmt.Sprintf("%q is not a duration between 0s and 1m, like 1.5s", s.Debounce))
	}
	switch s.Session {
	case "never", "daily":
	case "idle":
		if time.Duration(s.SessionIdle) < time.Minute {
			return bad("session_idle", fmt.Sprintf("%q is not a duration of at least 1m, like 30m or 4h", s.SessionIdle))
		}
	default:
		return bad("session", fmt.Sprintf("%q is not never, idle or daily", s.Session))
	}
	if h := s.SessionHour; h < 0 || h > 23 {
		return bad("session_hour", fmt.Sprintf("%d is not an hour between 0 and 23", h))
	}
	if sh := s.Shares; sh != nil {
		for name, v := range map[string]float64{"tools": sh.Tools, "memory": sh.Memory, "summaries": sh.Summaries, "recall": sh.Recall} {
			if v < 0 || v > 1 {
				return bad("shares."+name, fmt.Sprintf("%v is not a fraction between 0 and 1", v))
			}
		}
		if sum := sh.Tools + sh.Memory + sh.Summaries + sh.Recall; sum > 0.9 {
			return bad("shares", fmt.Sprintf("the layers take %.0f%% of the budget; leave at least 10%% for history", sum*100))
		}
	}
	if err := s.Summaries.validate(file, prefix+"summaries."); err != nil {
		return err
	}
	if err := s.Media.validate(file, prefix+"media."); err != nil {
		return err
	}
	if err := s.Search.validate(file, prefix+"search."); err != nil {
		return err
	}
	_, err := s.location(file, prefix)
	return err
}

// location is the time zone of s.Timezone.
func (s *agentSettings) location(file, prefix string) (*time.Location, error) {
	loc, err := time.LoadLocation(s.Timezone)
	if err != nil {
		return nil, &configError{file, prefix + "timezone", fmt.Sprintf("unknown time zone %q", s.Timezone)}
	}
	return loc, nil
}
