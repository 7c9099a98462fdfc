package main

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestCalibratedTokensOnTheGroupFixture: replaying the prompt package's 50-message group
// chat, the calibrated estimate comes within 3% of the tokens OpenAI reports at the 95th
// percentile, where the estimate alone, not knowing the tool definitions and the
// provider's framing, misses by far more.
func TestCalibratedTokensOnTheGroupFixture(t *testing.T) {
	set, err := groupChat(filepath.Join("..", "..", "internal", "prompt", "testdata", "group50.json"))
	if err != nil {
		t.Fatal(err)
	}
	row := measureTokens(set, 20)
	if row.prompts < 40 || len(row.calibrated) < 20 {
		t.Fatalf("%d prompts, %d after the warm-up: the fixture should give over 40 and 20", row.prompts, len(row.calibrated))
	}
	p95 := func(v []float64) float64 { s := slices.Sorted(slices.Values(v)); return s[int(float64(len(s)-1)*0.95)] }
	t.Logf("p95 error: estimate %.2f%%, calibrated %.2f%%", 100*p95(row.estimate), 100*p95(row.calibrated))
	if got := p95(row.calibrated); got > 0.03 {
		t.Errorf("calibrated p95 error %.2f%%, want at most 3%%", 100*got)
	}
	if p95(row.estimate) <= p95(row.calibrated) {
		t.Errorf("the calibration did not improve on the estimate: p95 %.2f%% against %.2f%%", 100*p95(row.calibrated), 100*p95(row.estimate))
	}
}
