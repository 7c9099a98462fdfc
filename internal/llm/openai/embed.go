package openai

import (
	"context"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3"

	"github.com/mynah-ai/mynah/internal/llm"
)

var _ llm.Embedder = (*Model)(nil)

// Embed sends texts to the /embeddings endpoint in one call and returns their vectors
// in order. Provider failures are *llm.Error; wrap with llm.WithEmbedRetry to retry.
func (m *Model) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	// Building the service only stores options: no I/O, cheap beside the call.
	svc := openai.NewEmbeddingService(m.options()...)
	resp, err := svc.New(ctx, openai.EmbeddingNewParams{
		Model:          openai.EmbeddingModel(model),
		Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	})
	if err != nil {
		return nil, m.translate(ctx, err)
	}
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || int(d.Index) >= len(texts) || out[d.Index] != nil {
			return nil, &llm.Error{Provider: provider, Status: http.StatusBadGateway, Message: fmt.Sprintf("embedding index %d out of place", d.Index)}
		}
		v := make([]float32, len(d.Embedding))
		for i, f := range d.Embedding {
			v[i] = float32(f)
		}
		out[d.Index] = v
	}
	for i, v := range out {
		if v == nil {
			return nil, &llm.Error{Provider: provider, Status: http.StatusBadGateway, Message: fmt.Sprintf("no embedding for input %d of %d", i, len(texts))}
		}
	}
	return out, nil
}
