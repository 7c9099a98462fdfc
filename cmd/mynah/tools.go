package main

import (
	"fmt"
	"time"

	"github.com/mynah-ai/mynah/internal/memory"
)

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
