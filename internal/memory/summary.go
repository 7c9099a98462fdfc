package memory

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/tool"
)

// SummaryStore is what the summarizer reads and writes.
type SummaryStore interface {
	mynah.Summaries
	Session(ctx context.Context, agent string, chat mynah.ChatID, thread int64) (mynah.Session, error)
	RecordUsage(ctx context.Context, u mynah.Usage) error
}

// Defaults of SummaryConfig's zero fields.
const (
	DefaultSummaryMinMessages = 20
	DefaultSummaryMinTokens   = 2000
	DefaultSummaryInputTokens = 8000
	DefaultSummaryReplyTokens = 800
	DefaultSummaryPoll        = time.Minute
)

// Period configures one kind of periodic summary: every Every, a summary of the chat's
// last Span. A zero Every turns the kind off.
type Period struct {
	Every, Span time.Duration
}

// SummaryConfig configures a Summarizer. Zero values take the documented defaults.
type SummaryConfig struct {
	Agent     string
	Model     llm.Model
	ModelName string // provider/model, recorded with usage and summaries
	ModelID   string // the provider's model name, sent in requests
	// Rolling turns rolling compaction on.
	Rolling bool
	// A compaction runs once the messages left out of a session's prompt and not yet
	// summarized number MinMessages (default 20) or MinTokens (default 2000).
	MinMessages, MinTokens int
	// InputTokens caps the messages one summary call reads (default 8000 tokens); a longer
	// backlog is compacted over several calls, oldest first.
	InputTokens int
	ReplyTokens int // the longest summary, in tokens (default 800)
	// Remember, when set, is the remember tool: before a compaction the agent gets one
	// silent turn to save lasting facts with it (the memory flush).
	Remember    tool.Tool
	Week, Month Period
	Poll        time.Duration    // how often to look for work (default 1 minute)
	Now         func() time.Time // default time.Now
	Count       func(string) int // token counter; default prompt.Estimate
	Location    *time.Location   // for the dates shown to the model; default UTC
	Logger      *slog.Logger     // default: discard
}

// Summarizer writes rolling and periodic summaries of an agent's chats. It is safe for
// concurrent use; it never summarizes one chat twice at once.
type Summarizer struct {
	cfg   SummaryConfig
	store SummaryStore

	mu     sync.Mutex
	busy   map[mynah.ChatID]bool
	cursor int64              // the last prompt record's turn that Tick looked at
	empty  map[periodKey]bool // periods found without messages, not asked again
	primed bool               // cursor was initialised from the store
}

type periodKey struct {
	chat mynah.ChatID
	kind mynah.SummaryKind
	end  time.Time
}

// NewSummarizer returns a Summarizer of cfg.Agent's chats; it does no I/O.
func NewSummarizer(cfg SummaryConfig, store SummaryStore) *Summarizer {
	if cfg.MinMessages <= 0 {
		cfg.MinMessages = DefaultSummaryMinMessages
	}
	if cfg.MinTokens <= 0 {
		cfg.MinTokens = DefaultSummaryMinTokens
	}
	if cfg.InputTokens <= 0 {
		cfg.InputTokens = DefaultSummaryInputTokens
	}
	if cfg.ReplyTokens <= 0 {
		cfg.ReplyTokens = DefaultSummaryReplyTokens
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultSummaryPoll
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Count == nil {
		cfg.Count = prompt.Estimate
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Summarizer{cfg: cfg, store: store, busy: map[mynah.ChatID]bool{}, empty: map[periodKey]bool{}}
}

// Run looks for work every cfg.Poll until ctx is done, then returns nil. A failed pass is
// logged and tried again at the next poll: summaries are an optimisation of the prompt,
// never a reason to stop the agent.
func (s *Summarizer) Run(ctx context.Context) error {
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	for {
		if err := s.Tick(ctx); err != nil && ctx.Err() == nil {
			s.cfg.Logger.Warn("summaries", "agent", s.cfg.Agent, "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// restartBacklog is how many recorded prompts before the newest a starting summarizer
// looks at again, so that a compaction due when the process stopped is not lost.
const restartBacklog = 50

// Tick does one pass: compacts the chats whose latest prompts left session messages out,
// then writes the periodic summaries that are due.
func (s *Summarizer) Tick(ctx context.Context) error {
	var errs []error
	if s.cfg.Rolling {
		if err := s.compactRecent(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range []struct {
		kind mynah.SummaryKind
		p    Period
	}{{mynah.SummaryWeek, s.cfg.Week}, {mynah.SummaryMonth, s.cfg.Month}} {
		if p.p.Every <= 0 || p.p.Span <= 0 {
			continue
		}
		if err := s.periodic(ctx, p.kind, p.p); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%v", errs)
	}
	return nil
}

// compactRecent reads the prompt records since the last pass and compacts each chat
// topic whose newest record left messages out.
func (s *Summarizer) compactRecent(ctx context.Context) error {
	s.mu.Lock()
	cursor, primed := s.cursor, s.primed
	s.mu.Unlock()
	if !primed {
		last, err := s.store.LastTurn(ctx, s.cfg.Agent)
		if err != nil {
			return err
		}
		cursor = max(0, last-restartBacklog)
	}
	type topic struct {
		chat   mynah.ChatID
		thread int64
	}
	newest := map[topic]mynah.PromptRef{}
	var order []topic
	for {
		refs, err := s.store.PromptsAfter(ctx, s.cfg.Agent, cursor, 200)
		if err != nil {
			return err
		}
		for _, r := range refs {
			k := topic{r.Chat, r.Thread}
			if _, ok := newest[k]; !ok {
				order = append(order, k)
			}
			newest[k] = r
			cursor = r.Turn
		}
		if len(refs) < 200 {
			break
		}
	}
	s.mu.Lock()
	s.cursor, s.primed = cursor, true
	s.mu.Unlock()
	var errs []string
	for _, k := range order {
		if _, err := s.Compact(ctx, newest[k]); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("compaction: %s", strings.Join(errs, "; "))
	}
	return nil
}

// lock marks chat busy; it reports false when a summary of chat is being written.
func (s *Summarizer) lock(chat mynah.ChatID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy[chat] {
		return false
	}
	s.busy[chat] = true
	return true
}

func (s *Summarizer) unlock(chat mynah.ChatID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.busy, chat)
}

// generate asks the model for a summary and records the call's usage.
func (s *Summarizer) generate(ctx context.Context, chat mynah.ChatID, req llm.Request) (string, error) {
	req.Model, req.MaxTokens = s.cfg.ModelID, s.cfg.ReplyTokens
	resp, err := s.cfg.Model.Generate(ctx, req)
	if err != nil {
		return "", fmt.Errorf("summary of chat %d: %w", chat, err)
	}
	s.recordUsage(ctx, chat, resp.Usage)
	text := strings.TrimSpace(resp.Text)
	if text == "" {
		return "", fmt.Errorf("summary of chat %d: the model wrote nothing", chat)
	}
	return text, nil
}

func (s *Summarizer) recordUsage(ctx context.Context, chat mynah.ChatID, u llm.Usage) {
	err := s.store.RecordUsage(ctx, mynah.Usage{Agent: s.cfg.Agent, Chat: chat, Model: s.cfg.ModelName,
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedTokens: u.CachedTokens, Time: s.cfg.Now()})
	if err != nil {
		s.cfg.Logger.Warn("summaries: recording usage", "agent", s.cfg.Agent, "chat", int64(chat), "err", err)
	}
}

// transcript renders msgs one per line for a summary call: "[#12 2 May 14:03] Alice#42:
// text", the agent's own messages as "you".
func (s *Summarizer) transcript(msgs []mynah.Message) string {
	var b strings.Builder
	for i := range msgs {
		m := &msgs[i]
		who := "you"
		if !m.Outgoing {
			who = fmt.Sprintf("%s#%d", firstNonEmpty(m.Sender.Name(), "someone"), m.Sender.ID)
		}
		fmt.Fprintf(&b, "[#%d %s] %s: %s\n", m.ID, m.Time.In(s.cfg.Location).Format("2 Jan 15:04"), who, prompt.Body(m))
	}
	return b.String()
}

// fitOldest keeps the oldest messages of msgs whose transcript fits budget tokens (at
// least one); fitNewest keeps the newest.
func (s *Summarizer) fitOldest(msgs []mynah.Message, budget int) []mynah.Message {
	used := 0
	for i := range msgs {
		used += s.cfg.Count(s.transcript(msgs[i : i+1]))
		if used > budget && i > 0 {
			return msgs[:i]
		}
	}
	return msgs
}

func (s *Summarizer) fitNewest(msgs []mynah.Message, budget int) []mynah.Message {
	used := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		used += s.cfg.Count(s.transcript(msgs[i : i+1]))
		if used > budget && i < len(msgs)-1 {
			return msgs[i+1:]
		}
	}
	return msgs
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// span renders a period as "2 May – 9 May 2026", with the start's year too when it
// differs from the end's.
func span(from, to time.Time, loc *time.Location) string {
	f, t := from.In(loc), to.In(loc)
	layout := "2 Jan"
	if f.Year() != t.Year() {
		layout = "2 Jan 2006"
	}
	if f.Format("2 Jan 2006") == t.Format("2 Jan 2006") {
		return t.Format("2 Jan 2006")
	}
	return f.Format(layout) + " – " + t.Format("2 Jan 2006")
}
