package main

import (
	"fmt"
	"time"

	"github.com/mynah-ai/mynah/internal/memory"
)

// searchConfig tunes memory search; unset keys keep the defaults measured on LoCoMo.
type searchConfig struct {
	RecencyWeight   *float64 `yaml:"recency_weight"`    // favour recent messages: 0 (default) to 1
	RecencyHalfLife string   `yaml:"recency_half_life"` // how fast that favour fades, e.g. 720h
	NeighbourWeight *float64 `yaml:"neighbour_weight"`  // share of a neighbouring turn's score a message gets (0.3)
}

func inheritSearch(a *searchConfig, d searchConfig) {
	if a.RecencyWeight == nil {
		a.RecencyWeight = d.RecencyWeight
	}
	if a.RecencyHalfLife == "" {
		a.RecencyHalfLife = firstNonEmpty(d.RecencyHalfLife, "720h")
	}
	if a.NeighbourWeight == nil {
		a.NeighbourWeight = d.NeighbourWeight
	}
}

func validateSearch(a *agentConfig) error {
	s := a.Search
	for key, w := range map[string]*float64{"search.recency_weight": s.RecencyWeight, "search.neighbour_weight": s.NeighbourWeight} {
		if w != nil && (*w < 0 || *w > 1) {
			return &configError{a.File, key, fmt.Sprintf("%v is not between 0 and 1", *w)}
		}
	}
	if d, err := time.ParseDuration(s.RecencyHalfLife); err != nil || d < time.Hour {
		return &configError{a.File, "search.recency_half_life", fmt.Sprintf("%q is not a duration of at least 1h, like 720h", s.RecencyHalfLife)}
	}
	return nil
}

// searchOptions are the default ranking with s's keys applied.
func searchOptions(s searchConfig) memory.Options {
	o := memory.DefaultOptions()
	if s.RecencyWeight != nil {
		o.Recency = memory.Recency{Weight: *s.RecencyWeight, HalfLife: mustDuration(s.RecencyHalfLife)}
	}
	if s.NeighbourWeight != nil {
		o.NeighbourWeight = *s.NeighbourWeight
	}
	return o
}
