//go:build race

package memory_test

// raceEnabled: the race detector slows the LoCoMo check (1,986 searches over 5,882
// imported turns) about twentyfold; CI runs it once more without -race (.ci/run).
const raceEnabled = true
