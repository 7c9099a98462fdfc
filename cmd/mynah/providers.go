package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/anthropic"
	"github.com/mynah-ai/mynah/internal/llm/cli"
	"github.com/mynah-ai/mynah/internal/llm/gemini"
	"github.com/mynah-ai/mynah/internal/llm/openai"
)

// providerKind is what mynah knows about one kind of model provider. Every place that
// needs to know a provider reads providerKinds.
type providerKind struct {
	Name    string // the kind, as in providers.<name>.kind and the provider of a model
	KeyVar  string // the variable the SDK reads its API key from
	BaseVar string // the variable the SDK reads its base URL from
	Model   string // the model `mynah init --provider <Name>` configures without --model
	// Keyless: with a base URL the provider needs no key (OpenAI-compatible local servers
	// such as Ollama and llama.cpp).
	Keyless bool
	// NoKey: the provider never needs a key (a command-line agent brings its own login).
	NoKey bool
	// NewModel builds the bare adapter, answers at most replyTokens long.
	NewModel func(p providerConfig, replyTokens int, hc *http.Client) (llm.Model, error)
	// NewEmbedder builds the client of its embeddings API; nil: the provider has none.
	NewEmbedder func(p providerConfig, hc *http.Client) (llm.Embedder, error)
	// NewTranscriber builds its speech-to-text client for model; nil: it has none.
	NewTranscriber func(p providerConfig, model string, hc *http.Client) (llm.Transcriber, error)
	// Probe is a request that costs nothing and needs the key (listing the models), so
	// serve can tell at start whether the provider accepts the key.
	Probe keyProbe
}

// keyProbe is a GET of Path under the base URL (Base when none is configured) with the
// key in Header (after Prefix) and the Extra headers.
type keyProbe struct {
	Base, Path, Header, Prefix string
	Extra                      map[string]string
}

// providerKinds are the providers mynah speaks to, in the order messages list them.
var providerKinds = []providerKind{
	{
		Name: "openai", KeyVar: "OPENAI_API_KEY", BaseVar: "OPENAI_BASE_URL", Model: "gpt-4o-mini", Keyless: true,
		NewModel: func(p providerConfig, replyTokens int, hc *http.Client) (llm.Model, error) {
			return openai.New(openai.Config{APIKey: keyOrPlaceholder(p), BaseURL: p.BaseURL, HTTPClient: hc, MaxTokens: replyTokens})
		},
		NewEmbedder: func(p providerConfig, hc *http.Client) (llm.Embedder, error) {
			return openai.New(openai.Config{APIKey: keyOrPlaceholder(p), BaseURL: p.BaseURL, HTTPClient: hc})
		},
		NewTranscriber: func(p providerConfig, model string, hc *http.Client) (llm.Transcriber, error) {
			return openai.NewTranscriber(openai.Config{APIKey: keyOrPlaceholder(p), BaseURL: p.BaseURL, HTTPClient: hc}, model)
		},
		Probe: keyProbe{Base: openai.DefaultBaseURL, Path: "models", Header: "Authorization", Prefix: "Bearer "},
	},
	{
		Name: "anthropic", KeyVar: "ANTHROPIC_API_KEY", BaseVar: "ANTHROPIC_BASE_URL", Model: "claude-haiku-4-5",
		NewModel: func(p providerConfig, replyTokens int, hc *http.Client) (llm.Model, error) {
			return anthropic.New(anthropic.Config{APIKey: string(p.APIKey), BaseURL: p.BaseURL, HTTPClient: hc, MaxTokens: replyTokens})
		},
		Probe: keyProbe{Base: anthropic.DefaultBaseURL, Path: "v1/models", Header: "x-api-key", Extra: map[string]string{"anthropic-version": "2023-06-01"}},
	},
	{
		Name: "gemini", KeyVar: "GEMINI_API_KEY", BaseVar: "GOOGLE_GEMINI_BASE_URL", Model: "gemini-2.5-flash",
		NewModel: func(p providerConfig, replyTokens int, hc *http.Client) (llm.Model, error) {
			return gemini.New(gemini.Config{APIKey: string(p.APIKey), BaseURL: p.BaseURL, HTTPClient: hc, MaxTokens: replyTokens})
		},
		NewEmbedder: func(p providerConfig, hc *http.Client) (llm.Embedder, error) {
			return gemini.New(gemini.Config{APIKey: string(p.APIKey), BaseURL: p.BaseURL, HTTPClient: hc})
		},
		NewTranscriber: func(p providerConfig, model string, hc *http.Client) (llm.Transcriber, error) {
			return gemini.NewTranscriber(gemini.Config{APIKey: string(p.APIKey), BaseURL: p.BaseURL, HTTPClient: hc}, model)
		},
		Probe: keyProbe{Base: gemini.DefaultBaseURL, Path: "v1beta/models", Header: "x-goog-api-key"},
	},
	{
		// A command-line agent (cli_config.go): model cli/NAME names the provider NAME.
		Name: "cli", NoKey: true,
		NewModel: func(p providerConfig, _ int, _ *http.Client) (llm.Model, error) { return newCLI(p, nil, 0) },
	},
}

// checkKeys logs, plainly, each of a's models whose provider refuses its key: a wrong key
// would fail every answer, and the operator should hear of it at start rather than at
// the first message. It runs beside the agent, so a slow provider never delays start-up.
func checkKeys(ctx context.Context, a agentConfig, hc *http.Client, log *slog.Logger) {
	for _, r := range append([]modelRef{{Name: a.Model, Provider: a.Provider}}, a.Fallbacks...) {
		if r.Provider.Kind == "cli" {
			checkCLI(r, a.Name, log) // cli_config.go
			continue
		}
		if err := refusedKey(ctx, r.Name, r.Provider, hc); err != nil {
			log.Error("the model provider refused the API key", "agent", a.Name, "model", r.Name, "err", err)
		}
	}
}

// refusedKey asks p's provider whether it accepts p's key, with a request that costs
// nothing, and returns an error only when the provider refuses it (401, 403): anything
// else (a server that lists no models, the network) says nothing about the key.
func refusedKey(ctx context.Context, name string, p providerConfig, hc *http.Client) error {
	k, ok := kindOf(p.Kind)
	if !ok || p.APIKey == "" || k.Probe.Path == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	url := strings.TrimRight(cmp.Or(p.BaseURL, k.Probe.Base), "/") + "/" + k.Probe.Path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil
	}
	req.Header.Set(k.Probe.Header, k.Probe.Prefix+string(p.APIKey))
	for h, v := range k.Probe.Extra {
		req.Header.Set(h, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return fmt.Errorf("the provider of %s refused its API key (%d): set %s to a valid key (mynah check --online tries it)", name, resp.StatusCode, k.KeyVar)
	}
	return nil
}

// keyOrPlaceholder is p's key, or a placeholder for a server that takes none: the SDK
// wants one.
func keyOrPlaceholder(p providerConfig) string {
	if p.APIKey == "" {
		return "unused"
	}
	return string(p.APIKey)
}

// kindOf returns the provider kind named name.
func kindOf(name string) (providerKind, bool) {
	i := slices.IndexFunc(providerKinds, func(k providerKind) bool { return k.Name == name })
	if i < 0 {
		return providerKind{}, false
	}
	return providerKinds[i], true
}

// kindNames lists the names of the provider kinds for which has is true, in table order.
func kindNames(has func(providerKind) bool) []string {
	var names []string
	for _, k := range providerKinds {
		if has(k) {
			names = append(names, k.Name)
		}
	}
	return names
}

func anyKind(providerKind) bool { return true }

func embeds(k providerKind) bool { return k.NewEmbedder != nil }

// apiKind reports whether k is a provider's API (not a command-line agent).
func apiKind(k providerKind) bool { return !k.NoKey }

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// missingKey reports whether p, of kind k, lacks the API key it needs.
func (k providerKind) missingKey(p providerConfig) bool {
	return !k.NoKey && p.APIKey == "" && (!k.Keyless || p.BaseURL == "")
}

// lookupProvider finds the provider name for the setting key of file: an entry of
// providers, or a known kind without one. An unset key or base URL comes from the
// variable the SDK reads.
func (cfg *config) lookupProvider(file, key, name string) (providerConfig, providerKind, error) {
	p, ok := cfg.Providers[name]
	if !ok {
		p = providerConfig{Kind: name}
	}
	k, ok := kindOf(p.Kind)
	if !ok {
		return p, k, &configError{file, key, fmt.Sprintf("unknown provider %q: add it under providers in mynah.yaml (known kinds: %s)",
			name, strings.Join(kindNames(anyKind), ", "))}
	}
	if p.APIKey == "" {
		p.APIKey = secret(cfg.getenv(k.KeyVar))
	}
	if p.BaseURL == "" {
		p.BaseURL = cfg.getenv(k.BaseVar)
	}
	return p, k, nil
}

// newAdapter builds the bare provider adapter, without retries.
func newAdapter(p providerConfig, replyTokens int, hc *http.Client) (llm.Model, error) {
	k, ok := kindOf(p.Kind)
	if !ok {
		return nil, fmt.Errorf("unknown provider kind %q", p.Kind)
	}
	m, err := k.NewModel(p, replyTokens, hc)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// newEmbedder builds the client of p's embeddings API.
func newEmbedder(p providerConfig, hc *http.Client) (llm.Embedder, error) {
	k, ok := kindOf(p.Kind)
	if !ok || k.NewEmbedder == nil {
		return nil, fmt.Errorf("provider kind %q has no embeddings API", p.Kind)
	}
	e, err := k.NewEmbedder(p, hc)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// agentModels are a's models in order, each wrapped for serving: deadlines on every call
// (timeouts), then retries of transient failures. The first answers; each next one takes
// over when the one before fails past its retries.
//
// A command-line agent (kind cli) is not wrapped: it has its own timeout, and sessions
// (nil: none kept) keeps its sessions; reminderEvery is how often it is reminded of its
// instructions. limits (nil: none) let calls to each provider follow what it accepts.
func agentModels(a agentConfig, limits *providerLimits, log *slog.Logger, sessions cli.Sessions, reminderEvery int) ([]lane.Model, error) {
	t := a.Timeouts
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = 32
	hc := &http.Client{Transport: llm.NewTransport(base, time.Duration(t.Connect))}
	refs := append([]modelRef{{Name: a.Model, ID: a.ModelID, Provider: a.Provider}}, a.Fallbacks...)
	models := make([]lane.Model, 0, len(refs))
	for _, r := range refs {
		if r.Provider.Kind == "cli" {
			m, err := newCLI(r.Provider, sessions, reminderEvery)
			if err != nil {
				return nil, fmt.Errorf("model %s: %w", r.Name, err)
			}
			models = append(models, lane.Model{Model: m, Name: r.Name, ID: r.ID})
			continue
		}
		m, err := newAdapter(r.Provider, a.ReplyTokens, hc)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", r.Name, err)
		}
		m = llm.WithDeadlines(m, llm.Deadlines{FirstToken: time.Duration(t.FirstToken), Total: time.Duration(t.Total)})
		if limits != nil {
			m = llm.WithLimit(m, limits.of(r.Provider))
		}
		models = append(models, lane.Model{Model: llm.WithRetry(m, llm.RetryPolicy{Logger: log.With("agent", a.Name, "model", r.Name)}), Name: r.Name, ID: r.ID})
	}
	return models, nil
}

// Model calls in flight to a provider start at limitStart and grow up to limitCeiling,
// or to parallel_turns when it is set, as the provider accepts them (llm.Limiter).
const (
	limitStart   = 32
	limitCeiling = 256
)

// providerLimits are the call limiters of a process's providers, one per provider (by
// kind, base URL and key: agents sharing an account share its limit).
type providerLimits struct {
	ceiling int
	mu      sync.Mutex
	all     map[providerAccount]*llm.Limiter
}

// providerAccount is what tells one provider account from another.
type providerAccount struct {
	kind, baseURL string
	key           secret
}

func newProviderLimits(parallel int) *providerLimits {
	ceiling := limitCeiling
	if parallel > 0 {
		ceiling = parallel
	}
	return &providerLimits{ceiling: ceiling, all: map[providerAccount]*llm.Limiter{}}
}

func (p *providerLimits) of(c providerConfig) *llm.Limiter {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := providerAccount{c.Kind, c.BaseURL, c.APIKey}
	l := p.all[key]
	if l == nil {
		l = llm.NewLimiter(min(limitStart, p.ceiling), p.ceiling)
		p.all[key] = l
	}
	return l
}
