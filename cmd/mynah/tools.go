package main

import (
	"log/slog"
	"net/http"

	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/tool"
)

// agentTools are the tools an agent offers the model besides the plan tools (which the
// runtime adds itself): the memory engine's.
func agentTools(cfg *config, a agentConfig, db *sqlite.DB, search agentSearch) (tool.Registry, error) {
	return tool.NewRegistry(append(factTools(a, db), notesTools(cfg, a, db, search.all)...)...)
}

// agentSearch is how an agent searches its memory: history is its messages, for the
// prompt's recall layer; all adds its notes, for memory_search and `mynah memory search`.
// Both find by meaning too when the agent has embeddings configured, sharing one cache of
// vectors.
type agentSearch struct {
	history *memory.Searcher
	all     *memory.Searcher
}

// newAgentSearch builds a's searchers. A failure to set up embeddings is returned with
// working keyword-only searchers, so a caller may log it and go on.
func newAgentSearch(cfg *config, a agentConfig, db *sqlite.DB, hc *http.Client, log *slog.Logger) (agentSearch, error) {
	history := memory.NewSearcher(db, memory.DefaultOptions(), nil)
	v, err := agentVectors(cfg, a, db, hc, log)
	if v != nil {
		history = history.WithVectors(v)
	}
	return agentSearch{history: history, all: history.WithNotes(agentNotes(cfg, a, db))}, err
}
