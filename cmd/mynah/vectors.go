package main

import (
	"fmt"
	"strings"
)

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
