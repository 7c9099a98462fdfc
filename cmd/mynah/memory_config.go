package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/memory"
)

// The memory keys of an agent's settings (search, summaries, embeddings) and the memory
// engine they configure.

// agentMemory builds agent a's memory engine over db. model writes its summaries (nil:
// none, for offline commands); with online set, search finds by meaning when the agent
// has embeddings configured. A failure to set up embeddings is returned with a working
// keyword-only engine, so a caller may log it and go on.
func agentMemory(cfg *config, a agentConfig, db store, model llm.Model, online bool, hc *http.Client, log *slog.Logger) (*memory.Engine, error) {
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
			Count:       a.Count,
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

// summariesConfig is the summaries key of an agent's settings: rolling compaction of what
// scrolled out of a session's prompt, and periodic summaries of each active chat.
type summariesConfig struct {
	Rolling     bool     `yaml:"rolling"`      // compact history that outgrew the prompt
	Flush       bool     `yaml:"flush"`        // let the agent save facts before a compaction
	MinMessages int      `yaml:"min_messages"` // compact once this many messages were left out
	MinTokens   int      `yaml:"min_tokens"`   // … or this many tokens
	InputTokens int      `yaml:"input_tokens"` // most tokens of messages one summary call reads
	WeekEvery   duration `yaml:"week_every"`   // how often a 7-day summary is written; 0s: never
	MonthEvery  duration `yaml:"month_every"`  // how often a 30-day summary is written; 0s: never
	CheckEvery  duration `yaml:"check_every"`  // how often to look for summaries to write
}

// defaultSummaries are mynah's own summaries settings.
func defaultSummaries() summariesConfig {
	return summariesConfig{
		Rolling:     true,
		Flush:       true,
		MinMessages: memory.DefaultSummaryMinMessages,
		MinTokens:   memory.DefaultSummaryMinTokens,
		InputTokens: memory.DefaultSummaryInputTokens,
		WeekEvery:   duration(72 * time.Hour),
		MonthEvery:  duration(336 * time.Hour),
		CheckEvery:  duration(time.Minute),
	}
}

// validate checks the summaries settings of file, their keys under prefix.
func (s summariesConfig) validate(file, prefix string) error {
	bad := func(key, msg string) error { return &configError{file, prefix + key, msg} }
	if s.MinMessages < 1 || s.MinMessages > 10000 {
		return bad("min_messages", fmt.Sprintf("%d is not between 1 and 10000", s.MinMessages))
	}
	if s.MinTokens < 1 {
		return bad("min_tokens", fmt.Sprintf("%d is not a positive number of tokens", s.MinTokens))
	}
	if s.InputTokens < 500 || s.InputTokens > 1_000_000 {
		return bad("input_tokens", fmt.Sprintf("%d is not between 500 and 1000000", s.InputTokens))
	}
	for _, p := range []struct {
		key   string
		every duration
	}{{"week_every", s.WeekEvery}, {"month_every", s.MonthEvery}} {
		if d := time.Duration(p.every); d != 0 && d < time.Hour {
			return bad(p.key, fmt.Sprintf("%q is not 0s (never) or a duration of at least 1h, like 72h", p.every))
		}
	}
	if d := time.Duration(s.CheckEvery); d < 10*time.Millisecond || d > 24*time.Hour {
		return bad("check_every", fmt.Sprintf("%q is not a duration between 10ms and 24h, like 1m", s.CheckEvery))
	}
	return nil
}

// embeddingsOf resolves the agent's embeddings setting ("provider/model", as model is)
// against the configured providers. An empty setting is keyword-only search: ok false.
func embeddingsOf(cfg *config, a *agentConfig, opts loadOptions) (p providerConfig, model string, ok bool, err error) {
	if a.Embeddings == "" {
		return p, "", false, nil
	}
	name, model, found := strings.Cut(a.Embeddings, "/")
	if !found || name == "" || model == "" {
		return p, "", false, &configError{a.File, "embeddings", fmt.Sprintf("%q must be provider/model, e.g. openai/text-embedding-3-small", a.Embeddings)}
	}
	p, k, err := cfg.lookupProvider(a.File, "embeddings", name)
	if err != nil {
		return p, "", false, err
	}
	if k.NewEmbedder == nil {
		return p, "", false, &configError{a.File, "embeddings", fmt.Sprintf("provider %q (%s) has no embeddings API: use a provider of kind %s (or an OpenAI-compatible server), or leave embeddings empty for keyword search",
			name, p.Kind, orList(kindNames(embeds)))}
	}
	if k.missingKey(p) && !opts.NoKeys {
		if err := opts.missingSecret(&configError{a.File, "embeddings", fmt.Sprintf("provider %q has no API key: set %s", name, k.KeyVar)}); err != nil {
			return p, "", false, err
		}
	}
	return p, model, true, nil
}

// validateEmbeddings checks the agent's embeddings setting.
func validateEmbeddings(cfg *config, a *agentConfig, opts loadOptions) error {
	_, _, _, err := embeddingsOf(cfg, a, opts)
	return err
}
