//go:build linux

package memory_test

import (
	"syscall"
	"time"
)

// threadCPUTime is the CPU time (user and system) the calling OS thread has used so far:
// with the goroutine locked to its thread, the CPU of what it ran alone.
func threadCPUTime() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
