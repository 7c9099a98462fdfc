package gemini_test

import (
	"testing"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

func TestEmbed(t *testing.T) {
	llmtest.TestEmbedder(t, llmtest.EmbedderCase{
		Server: llmtest.NewGemini(t),
		New:    func(t *testing.T, url string) llm.Embedder { return newModel(t, url) },
		Model:  "gemini-embedding-001",
		Path:   "/v1beta/models/gemini-embedding-001:batchEmbedContents",
		Key:    testKey,
	})
}
