// Package gcstart holds the garbage collector off while a one-off command's process
// initialises its packages (see OneShot); main turns it back on before any work.
// cmd/mynah imports it for that side effect and for OneShot.
//
// About 300 packages allocate ~3 MB in their init functions, most of it tables that stay
// live, and the heap reached the runtime's first goal (4 MB) before main: one collection
// that freed ~2 MB and cost ~4.5 ms of CPU, mostly page faults of the collector's first
// use. Median of 60 paired runs, before and after: mynah memory search over 100,000
// messages 78.4 -> 74.2 ms of CPU (faster in 43 of 60), mynah version 54.5 -> 50.0 ms
// (53 of 60), ~100 page faults fewer. A serving process keeps the collection: freed
// before main, those 2 MB are not resident for the rest of its life (mynah bench load,
// RssAnon idle 8.5 MB with it, 8.8-8.9 MB without). Go initialises a package as soon as
// it is the first in import-path order whose imports are initialised: this one imports
// only os, runtime/debug and slices, so it runs before the dependencies that allocate
// most (the provider SDKs, gRPC, OpenCensus, goldmark, modernc's libc). A GOGC in the
// environment is left alone.
package gcstart

import (
	"os"
	"runtime/debug"
	"slices"
)

// oneShot is OneShot, read from the command line before main.
var oneShot = isOneShot(os.Args[1:])

func init() {
	if oneShot && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(-1)
	}
}

// OneShot reports whether this process runs a command that is done in moments and
// allocates little (memory search, version, check, health, pair, context): it needs no
// collection while it starts, and few after.
func OneShot() bool { return oneShot }

// isOneShot reports whether args, a command line without the program, run a one-off
// command: its first words (those not starting with "-") name one.
func isOneShot(args []string) bool {
	var words []string
	for _, a := range args {
		if len(a) > 0 && a[0] != '-' {
			words = append(words, a)
		}
	}
	switch {
	case len(words) == 0:
		return false
	case slices.Contains([]string{"version", "check", "health", "pair", "context"}, words[0]):
		return true
	}
	return len(words) > 1 && words[0] == "memory" && words[1] == "search"
}
