package main

import (
	"fmt"
	"time"

	"github.com/mynah-ai/mynah/internal/memory"
)

// summariesConfig is the summaries key of an agent's settings: rolling compaction of what
// scrolled out of a session's prompt, and periodic summaries of each active chat.
type summariesConfig struct {
	Rolling     bool     `yaml:"rolling"`      // compact history that outgrew the prompt
	Flush       bool     `yaml:"flush"`        // let the agent save facts before a compaction
	MinMessages int      `yaml:"min_messages"` // compact once this many messages were left out
	MinTokens   int      `yaml:"min_tokens"`   // … or this many tokens
	InputTokens int      `yaml:"input_tokens"` // most tokens of messages one summary call reads
	WeekEvery   duration `yaml:"week_every"`   // how often a 7-day summary is written; 0s: never
	MonthEvery  duration `yaml:"month_every"`  // how often a 30-day summary is written; 0s: never
	CheckEvery  duration `yaml:"check_every"`  // how often to look for summaries to write
}

// defaultSummaries are mynah's own summaries settings.
func defaultSummaries() summariesConfig {
	return summariesConfig{
		Rolling:     true,
		Flush:       true,
		MinMessages: memory.DefaultSummaryMinMessages,
		MinTokens:   memory.DefaultSummaryMinTokens,
		InputTokens: memory.DefaultSummaryInputTokens,
		WeekEvery:   duration(72 * time.Hour),
		MonthEvery:  duration(336 * time.Hour),
		CheckEvery:  duration(time.Minute),
	}
}

// validate checks the summaries settings of file, their keys under prefix.
func (s summariesConfig) validate(file, prefix string) error {
	bad := func(key, msg string) error { return &configError{file, prefix + key, msg} }
	if s.MinMessages < 1 || s.MinMessages > 10000 {
		return bad("min_messages", fmt.Sprintf("%d is not between 1 and 10000", s.MinMessages))
	}
	if s.MinTokens < 1 {
		return bad("min_tokens", fmt.Sprintf("%d is not a positive number of tokens", s.MinTokens))
	}
	if s.InputTokens < 500 || s.InputTokens > 1_000_000 {
		return bad("input_tokens", fmt.Sprintf("%d is not between 500 and 1000000", s.InputTokens))
	}
	for _, p := range []struct {
		key   string
		every duration
	}{{"week_every", s.WeekEvery}, {"month_every", s.MonthEvery}} {
		if d := time.Duration(p.every); d != 0 && d < time.Hour {
			return bad(p.key, fmt.Sprintf("%q is not 0s (never) or a duration of at least 1h, like 72h", p.every))
		}
	}
	if d := time.Duration(s.CheckEvery); d < 10*time.Millisecond || d > 24*time.Hour {
		return bad("check_every", fmt.Sprintf("%q is not a duration between 10ms and 24h, like 1m", s.CheckEvery))
	}
	return nil
}
