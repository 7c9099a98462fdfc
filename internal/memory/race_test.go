//go:build race

package memory_test

// raceEnabled: the race detector slows the LoCoMo check (1,986 searches over 5,882
// imported turns) and the held-out recall checks about twentyfold; CI runs them without
// -race (.ci/run).
const raceEnabled = true
