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
	p, found = cfg.Providers[name]
	if !found {
		if !knownKinds[name] {
			return p, "", false, &configError{a.File, "embeddings", fmt.Sprintf("unknown provider %q: add it under providers in mynah.yaml", name)}
		}
		p = providerConfig{Kind: name}
	}
	if p.Kind != "openai" && p.Kind != "gemini" {
		return p, "", false, &configError{a.File, "embeddings", fmt.Sprintf("provider %q (%s) has no embeddings API: use an openai, openai-compatible or gemini provider, or leave embeddings empty for keyword search", name, p.Kind)}
	}
	p = withProviderEnv(p, cfg.getenv)
	if p.APIKey == "" && (p.Kind != "openai" || p.BaseURL == "") && !opts.NoKeys {
		return p, "", false, &configError{a.File, "embeddings", fmt.Sprintf("provider %q has no API key: set %s", name, keyVar[p.Kind])}
	}
	return p, model, true, nil
}

// validateEmbeddings checks the agent's embeddings setting.
func validateEmbeddings(cfg *config, a *agentConfig, opts loadOptions) error {
	_, _, _, err := embeddingsOf(cfg, a, opts)
	return err
}
