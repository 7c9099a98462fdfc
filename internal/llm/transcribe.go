package llm

import "context"

// Transcriber turns speech into text. Implementations are safe for concurrent use.
type Transcriber interface {
	// Transcribe returns the text spoken in audio. lang is an ISO-639-1 hint or "".
	// Errors from the provider are *Error values.
	Transcribe(ctx context.Context, audio Blob, lang string) (string, error)
}

// WithTranscribeRetry returns a Transcriber that repeats calls to t failing with a
// retryable *Error, waiting between tries as p says (see WithRetry). The last error is
// returned. The result is safe for concurrent use if t is.
func WithTranscribeRetry(t Transcriber, p RetryPolicy) Transcriber {
	return &retryingTranscriber{t: t, p: p.withDefaults()}
}

type retryingTranscriber struct {
	t Transcriber
	p RetryPolicy
}

func (r *retryingTranscriber) Transcribe(ctx context.Context, audio Blob, lang string) (string, error) {
	for attempt := 1; ; attempt++ {
		text, err := r.t.Transcribe(ctx, audio, lang)
		if err == nil {
			return text, nil
		}
		if !r.p.again(ctx, attempt, err) {
			return "", err
		}
	}
}

// WithTranscribeDeadlines returns a Transcriber whose calls to t end as WithDeadlines'
// Generate calls do: FirstToken bounds the wait for the response headers (which come
// with the whole transcript), Total the whole call, and a call past either ends with a
// retryable *Error wrapping ErrTimeout. Wrap the adapter, then the result with
// WithTranscribeRetry. The result is safe for concurrent use if t is.
func WithTranscribeDeadlines(t Transcriber, d Deadlines) Transcriber {
	return &deadlinedTranscriber{t: t, d: d.withDefaults()}
}

type deadlinedTranscriber struct {
	t Transcriber
	d Deadlines
}

func (w *deadlinedTranscriber) Transcribe(ctx context.Context, audio Blob, lang string) (string, error) {
	return within(ctx, w.d, false, func(ctx context.Context, _ *progress) (string, error) {
		return w.t.Transcribe(ctx, audio, lang)
	})
}
