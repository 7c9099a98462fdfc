package openai_test

import (
	"testing"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

func TestEmbed(t *testing.T) {
	llmtest.TestEmbedder(t, llmtest.EmbedderCase{
		Server: llmtest.NewOpenAI(t),
		New:    func(t *testing.T, url string) llm.Embedder { return newModel(t, url) },
		Model:  "text-embedding-3-small",
		Path:   "/v1/embeddings",
		Key:    testKey,
	})
}
