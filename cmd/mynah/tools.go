package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/tool"
)

// agentTools are the tools an agent offers the model besides the plan tools (which the
// runtime adds itself): the memory engine's.
func agentTools(cfg *config, a agentConfig, db *sqlite.DB, search agentSearch) (tool.Registry, error) {
	return tool.NewRegistry(append(factTools(a, db), notesTools(cfg, a, db, search)...)...)
}

// agentSearch is how an agent searches its memory: history is its messages, for the
// prompt's recall layer; all adds its notes, for memory_search and `mynah memory search`.
// Both find by meaning too when the agent has embeddings configured, sharing one cache of
// vectors.
type agentSearch struct {
	history *memory.Searcher
	all     *memory.Searcher
	notes   *memory.Notes // the agent's notes, kept in step with their files by runNotes
}

// newAgentSearch builds a's searchers. A failure to set up embeddings is returned with
// working keyword-only searchers, so a caller may log it and go on.
func newAgentSearch(cfg *config, a agentConfig, db *sqlite.DB, hc *http.Client, log *slog.Logger) (agentSearch, error) {
	history := memory.NewSearcher(db, searchOptions(a.Search), nil)
	v, err := agentVectors(cfg, a, db, hc, log)
	if v != nil {
		history = history.WithVectors(v)
	}
	notes := agentNotes(cfg, a, db)
	return agentSearch{history: history, all: history.WithNotes(notes), notes: notes}, err
}

// searchConfig tunes memory search; the defaults are what measured best on LoCoMo.
type searchConfig struct {
	RecencyWeight   float64  `yaml:"recency_weight"`    // favour recent messages: 0 to 1
	RecencyHalfLife duration `yaml:"recency_half_life"` // how fast that favour fades, e.g. 720h
	NeighbourWeight float64  `yaml:"neighbour_weight"`  // share of a neighbouring turn's score a message gets
}

// defaultSearch are mynah's own search settings: memory's default ranking.
func defaultSearch() searchConfig {
	o := memory.DefaultOptions()
	return searchConfig{RecencyWeight: o.Recency.Weight, RecencyHalfLife: duration(720 * time.Hour), NeighbourWeight: o.NeighbourWeight}
}

// validate checks the search settings of file, their keys under prefix.
func (s searchConfig) validate(file, prefix string) error {
	for _, w := range []struct {
		key string
		v   float64
	}{{"recency_weight", s.RecencyWeight}, {"neighbour_weight", s.NeighbourWeight}} {
		if w.v < 0 || w.v > 1 {
			return &configError{file, prefix + w.key, fmt.Sprintf("%v is not between 0 and 1", w.v)}
		}
	}
	if time.Duration(s.RecencyHalfLife) < time.Hour {
		return &configError{file, prefix + "recency_half_life", fmt.Sprintf("%q is not a duration of at least 1h, like 720h", s.RecencyHalfLife)}
	}
	return nil
}

// searchOptions are the default ranking with s applied.
func searchOptions(s searchConfig) memory.Options {
	o := memory.DefaultOptions()
	o.Recency = memory.Recency{Weight: s.RecencyWeight, HalfLife: time.Duration(s.RecencyHalfLife)}
	o.NeighbourWeight = s.NeighbourWeight
	return o
}
