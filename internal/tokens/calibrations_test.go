package tokens

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// memStore is a Store in memory that can be made to fail.
type memStore struct {
	mu     sync.Mutex
	states map[string][]byte
	fail   error
	saves  int
}

func (m *memStore) Calibration(_ context.Context, agent, model string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.states[agent+"/"+model], nil
}

func (m *memStore) SaveCalibration(_ context.Context, agent, model string, state []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	m.saves++
	m.states[agent+"/"+model] = state
	return nil
}

// TestCalibrationsSurviveARestart: what one process learned, the next one counts with,
// saved when Run stops; a failed save is tried again; nothing new is not saved.
func TestCalibrationsSurviveARestart(t *testing.T) {
	store := &memStore{states: map[string][]byte{}}
	text := strings.Repeat("Привіт, як справи? Що нового? ", 30)
	cs := NewCalibrations(store, nil)
	c := cs.Get(t.Context(), "Mynah", "anthropic/claude-haiku-4-5")
	if cs.Get(t.Context(), "Mynah", "anthropic/claude-haiku-4-5") != c {
		t.Fatal("Get returned another calibration for the same agent and model")
	}
	var p Prompt
	c.Add(&p, text)
	p.Messages = 1
	for range 30 {
		c.Observe(p, 3*Estimate(text)) // this provider costs Cyrillic three times as much
	}
	learned := c.Count(text)

	store.fail = errors.New("disk full")
	cs.Save(t.Context())
	store.fail = nil
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := cs.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if store.saves != 1 {
		t.Fatalf("%d saves, want the failed one repeated once", store.saves)
	}
	cs.Save(t.Context())
	if store.saves != 1 {
		t.Errorf("saved again with nothing new learned")
	}

	next := NewCalibrations(store, nil).Get(t.Context(), "Mynah", "anthropic/claude-haiku-4-5")
	if got := next.Count(text); got != learned {
		t.Errorf("after a restart the text counts %d, want the learned %d", got, learned)
	}
	if other := NewCalibrations(store, nil).Get(t.Context(), "Mynah", "openai/gpt-4o-mini"); other.Count(text) != Estimate(text) {
		t.Error("another model started with this model's calibration")
	}
}
