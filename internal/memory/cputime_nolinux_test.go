//go:build !linux

package memory_test

import "time"

// threadCPUTime is 0 where a thread's CPU time is not read: BenchmarkSearchWrites then
// reports no CPU per search.
func threadCPUTime() time.Duration { return 0 }
