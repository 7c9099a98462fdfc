// Package tokens tells how many tokens a text costs with a given provider's model, so the
// prompt builder can fit history into a context window.
//
// By default text is costed by Estimate, a per-script estimator of o200k_base, through a
// Calibration that corrects it continuously with the prompt tokens each provider reports
// for each call: counts within a few percent of the provider's own, for any provider,
// without a tokenizer's tables in memory. OpenAI models can instead be counted exactly
// (For) with tiktoken's byte-pair encodings, compiled into the binary by
// github.com/tiktoken-go/tokenizer and built on first use: about 12 MB of memory and
// tens of milliseconds, paid only by a process that asks for them.
package tokens

import "strings"

// Counter counts the tokens of text for one model family. Count returns 0 only for the
// empty string. Implementations are safe for concurrent use.
type Counter interface {
	Count(text string) int
}

// For returns the counter for a provider kind ("openai", "anthropic", "gemini", as the
// configuration spells them) and a model name without the provider prefix. OpenAI models
// are counted exactly: cl100k_base for gpt-4 and gpt-3.5-turbo, o200k_base for gpt-4o,
// gpt-4.1, gpt-5, the o-series and any other name that looks like an OpenAI one (gpt-*,
// chatgpt-*, o<digit>*; an "openai/" router prefix is ignored). Everything else — Anthropic,
// Gemini, unknown kinds and models served by OpenAI-compatible servers (llama3.2,
// mistral, anthropic/claude-…) — gets the Estimate counter. For does no I/O and loads no
// table; the returned counters are shared and load their tables on first Count.
func For(kind, model string) Counter {
	if kind != "openai" {
		return estimator{}
	}
	if c := openAI(model); c != nil {
		return c
	}
	return estimator{}
}

// openAI returns the encoding OpenAI uses for model, or nil if model is not an OpenAI name.
// The empty name is the provider's default model, which is an o200k one.
func openAI(model string) *bpe {
	m := strings.ToLower(strings.TrimSpace(model))
	m = strings.TrimPrefix(m, "openai/")
	m = strings.TrimPrefix(m, "ft:") // fine-tunes: ft:gpt-4o-mini:org::id
	switch {
	case m == "":
		return o200k
	case hasAnyPrefix(m, "gpt-4o", "gpt-4.", "chatgpt-"):
		return o200k
	case hasAnyPrefix(m, "gpt-4", "gpt-3.5", "gpt-35", "text-embedding-", "davinci-002", "babbage-002"):
		return cl100k
	case strings.HasPrefix(m, "gpt-"), len(m) >= 2 && m[0] == 'o' && '0' <= m[1] && m[1] <= '9':
		return o200k
	}
	return nil
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// estimator is the Counter for models without an offline tokenizer.
type estimator struct{}

func (estimator) Count(text string) int { return Estimate(text) }
