package llm_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
)

// slowTranscriber answers each call after wait, failing the first ones with errs.
type slowTranscriber struct {
	wait  time.Duration
	errs  []error
	calls int
}

func (s *slowTranscriber) Transcribe(ctx context.Context, audio llm.Blob, lang string) (string, error) {
	s.calls++
	select {
	case <-time.After(s.wait):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if len(s.errs) > 0 {
		err := s.errs[0]
		s.errs = s.errs[1:]
		return "", err
	}
	return "words", nil
}

func TestWithTranscribeRetry(t *testing.T) {
	var sl sleeps
	p := llm.RetryPolicy{Sleep: sl.sleep}
	tr := &slowTranscriber{errs: []error{&llm.Error{Status: 503}, &llm.Error{Status: 429, RetryAfter: 2 * time.Second}}}
	got, err := llm.WithTranscribeRetry(tr, p).Transcribe(t.Context(), llm.Blob{}, "")
	if err != nil || got != "words" || tr.calls != 3 || len(sl.got) != 2 || sl.got[1] != 2*time.Second {
		t.Errorf("got %q, %v after %d calls and waits %v; want words after 3 calls, the second wait 2s", got, err, tr.calls, sl.got)
	}
	final := &llm.Error{Status: 400}
	tr = &slowTranscriber{errs: []error{final}}
	if _, err := llm.WithTranscribeRetry(tr, p).Transcribe(t.Context(), llm.Blob{}, ""); err != final || tr.calls != 1 {
		t.Errorf("final error: got %v after %d calls, want it after 1", err, tr.calls)
	}
}

// TestWithTranscribeDeadlines: a call with no answer ends at the total deadline with a
// retryable ErrTimeout, one that answers in time passes, and the caller's own
// cancellation stays its own.
func TestWithTranscribeDeadlines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := llm.WithTranscribeDeadlines(&slowTranscriber{wait: time.Hour}, llm.Deadlines{FirstToken: -1, Total: time.Minute})
		start := time.Now()
		_, err := d.Transcribe(t.Context(), llm.Blob{}, "")
		var le *llm.Error
		if !errors.As(err, &le) || !le.Retryable() || !errors.Is(err, llm.ErrTimeout) || time.Since(start) != time.Minute {
			t.Errorf("err = %v after %v; want a retryable ErrTimeout after 1m", err, time.Since(start))
		}
		d = llm.WithTranscribeDeadlines(&slowTranscriber{wait: 50 * time.Second}, llm.Deadlines{FirstToken: -1, Total: time.Minute})
		if got, err := d.Transcribe(t.Context(), llm.Blob{}, ""); err != nil || got != "words" {
			t.Errorf("in time: got %q, %v", got, err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_, err = d.Transcribe(ctx, llm.Blob{}, "")
		if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &le) {
			t.Errorf("err = %v; want the caller's context.DeadlineExceeded", err)
		}
	})
}
