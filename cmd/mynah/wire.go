package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/anthropic"
	"github.com/mynah-ai/mynah/internal/llm/gemini"
	"github.com/mynah-ai/mynah/internal/llm/openai"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/telegram"
	"github.com/mynah-ai/mynah/internal/tokens"
)

// newModel builds the provider adapter for an agent, with retries on 408/429/5xx.
func newModel(p providerConfig, replyTokens int, hc *http.Client) (llm.Model, error) {
	m, err := newAdapter(p, replyTokens, hc)
	if err != nil {
		return nil, err
	}
	return llm.WithRetry(m, llm.RetryPolicy{}), nil
}

// newAdapter builds the bare provider adapter, without retries.
func newAdapter(p providerConfig, replyTokens int, hc *http.Client) (llm.Model, error) {
	var m llm.Model
	var err error
	switch p.Kind {
	case "openai":
		key := string(p.APIKey)
		if key == "" {
			key = "unused" // local OpenAI-compatible servers (Ollama, llama.cpp) take no key; the SDK wants one
		}
		m, err = openai.New(openai.Config{APIKey: key, BaseURL: p.BaseURL, HTTPClient: hc, MaxTokens: replyTokens})
	case "anthropic":
		m, err = anthropic.New(anthropic.Config{APIKey: string(p.APIKey), BaseURL: p.BaseURL, HTTPClient: hc, MaxTokens: replyTokens})
	case "gemini":
		m, err = gemini.New(gemini.Config{APIKey: string(p.APIKey), BaseURL: p.BaseURL, HTTPClient: hc, MaxTokens: replyTokens})
	default:
		return nil, fmt.Errorf("unknown provider kind %q", p.Kind)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

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

// commandMenu is the menu everybody sees (setMyCommands, default scope).
func commandMenu() []telegram.Command {
	return []telegram.Command{
		{Name: "start", Description: "Say hello"},
		{Name: "help", Description: "What I can do"},
		{Name: "reset", Description: "Start a new conversation"},
		{Name: "new", Description: "Start a new conversation"},
		{Name: "memories", Description: "What I remember about you"},
		{Name: "forget", Description: "Forget something I remember about you"},
	}
}

// adminMenu is what the agent's admins see in their private chats and in the allowed
// groups (registerMenus): everybody's menu and the admin commands.
func adminMenu() []telegram.Command {
	return append(commandMenu(),
		telegram.Command{Name: "status", Description: "How I'm doing (admins)"},
		telegram.Command{Name: "stop", Description: "Stop answering in this chat (admins)"},
		telegram.Command{Name: "activation", Description: "When I answer here: mention or always (admins)"},
	)
}

func defaultHelp(name string) string {
	return "I'm " + name + ". Write to me and I'll answer; in groups, mention me, reply to my messages or call me by name.\n\n" +
		"/reset (or /new) starts a new conversation: I keep the old messages but stop looking at them.\n" +
		"/memories shows what I remember about you; /forget N (or /forget all) makes me forget it.\n/help shows this message."
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
	fresh := prompt.Freshness{Kind: a.Session, Hour: 4}
	fresh.Idle, _ = time.ParseDuration(a.SessionIdle) // validated at load
	if a.SessionHour != nil {
		fresh.Hour = *a.SessionHour
	}
	return prompt.Agent{
		Freshness:   fresh,
		Name:        a.Name,
		Bot:         bot,
		System:      prompt.SystemParts{ProviderNotes: a.ProviderNotes, Roles: a.RolePrompts, Instructions: a.Instructions},
		Budget:      a.ContextTokens - a.ReplyTokens,
		Shares:      shares,
		Policy:      prompt.Policy{Kind: a.History, Window: a.HistoryWindow},
		Format:      a.Format,
		MaxMessages: a.HistoryMessages,
		Count:       tokens.Cached(tokens.For(a.Provider.Kind, a.ModelID), 8192).Count,
		Location:    a.Location,
	}
}

// newAssembler builds the agent's prompt assembler with its memory engine's layers.
// members counts a group's members (prompt.Sources.Members); nil leaves them unknown.
func newAssembler(a agentConfig, bot mynah.User, store prompt.Store, mem *memory.Engine, members func(context.Context, mynah.Chat) int) *prompt.Assembler {
	src := mem.Sources()
	src.Members = members
	return prompt.NewAssembler(promptAgent(a, bot), store, src, nil)
}
