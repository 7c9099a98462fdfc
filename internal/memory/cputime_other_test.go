//go:build !unix

package memory_test

import "time"

// cpuTime is 0 where the process's CPU time is not read: BenchmarkSearch then reports no
// CPU per search.
func cpuTime() time.Duration { return 0 }
