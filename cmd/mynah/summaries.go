package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/tokens"
)

// summariesConfig is the summaries key of an agent's settings: rolling compaction of what
// scrolled out of a session's prompt, and periodic summaries of each active chat.
type summariesConfig struct {
	Rolling     *bool  `yaml:"rolling"`      // compact history that outgrew the prompt (default true)
	Flush       *bool  `yaml:"flush"`        // let the agent save facts before a compaction (default true)
	MinMessages int    `yaml:"min_messages"` // compact once this many messages were left out (default 20)
	MinTokens   int    `yaml:"min_tokens"`   // … or this many tokens (default 2000)
	InputTokens int    `yaml:"input_tokens"` // most tokens of messages one summary call reads (default 8000)
	WeekEvery   string `yaml:"week_every"`   // how often a 7-day summary is written; 0s: never (default 72h)
	MonthEvery  string `yaml:"month_every"`  // how often a 30-day summary is written; 0s: never (default 336h)
	CheckEvery  string `yaml:"check_every"`  // how often to look for summaries to write (default 1m)
}

// inheritSummaries fills the keys an agent leaves unset from the defaults d, then from
// mynah's own defaults.
func inheritSummaries(a *summariesConfig, d summariesConfig) {
	on := true
	if a.Rolling == nil {
		a.Rolling = d.Rolling
	}
	if a.Rolling == nil {
		a.Rolling = &on
	}
	if a.Flush == nil {
		a.Flush = d.Flush
	}
	if a.Flush == nil {
		a.Flush = &on
	}
	if a.MinMessages == 0 {
		a.MinMessages = firstPositive(d.MinMessages, memory.DefaultSummaryMinMessages)
	}
	if a.MinTokens == 0 {
		a.MinTokens = firstPositive(d.MinTokens, memory.DefaultSummaryMinTokens)
	}
	if a.InputTokens == 0 {
		a.InputTokens = firstPositive(d.InputTokens, memory.DefaultSummaryInputTokens)
	}
	if a.WeekEvery == "" {
		a.WeekEvery = firstNonEmpty(d.WeekEvery, "72h")
	}
	if a.MonthEvery == "" {
		a.MonthEvery = firstNonEmpty(d.MonthEvery, "336h")
	}
	if a.CheckEvery == "" {
		a.CheckEvery = firstNonEmpty(d.CheckEvery, "1m")
	}
}

// validateSummaries checks an agent's summaries settings, after inheritSummaries.
func validateSummaries(a *agentConfig) error {
	s := a.Summaries
	bad := func(key, msg string) error { return &configError{a.File, "summaries." + key, msg} }
	if s.MinMessages < 1 || s.MinMessages > 10000 {
		return bad("min_messages", fmt.Sprintf("%d is not between 1 and 10000", s.MinMessages))
	}
	if s.MinTokens < 1 {
		return bad("min_tokens", fmt.Sprintf("%d is not a positive number of tokens", s.MinTokens))
	}
	if s.InputTokens < 500 || s.InputTokens > 1_000_000 {
		return bad("input_tokens", fmt.Sprintf("%d is not between 500 and 1000000", s.InputTokens))
	}
	for key, v := range map[string]string{"week_every": s.WeekEvery, "month_every": s.MonthEvery} {
		if d, err := time.ParseDuration(v); err != nil || (d != 0 && d < time.Hour) {
			return bad(key, fmt.Sprintf("%q is not 0s (never) or a duration of at least 1h, like 72h", v))
		}
	}
	if d, err := time.ParseDuration(s.CheckEvery); err != nil || d < 10*time.Millisecond || d > 24*time.Hour {
		return bad("check_every", fmt.Sprintf("%q is not a duration between 10ms and 24h, like 1m", s.CheckEvery))
	}
	return nil
}

// summaryLayer is the prompt's summaries layer.
func summaryLayer(a agentConfig, store mynah.Store) prompt.Source {
	return memory.NewSummaryLayer(store, a.Location)
}

// runSummaries builds the agent's summarizer on its own model client and runs it until
// ctx is done.
func runSummaries(ctx context.Context, a agentConfig, db *sqlite.DB, hc *http.Client, log *slog.Logger) error {
	s := a.Summaries
	week, _ := time.ParseDuration(s.WeekEvery) // validated at load
	month, _ := time.ParseDuration(s.MonthEvery)
	poll, _ := time.ParseDuration(s.CheckEvery)
	if !*s.Rolling && week == 0 && month == 0 {
		return nil
	}
	model, err := newModel(a.Provider, a.ReplyTokens, hc)
	if err != nil {
		return fmt.Errorf("agent %s: summaries: %w", a.Name, err)
	}
	cfg := memory.SummaryConfig{
		Agent:       a.Name,
		Model:       model,
		ModelName:   a.Model,
		ModelID:     a.ModelID,
		Rolling:     *s.Rolling,
		MinMessages: s.MinMessages,
		MinTokens:   s.MinTokens,
		InputTokens: s.InputTokens,
		ReplyTokens: a.ReplyTokens,
		Week:        memory.Period{Every: week, Span: 7 * 24 * time.Hour},
		Month:       memory.Period{Every: month, Span: 30 * 24 * time.Hour},
		Poll:        poll,
		Count:       tokens.Cached(tokens.For(a.Provider.Kind, a.ModelID), 4096).Count,
		Location:    a.Location,
		Logger:      log.With("agent", a.Name),
	}
	if *s.Flush {
		cfg.Remember = memory.NewRemember(db, a.MaxFacts)
	}
	return memory.NewSummarizer(cfg, db).Run(ctx)
}
