package memory

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/tool"
)

// Store is what an agent's memory reads and writes: its history and search index, facts,
// notes index, vectors and summaries.
type Store interface {
	History
	FactStore
	VectorStore
	SummaryStore
	mynah.NoteIndex
}

// Config is one agent's memory. Zero values take the documented defaults.
type Config struct {
	Agent string
	// CuratedDir holds the notes an operator keeps by hand (agents/<Name>/memory): those
	// at its top are in every prompt's memory layer, those in chats/<chat id>/ in that
	// chat's, users/<user id>.md in that person's private chat's; all are searchable
	// where they are shown. EpisodicDir is where the note tool writes, in a folder per
	// chat (see the package documentation).
	CuratedDir, EpisodicDir string
	// NotesPerChat caps the bytes of notes the note tool writes in one chat (default
	// DefaultNotesPerChat).
	NotesPerChat int64
	// Search tunes ranking (DefaultOptions when zero).
	Search Options
	// MaxFacts caps the facts kept about one person (the oldest are evicted).
	MaxFacts int
	// Embeddings is the embedding model; without it (or without an embedder) search is
	// keyword-only.
	Embeddings string
	// Summaries configures the summarizer; its Agent and Model are the engine's. It runs
	// when Rolling is on or a periodic kind has an Every. Flush lets the agent save facts
	// before a compaction.
	Summaries SummaryConfig
	Flush     bool
	// Recall is how many items the recall layer offers (default 5).
	Recall int
	// NotesEvery is how often note files are checked for changes by hand (default 3 s;
	// searches check too, so it only bounds staleness between searches). EmbedEvery is how
	// often new messages are embedded (default 3 s).
	NotesEvery, EmbedEvery time.Duration
	Location               *time.Location // for dates shown to the model and read in queries; default UTC
	Logger                 *slog.Logger   // default: discard
}

// Engine is one agent's memory: facts, notes, history search (by meaning too when an
// embedder is configured), recall and summaries. It builds each index once and hands the
// same instances to the prompt's layers, the model's tools and the operator's search.
// Run keeps its indexes and summaries up to date. It is safe for concurrent use.
type Engine struct {
	cfg        Config
	store      Store
	notes      *Notes
	vectors    *Vectors // nil: keyword-only
	history    *Searcher
	all        *Searcher // history and notes
	summarizer *Summarizer
	tools      []tool.Tool
	log        *slog.Logger
}

// New returns the memory of cfg.Agent over store. model writes summaries (nil: none);
// emb embeds messages for search by meaning (nil: keyword-only). It does no I/O.
func New(cfg Config, store Store, model llm.Model, emb llm.Embedder) *Engine {
	if cfg.Search == (Options{}) {
		cfg.Search = DefaultOptions()
	}
	if cfg.Recall <= 0 {
		cfg.Recall = 5
	}
	if cfg.NotesEvery <= 0 {
		cfg.NotesEvery = 3 * time.Second
	}
	if cfg.EmbedEvery <= 0 {
		cfg.EmbedEvery = 3 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	e := &Engine{cfg: cfg, store: store, log: cfg.Logger}
	e.notes = NewNotes(cfg.Agent, cfg.CuratedDir, cfg.EpisodicDir, store)
	e.history = NewSearcher(store, cfg.Search, nil).WithLocation(cfg.Location)
	if emb != nil && cfg.Embeddings != "" {
		e.vectors = NewVectors(store, llm.WithEmbedRetry(emb, llm.RetryPolicy{Attempts: 3}),
			VectorsConfig{Agent: cfg.Agent, Model: cfg.Embeddings, Log: cfg.Logger})
		e.history = e.history.WithVectors(e.vectors)
	}
	e.all = e.history.WithNotes(e.notes)
	e.tools = []tool.Tool{
		NewRemember(store, cfg.MaxFacts),
		NewForget(store),
		NewSearchTool(e.all),
		NewGetTool(store).WithNotes(e.notes).WithLocation(cfg.Location),
		NewNoteTool(cfg.EpisodicDir, cfg.NotesPerChat),
	}
	s := cfg.Summaries
	if model != nil && (s.Rolling || s.Week.Every > 0 || s.Month.Every > 0) {
		s.Agent, s.Model = cfg.Agent, model
		if s.Location == nil {
			s.Location = cfg.Location
		}
		if s.Logger == nil {
			s.Logger = cfg.Logger.With("agent", cfg.Agent)
		}
		if cfg.Flush {
			s.Remember = NewRemember(store, cfg.MaxFacts)
		}
		e.summarizer = NewSummarizer(s, store)
	}
	return e
}

// Sources are the prompt layers the engine fills: long-term memory (curated notes, then
// facts about the people taking part), summaries, and recall from beyond the window.
func (e *Engine) Sources() prompt.Sources {
	loc := e.cfg.Location
	if loc == nil {
		loc = time.UTC
	}
	return prompt.Sources{
		Memory:    LongTerm{NewCurated(e.cfg.CuratedDir), NewFacts(e.store)},
		Summaries: NewSummaryLayer(e.store, loc),
		Recall:    NewRecall(e.history, e.cfg.Recall),
	}
}

// Tools are the memory tools the model may call: remember, forget, memory_search,
// memory_get and note.
func (e *Engine) Tools() []tool.Tool { return e.tools }

// Search is the operator's search: history as memory_search searches it, and every note,
// whatever chat it belongs to, unscoped ones (written before notes had scopes) included.
// Its results must not reach a chat.
func (e *Engine) Search(ctx context.Context, q Query) ([]Result, error) {
	if q.Agent == "" {
		q.Agent = e.cfg.Agent
	}
	q.AllNotes = true
	return e.all.Search(ctx, q)
}

// SearchMany is Search for several queries at once, their results merged (see
// Searcher.SearchMany).
func (e *Engine) SearchMany(ctx context.Context, q Query, texts []string) ([]Result, error) {
	if q.Agent == "" {
		q.Agent = e.cfg.Agent
	}
	q.AllNotes = true
	return e.all.SearchMany(ctx, q, texts)
}

// Missed is Searcher.Missed: the time text names when none of res was said in it.
func (e *Engine) Missed(text string, now time.Time, res []Result) (Span, bool) {
	return e.all.Missed(text, now, res)
}

// Searchable is Searcher.Searchable.
func (e *Engine) Searchable(text string, now time.Time) bool { return e.all.Searchable(text, now) }

// Location is the time zone the engine reads and shows times in.
func (e *Engine) Location() *time.Location { return e.history.Location() }

// Run keeps the notes index in step with the files, embeds new messages and writes
// summaries until ctx is done, then returns nil once all of that has stopped. Failures are
// logged and retried on the next pass: memory is an aid to the conversation, never a
// reason to stop the agent.
func (e *Engine) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() {
		every(ctx, e.cfg.NotesEvery, func() {
			if _, err := e.notes.Sync(ctx); err != nil && ctx.Err() == nil {
				e.log.Error("indexing notes", "agent", e.cfg.Agent, "err", err)
			}
		})
	})
	if e.vectors != nil {
		wg.Go(func() { every(ctx, e.cfg.EmbedEvery, e.vectors.RunEmbedder(ctx, e.log)) })
	}
	if e.summarizer != nil {
		wg.Go(func() { _ = e.summarizer.Run(ctx) })
	}
	wg.Wait()
	return nil
}

// every calls fn at once and then every interval until ctx is done.
func every(ctx context.Context, interval time.Duration, fn func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		fn()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
