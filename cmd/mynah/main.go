// Command mynah runs AI agents on Telegram. It is the composition root: configuration is
// parsed here and every adapter is wired to the pipeline here.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah/internal/gcstart"
)

func main() {
	tuneRuntime(os.Getenv, gcstart.OneShot())
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// gcPercent is mynah's GOGC, chosen with mynah bench load (see the README's performance
// section): mynah's live heap is small — a few MB — and the runtime's default of 100 lets
// garbage grow to as much again before collecting, so a busy process sat at twice its
// need. Since a message allocates little (the OpenAI body and stream chunks are encoded
// by hand), collecting sooner is cheap: at 70, 2 MB less anon memory under load for
// ~0.15 ms more CPU per message; at 50, 1 MB less again for twice that.
const gcPercent = 70

// tuneRuntime sets mynah's defaults for the Go runtime where the environment sets none:
// GOGC (gcPercent, or oneShotGC for a one-off command: gcstart.OneShot), which also turns
// the collector back on after a one-off command's package initialisation (see
// internal/gcstart), and heap profiling off (its sample records cost 1.5 MB of a serving
// process's memory; serve --memprofile turns it back on).
func tuneRuntime(getenv func(string) string, oneShot bool) {
	if getenv("GOGC") == "" {
		gc := gcPercent
		if oneShot {
			gc = oneShotGC
		}
		debug.SetGCPercent(gc)
	}
	runtime.MemProfileRate = 0
}

// oneShotGC is the GOGC of a one-off command (memory search, version, check…): garbage
// is collected only once the heap is five times what is live, and not before 16 MB. Such
// a command allocates a few MB, mostly package initialisation that stays live, so at
// mynah's GOGC the two collections after start freed nothing and cost ~4 ms of its ~80
// (measured with mynah memory search over 100,000 messages). A search that loads many
// vectors still collects, in step with them. It is set before the command line is
// parsed: later, the collector gcstart held off would already have started a collection
// at mynah's GOGC.
const oneShotGC = 400

// trimAfterBursts gives the heap's free pages back to the system once a burst of work is
// over, until ctx is done. Between collections the heap grows to twice what is live
// (GOGC 100) and the runtime returns the surplus only slowly, so a bot that answered a
// burst kept ~8 MB it no longer needs for minutes; after a quiet second (under 1 MB
// allocated) following a busy one, one forced collection returns it, a few milliseconds
// of CPU per burst. A process that stays busy never pays it.
func trimAfterBursts(ctx context.Context) error {
	const quiet = 1 << 20 // bytes allocated in a second that still count as quiet
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return sample[0].Value.Uint64()
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	last, busy := read(), false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		n := read()
		switch {
		case n-last > quiet:
			busy = true
		case busy:
			debug.FreeOSMemory()
			busy = false
		}
		last = n
	}
}

// run executes the command line and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := rootCommand(stdin, stdout, stderr)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		var ue usageError
		fmt.Fprintln(stderr, "mynah:", err)
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	return 0
}

// usageError marks errors in how the command was invoked.
type usageError struct{ error }

func rootCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "mynah",
		Short:         "mynah runs AI agents on Telegram",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(initCommand(), serveCommand(), storeCommand(), healthCommand(), doctorCommand(), playCommand(), checkCommand(), contextCommand(), pairCommand(),
		memoryCommand(), mediaCommand(), importCommand(), benchCommand(), versionCommand())
	return root
}

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "mynah", version)
		},
	}
}
