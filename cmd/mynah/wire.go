package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/ingest"
	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/telegram"
	"github.com/mynah-ai/mynah/internal/telegram/tghtml"
	"github.com/mynah-ai/mynah/internal/tokens"
)

// Draft shows a reply as it is being written (private chats).
func (s telegramSender) Draft(ctx context.Context, chat mynah.ChatID, thread int64, draftID int, text string, html bool) error {
	return s.bot.Draft(ctx, chat, thread, draftID, text, html)
}

func (s telegramSender) Typing(ctx context.Context, chat mynah.ChatID, thread int64) error {
	return s.bot.Typing(ctx, chat, thread)
}

// formatReply turns the model's Markdown into Telegram HTML parts of at most 4096
// characters, each with its plain-text fallback.
func formatReply(md string) []lane.Piece {
	if md == "" {
		return nil
	}
	var pieces []lane.Piece
	for _, h := range tghtml.Split(tghtml.Format(md), 4096) {
		pieces = append(pieces, lane.Piece{HTML: h, Plain: tghtml.Plain(h)})
	}
	return pieces
}

// toIngest converts a normalised Telegram update for the ingest stage.
func toIngest(u telegram.Update) ingest.Update {
	return ingest.Update{ID: u.ID, Chat: u.Chat, Message: u.Message, Edited: u.Edited, Users: u.Users, MediaGroup: u.MediaGroup,
		Callback: callbackFor(u)}
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
		Count:       tokens.Cached(tokens.For(a.Provider.Kind, a.ModelID), 8192).Count,
		Location:    a.Location,
	}
}

// newAssembler builds the agent's prompt assembler with the memory engine's layers:
// facts and curated notes, summaries, and recall over history (none when history is nil).
// members may be nil (unknown).
func newAssembler(a agentConfig, bot mynah.User, store prompt.Store, history *memory.Searcher, members *memberCounts) *prompt.Assembler {
	src := prompt.Sources{Memory: memoryLayer(a, store), Summaries: summaryLayer(a, store), Recall: recallLayer(history)}
	if members != nil {
		src.Members = members.Count
	}
	return prompt.NewAssembler(promptAgent(a, bot), store, src, nil)
}

// memberCounts remembers each group's member count for a while: it changes slowly and
// asking Telegram on every turn would cost a round trip per answer.
type memberCounts struct {
	bot *telegram.Bot
	ttl time.Duration
	log *slog.Logger

	mu   sync.Mutex
	seen map[mynah.ChatID]memberCount
}

type memberCount struct {
	n  int
	at time.Time
}

func newMemberCounts(bot *telegram.Bot, log *slog.Logger) *memberCounts {
	return &memberCounts{bot: bot, ttl: 10 * time.Minute, log: log, seen: map[mynah.ChatID]memberCount{}}
}

// Count returns the chat's member count, 0 when Telegram cannot tell.
func (m *memberCounts) Count(ctx context.Context, chat mynah.Chat) int {
	m.mu.Lock()
	c, ok := m.seen[chat.ID]
	m.mu.Unlock()
	if ok && time.Since(c.at) < m.ttl {
		return c.n
	}
	n, err := m.bot.MemberCount(ctx, chat.ID)
	if err != nil {
		m.log.Debug("member count unknown", "chat", chat.ID, "err", err)
		return c.n // the last known count, or 0
	}
	m.mu.Lock()
	m.seen[chat.ID] = memberCount{n: n, at: time.Now()}
	m.mu.Unlock()
	return n
}
