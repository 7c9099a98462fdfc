package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/tokens"
)

// agentMemory builds agent a's memory engine over db. model writes its summaries (nil:
// none, for offline commands); with online set, search finds by meaning when the agent
// has embeddings configured. A failure to set up embeddings is returned with a working
// keyword-only engine, so a caller may log it and go on.
func agentMemory(cfg *config, a agentConfig, db *sqlite.DB, model llm.Model, online bool, hc *http.Client, log *slog.Logger) (*memory.Engine, error) {
	var emb llm.Embedder
	var embModel string
	var err error
	if online {
		emb, embModel, err = agentEmbedder(cfg, a, hc)
	}
	s := a.Summaries
	return memory.New(memory.Config{
		Agent:       a.Name,
		CuratedDir:  filepath.Join(filepath.Dir(a.File), a.Name, "memory"),
		EpisodicDir: filepath.Join(cfg.DataDir, "notes", a.Name),
		Search:      searchOptions(a.Search),
		MaxFacts:    a.MaxFacts,
		Embeddings:  embModel,
		Summaries: memory.SummaryConfig{
			ModelName:   a.Model,
			ModelID:     a.ModelID,
			Rolling:     s.Rolling,
			MinMessages: s.MinMessages,
			MinTokens:   s.MinTokens,
			InputTokens: s.InputTokens,
			ReplyTokens: a.ReplyTokens,
			Week:        memory.Period{Every: time.Duration(s.WeekEvery), Span: 7 * 24 * time.Hour},
			Month:       memory.Period{Every: time.Duration(s.MonthEvery), Span: 30 * 24 * time.Hour},
			Poll:        time.Duration(s.CheckEvery),
			Count:       tokens.Cached(tokens.For(a.Provider.Kind, a.ModelID), 4096).Count,
		},
		Flush:    s.Flush,
		Location: a.Location,
		Logger:   log,
	}, db, model, emb), err
}

// agentEmbedder is the embeddings client of agent a and its model, or nil when it has
// none configured.
func agentEmbedder(cfg *config, a agentConfig, hc *http.Client) (llm.Embedder, string, error) {
	p, model, ok, err := embeddingsOf(cfg, &a, loadOptions{NoKeys: true})
	if err != nil || !ok {
		return nil, "", err
	}
	emb, err := newEmbedder(p, hc)
	if err != nil {
		return nil, "", fmt.Errorf("agent %s: embeddings: %w", a.Name, err)
	}
	return emb, model, nil
}
