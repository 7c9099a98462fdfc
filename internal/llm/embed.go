package llm

import "context"

// Embedder turns texts into vectors for similarity search. Implementations are safe for
// concurrent use.
type Embedder interface {
	// Embed returns one vector per text, in the order of texts, all of the model's
	// dimension. Errors from the provider are *Error values.
	Embed(ctx context.Context, model string, texts []string) ([][]float32, error)
}

// WithEmbedRetry returns an Embedder that repeats calls to e failing with a retryable
// *Error, waiting between tries as p says (see WithRetry). The last error is returned.
func WithEmbedRetry(e Embedder, p RetryPolicy) Embedder {
	return &retryingEmbedder{e: e, p: p.withDefaults()}
}

type retryingEmbedder struct {
	e Embedder
	p RetryPolicy
}

func (r *retryingEmbedder) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	for attempt := 1; ; attempt++ {
		vecs, err := r.e.Embed(ctx, model, texts)
		if err == nil {
			return vecs, nil
		}
		if !r.p.again(ctx, attempt, err) {
			return nil, err
		}
	}
}
