package main

import (
	"encoding/json"
	"testing"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

// TestTokenCalibrationIsKept: serve learns from the prompt tokens the provider reports
// for each answer, and keeps what it learned for the agent's model across a restart.
func TestTokenCalibrationIsKept(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Reply{Text: "noted", Usage: llm.Usage{InputTokens: 1234, OutputTokens: 1}}
	})
	h.start()
	h.emu.SendPrivate(alice, "hello")
	h.waitSent(alice.ID, 1)
	h.emu.SendPrivate(alice, "and again")
	h.waitSent(alice.ID, 2)
	h.stop()
	if n := calibrationObservations(t, h); n != 2 {
		t.Errorf("the saved calibration learned from %d answers, want 2", n)
	}
	h.start() // a restart goes on from what was learned
	h.emu.SendPrivate(alice, "once more")
	h.waitSent(alice.ID, 3)
	h.stop()
	if n := calibrationObservations(t, h); n != 3 {
		t.Errorf("after a restart and one more answer the calibration learned from %d, want 3", n)
	}
}

// calibrationObservations reads how many calls the saved calibration of the agent's
// model learned from.
func calibrationObservations(t *testing.T, h *harness) int {
	t.Helper()
	rows := h.query(`SELECT state FROM token_calibration WHERE agent = 'Mynah' AND model = 'openai/test-model'`)
	if len(rows) == 0 {
		t.Fatal("no token calibration saved for the agent's model")
	}
	state := rows[0][0]
	var st struct{ N int }
	if err := json.Unmarshal([]byte(state), &st); err != nil {
		t.Fatalf("saved calibration %s: %v", state, err)
	}
	return st.N
}
