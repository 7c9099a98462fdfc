package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/media"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/tokens"
	"github.com/mynah-ai/mynah/internal/tool"
)

// newLogger builds the process logger from the log settings.
func newLogger(c logConfig, w *os.File) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// httpClient is shared by the adapters of one process; requests are values, the client is
// immutable.
func httpClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 32
	return &http.Client{Transport: t, Timeout: 0}
}

// promptAgent is the prompt settings of a configured agent.
func promptAgent(a agentConfig, bot mynah.User) prompt.Agent {
	shares := prompt.DefaultShares()
	if s := a.Shares; s != nil {
		shares = prompt.Shares{Tools: s.Tools, Memory: s.Memory, Summaries: s.Summaries, Recall: s.Recall}
	}
	return prompt.Agent{
		Freshness:   prompt.Freshness{Kind: a.Session, Idle: time.Duration(a.SessionIdle), Hour: a.SessionHour},
		Name:        a.Name,
		Bot:         bot,
		System:      prompt.SystemParts{ProviderNotes: a.ProviderNotes, Roles: a.RolePrompts, Instructions: a.Instructions},
		Budget:      a.ContextTokens - a.ReplyTokens,
		Shares:      shares,
		Policy:      prompt.Policy{Kind: a.History, Window: a.HistoryWindow},
		Format:      a.Format,
		MaxMessages: a.HistoryMessages,
		Count:       a.Count,
		Location:    a.Location,
	}
}

// agentTools are the specifications of every tool agent a's model may call: the plan
// tools, then the tools of its registry.
func agentTools(a agentConfig, tools tool.Registry) []llm.Tool {
	return append(lane.PlanTools(a.Stickers), tools.Specs()...)
}

// newAssembler builds the agent's prompt assembler with its memory engine's layers, its
// media (senses: nil for offline commands, which then show stored descriptions) and the
// tools-and-stickers layer. members counts a group's members (prompt.Sources.Members);
// nil leaves them unknown.
func newAssembler(a agentConfig, bot mynah.User, store prompt.Store, mem *memory.Engine, senses *media.Engine, tools []llm.Tool, members func(context.Context, mynah.Chat) int) *prompt.Assembler {
	src := mem.Sources()
	src.Members = members
	layer := prompt.ToolsLayer{Tools: tools}
	if senses != nil {
		src.Media = senses
		if len(a.Stickers) > 0 {
			layer.Stickers = senses.Catalogue
		}
	}
	src.Tools = layer
	return prompt.NewAssembler(promptAgent(a, bot), store, src, nil)
}

// agentCount is agent a's token counter: the calibration of its model from cals (tokens:
// estimate, the default), or exact BPE counts (tokens: exact; for OpenAI models, others
// get the plain estimate), whose tables are loaded on the first count.
func agentCount(ctx context.Context, a agentConfig, cals *tokens.Calibrations) func(string) int {
	if a.Tokens == "exact" {
		return tokens.Cached(tokens.For(a.Provider.Kind, a.ModelID), 8192).Count
	}
	return cals.Get(ctx, a.Name, a.Model).Count
}

// observeTokens returns the hook that teaches cal from each answered call: the texts of
// the request and the prompt tokens the provider reported.
func observeTokens(cal *tokens.Calibration) func(req llm.Request, reported int) {
	return func(req llm.Request, reported int) {
		if p, ok := measurePrompt(cal, req); ok {
			cal.Observe(p, reported)
		}
	}
}

// measurePrompt measures req for cal: its texts and messages. A request with images or
// audio cannot be measured (false): its media cost tokens that no text shows.
func measurePrompt(cal *tokens.Calibration, req llm.Request) (tokens.Prompt, bool) {
	var p tokens.Prompt
	if req.System != "" || req.Context != "" {
		p.Messages++
		cal.Add(&p, req.System)
		cal.Add(&p, req.Context)
	}
	for _, t := range req.Turns {
		p.Messages++
		for _, part := range t.Parts {
			switch {
			case part.Image != nil, part.Audio != nil:
				return p, false
			case part.ToolCall != nil:
				cal.Add(&p, part.ToolCall.Name)
				cal.Add(&p, string(part.ToolCall.Arguments))
			case part.ToolResult != nil:
				cal.Add(&p, part.ToolResult.Content)
			default:
				cal.Add(&p, part.Text)
			}
		}
	}
	return p, true
}
