package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// BenchmarkServeLoadStores is BenchmarkServeLoad (100 private chats × 10 messages, the
// real binary, an instant fake provider) side by side on SQLite, on PostgreSQL with one
// instance, and on PostgreSQL with three instances sharing the database, with no
// debounce. cpu-ms/msg is
// mynah's CPU; pg-cpu-ms/msg is the PostgreSQL server's, read from its processes.
//
//	go test -run '^$' -bench ServeLoadStores -benchtime 1x ./cmd/mynah
//	MYNAH_LOAD_BIN=/tmp/old-mynah go test -run '^$' -bench ServeLoadStores/postgres -benchtime 1x ./cmd/mynah
func BenchmarkServeLoadStores(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc")
	}
	// MYNAH_LOAD_BIN measures another build (to compare two, alternating runs).
	bin := os.Getenv("MYNAH_LOAD_BIN")
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "mynah")
		gobin, err := exec.LookPath("go")
		if err != nil {
			b.Skip("needs the go command to build the binary")
		}
		build := exec.Command(gobin, "build", "-o", bin, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	for _, c := range []struct {
		name      string
		postgres  bool
		instances int
	}{{"sqlite", false, 1}, {"postgres-1", true, 1}, {"postgres-3", true, 3}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				store := ""
				if c.postgres {
					store = testPostgres(b)
				}
				runStoreLoad(b, bin, store, c.instances, 100, 10)
			}
		})
	}
}

func runStoreLoad(b *testing.B, bin, store string, instances, chats, perChat int) {
	emu := telegramtest.New(telegramtest.Options{BotUser: botUser})
	srv := startEmulator(b, emu)
	fake := llmtest.NewOpenAI(b)
	fake.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Reply{Text: "re: " + lastLine(r.LastUserText())}
	})
	dir := b.TempDir()
	yaml := "data_dir: data\nlog:\n  level: warn\n"
	if store != "" {
		yaml += "store: " + store + "\n"
	}
	write(b, filepath.Join(dir, "mynah.yaml"), yaml)
	// No debounce: a closed loop of 100 chats would otherwise wait 300 ms a message and
	// measure the debounce, not the store.
	write(b, filepath.Join(dir, "agents", "Mynah.md"), "---\ntelegram_token: ${TELEGRAM_BOT_TOKEN}\nmodel: openai/gpt-4o-mini\ndebounce: 0s\n---\nYou are Mynah.\n")
	logs := &syncBuffer{}
	var procs []*exec.Cmd
	for range instances {
		cmd := exec.Command(bin, "serve", "--config", dir)
		cmd.Env = append(loadEnv(), "MYNAH_ACCESS_PRIVATE=open", "MYNAH_TELEGRAM_API_URL="+srv, "TELEGRAM_BOT_TOKEN="+telegramtest.DefaultToken,
			"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+fake.URL())
		cmd.Stderr = logs
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	defer func() {
		for _, cmd := range procs {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	startCtx, stop := context.WithTimeout(ctx, 30*time.Second)
	_, err := emu.WaitCalls(startCtx, "getUpdates", 1)
	stop()
	if err != nil {
		b.Fatalf("mynah did not start: %v\n%s", err, logs.String())
	}
	time.Sleep(2 * time.Second) // let start-up work settle
	mynahCPU := func() time.Duration {
		var d time.Duration
		for _, cmd := range procs {
			d += cpuTime(b, cmd.Process.Pid)
		}
		return d
	}
	cpu0, pg0 := mynahCPU(), postgresCPU()

	latencies := make([]time.Duration, 0, chats*perChat)
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, chats)
	start := time.Now()
	for c := range chats {
		wg.Go(func() {
			user := telegramtest.User{ID: int64(50000 + c), FirstName: "User" + strconv.Itoa(c)}
			for m := 1; m <= perChat; m++ {
				t0 := time.Now()
				emu.SendPrivate(user, fmt.Sprintf("chat %d message %d", c, m))
				sent, err := emu.WaitSent(ctx, user.ID, m)
				if err != nil {
					errs <- fmt.Errorf("chat %d message %d: %w", c, m, err)
					return
				}
				d := time.Since(t0)
				if want := fmt.Sprintf("re: chat %d message %d", c, m); sent[m-1].Text != want {
					errs <- fmt.Errorf("chat %d: reply %d is %q, want %q (out of order?)", c, m, sent[m-1].Text, want)
					return
				}
				mu.Lock()
				latencies = append(latencies, d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		b.Fatalf("%v\n%s", err, logs.String())
	}
	cpu, pg := mynahCPU()-cpu0, postgresCPU()-pg0
	total := chats * perChat
	slices.Sort(latencies)
	pct := func(p float64) time.Duration { return latencies[int(float64(len(latencies)-1)*p)] }
	b.ReportMetric(float64(total)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(float64(pct(0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(pct(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(total), "cpu-ms/msg")
	b.ReportMetric(float64(pg.Microseconds())/1000/float64(total), "pg-cpu-ms/msg")
	if v := emu.Violations(); len(v) > 0 {
		b.Errorf("Bot API violations: %v", v[:min(len(v), 5)])
	}
}

// postgresCPU is the CPU time of the PostgreSQL server's processes on this machine, 0
// when none can be read.
func postgresCPU() time.Duration {
	entries, _ := os.ReadDir("/proc")
	var total time.Duration
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || !strings.Contains(string(data), "(postgres)") {
			continue
		}
		fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
		utime, _ := strconv.Atoi(fields[11])
		stime, _ := strconv.Atoi(fields[12])
		total += time.Duration(utime+stime) * time.Second / 100
	}
	return total
}

// startEmulator serves emu on a local port until the benchmark ends and returns its URL.
func startEmulator(b *testing.B, emu *telegramtest.Server) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = emu.Run(ctx, ln); close(done) }()
	b.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

// lastLine is the last line of s that is not a bracketed header: the user's own text.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if !strings.HasPrefix(lines[i], "[") {
			return lines[i]
		}
	}
	return ""
}
