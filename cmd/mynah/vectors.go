package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/memory"
)

// embedEvery is how often serve embeds new messages: often enough that a message is
// found by meaning seconds after it arrives, in batches rather than one call per message.
const embedEvery = 3 * time.Second

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
		return p, "", false, &configError{a.File, "embeddings", fmt.Sprintf("provider %q has no API key: set %s", name, k.KeyVar)}
	}
	return p, model, true, nil
}

// validateEmbeddings checks the agent's embeddings setting.
func validateEmbeddings(cfg *config, a *agentConfig, opts loadOptions) error {
	_, _, _, err := embeddingsOf(cfg, a, opts)
	return err
}

// agentVectors is the agent's vector index over store, or nil when the agent has no
// embeddings configured (keyword-only search).
func agentVectors(cfg *config, a agentConfig, store memory.VectorStore, hc *http.Client, log *slog.Logger) (*memory.Vectors, error) {
	p, model, ok, err := embeddingsOf(cfg, &a, loadOptions{NoKeys: true})
	if err != nil || !ok {
		return nil, err
	}
	emb, err := newEmbedder(p, hc)
	if err != nil {
		return nil, fmt.Errorf("agent %s: embeddings: %w", a.Name, err)
	}
	return memory.NewVectors(store, llm.WithEmbedRetry(emb, llm.RetryPolicy{Attempts: 3}),
		memory.VectorsConfig{Agent: a.Name, Model: model, Log: log}), nil
}

// runVectors embeds the agent's new messages every embedEvery until ctx is done. Without
// embeddings configured, or when they cannot be set up (logged), it returns nil at once.
// Provider errors are logged and the messages tried again next time; chat never waits.
func runVectors(ctx context.Context, cfg *config, a agentConfig, store memory.VectorStore, hc *http.Client, log *slog.Logger) error {
	v, err := agentVectors(cfg, a, store, hc, log)
	if err != nil {
		// Search stays keyword-only; stopping serve for it would end every chat.
		log.Error("vector search disabled", "agent", a.Name, "err", err)
		return nil
	}
	if v == nil {
		return nil
	}
	wake := v.RunEmbedder(ctx, log)
	wake()
	wakeEvery(ctx, embedEvery, wake)
	return nil
}
