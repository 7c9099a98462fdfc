package gemini

import (
	"context"
	"fmt"
	"net/http"

	"google.golang.org/genai"

	"github.com/mynah-ai/mynah/internal/llm"
)

var _ llm.Embedder = (*Model)(nil)

// Embed sends texts in one batchEmbedContents call and returns their vectors in order.
// Provider failures are *llm.Error; wrap with llm.WithEmbedRetry to retry.
func (m *Model) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	contents := make([]*genai.Content, len(texts))
	for i, t := range texts {
		contents[i] = genai.NewContentFromText(t, genai.RoleUser)
	}
	ctx, hdr := withCapture(ctx)
	resp, err := m.client.Models.EmbedContent(ctx, model, contents, nil)
	if err != nil {
		return nil, m.translate(ctx, err, hdr)
	}
	if len(resp.Embeddings) != len(texts) {
		return nil, &llm.Error{Provider: provider, Status: http.StatusBadGateway,
			Message: fmt.Sprintf("%d embeddings for %d inputs", len(resp.Embeddings), len(texts))}
	}
	out := make([][]float32, len(texts))
	for i, e := range resp.Embeddings {
		if e == nil || len(e.Values) == 0 {
			return nil, &llm.Error{Provider: provider, Status: http.StatusBadGateway, Message: fmt.Sprintf("empty embedding for input %d", i)}
		}
		out[i] = e.Values
	}
	return out, nil
}
