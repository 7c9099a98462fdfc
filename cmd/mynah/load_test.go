package main

import (
	"context"
	"fmt"
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

// BenchmarkServeLoad runs the real mynah binary (built with go build, as shipped) against
// the Bot API emulator and an instant fake provider: 100 private chats × 10 messages, each
// chat sending its next message when the reply to the previous one arrived. It reports
// throughput, the latency mynah adds, CPU time per message and resident memory.
//
//	go test -run '^$' -bench ServeLoad -benchtime 1x ./cmd/mynah
func BenchmarkServeLoad(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc")
	}
	const chats, perChat = 100, 10
	bin := filepath.Join(b.TempDir(), "mynah")
	gobin, err := exec.LookPath("go")
	if err != nil {
		b.Skip("needs the go command to build the binary")
	}
	build := exec.Command(gobin, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	for i := 0; i < b.N; i++ {
		runLoad(b, bin, chats, perChat)
	}
}

func runLoad(b *testing.B, bin string, chats, perChat int) {
	emu := telegramtest.New(telegramtest.Options{BotUser: botUser})
	srv := startEmulator(b, emu)
	fake := llmtest.NewOpenAI(b)
	fake.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Reply{Text: "re: " + lastLine(r.LastUserText())}
	})
	dir := b.TempDir()
	write(b, filepath.Join(dir, "mynah.yaml"), "data_dir: data\nlog:\n  level: warn\n")
	write(b, filepath.Join(dir, "agents", "Mynah.md"), "---\ntelegram_token: ${TELEGRAM_BOT_TOKEN}\nmodel: openai/gpt-4o-mini\n---\nYou are Mynah.\n")
	args := []string{"serve", "--config", dir}
	if prof := os.Getenv("MYNAH_LOAD_CPUPROFILE"); prof != "" {
		args = append(args, "--cpuprofile", prof)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(cleanEnv(), "MYNAH_ACCESS_PRIVATE=open", "MYNAH_TELEGRAM_API_URL="+srv, "TELEGRAM_BOT_TOKEN="+telegramtest.DefaultToken,
		"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+fake.URL())
	logs := &syncBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	startCtx, stop := context.WithTimeout(ctx, 30*time.Second)
	_, err := emu.WaitCalls(startCtx, "getUpdates", 1)
	stop()
	if err != nil {
		b.Fatalf("mynah did not start: %v\n%s", err, logs.String())
	}
	time.Sleep(time.Second) // let start-up work settle before reading the idle figures
	rssIdle := rssKB(b, cmd.Process.Pid)
	anonIdle := procStatusKB(b, cmd.Process.Pid, "RssAnon:")
	cpu0 := cpuTime(b, cmd.Process.Pid)

	latencies := make([]time.Duration, 0, chats*perChat)
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, chats)
	start := time.Now()
	for c := 0; c < chats; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
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
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		b.Fatalf("%v\n%s", err, logs.String())
	}
	cpu := cpuTime(b, cmd.Process.Pid) - cpu0
	rssAfter := rssKB(b, cmd.Process.Pid)
	total := chats * perChat
	slices.Sort(latencies)
	pct := func(p float64) time.Duration { return latencies[int(float64(len(latencies)-1)*p)] }
	b.ReportMetric(float64(total)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(float64(pct(0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(pct(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(total), "cpu-ms/msg")
	b.ReportMetric(float64(rssIdle)/1024, "rss-idle-MB")
	b.ReportMetric(float64(rssAfter)/1024, "rss-after-MB")
	b.ReportMetric(float64(anonIdle)/1024, "anon-idle-MB")
	b.ReportMetric(float64(procStatusKB(b, cmd.Process.Pid, "RssAnon:"))/1024, "anon-after-MB")
	if v := emu.Violations(); len(v) > 0 {
		b.Errorf("Bot API violations: %v", v[:min(len(v), 5)])
	}
}

func startEmulator(b *testing.B, emu *telegramtest.Server) string {
	ln, err := listenLocal()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = emu.Run(ctx, ln); close(done) }()
	b.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if !strings.HasPrefix(lines[i], "[") {
			return lines[i]
		}
	}
	return ""
}

// rssKB reads the process's resident set size from /proc.
func rssKB(b *testing.B, pid int) int { return procStatusKB(b, pid, "VmRSS:") }

// procStatusKB reads one kB figure of /proc/<pid>/status.
func procStatusKB(b *testing.B, pid int, field string) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb
		}
	}
	b.Fatal("no " + field)
	return 0
}

// cpuTime reads user+system CPU time of the process from /proc/<pid>/stat.
func cpuTime(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	utime, _ := strconv.Atoi(fields[11])
	stime, _ := strconv.Atoi(fields[12])
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticks
}
