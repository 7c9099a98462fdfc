package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// loadRun describes one load run of benchLoad.
type loadRun struct {
	Chats, Messages int
	// Delay is how long the fake model takes to answer; 0 answers at once.
	Delay time.Duration
	// Accept, when positive, is how many requests the fake provider serves at once: it
	// answers 429 to any beyond, as a provider at its rate limit does.
	Accept int
	// Debounce, when not negative, replaces the debounce init writes (0s).
	Debounce time.Duration
	// Bin is the mynah binary to measure; empty is this executable.
	Bin string
	// Env is added to the serving process's environment (GOGC=…, MYNAH_…).
	Env []string
	// CPUProfile and MemProfile, when set, are where serve writes its CPU profile and,
	// at exit, its heap profile.
	CPUProfile, MemProfile string
	// Settle is the pause after start-up before the idle figures are read.
	Settle time.Duration
}

// loadResult is what one load run measured of the serving process, from /proc.
type loadResult struct {
	Messages   int
	FirstStart time.Duration // process start to its first getUpdates, creating the database
	Start      time.Duration // the same on a restart: the database exists
	CPU        time.Duration // user+system CPU of the process during the load
	Elapsed    time.Duration // first message sent to last reply received
	P50, P99   time.Duration // message sent to its reply received
	AnonIdle   int           // RssAnon after start-up, kB
	AnonAfter  int           // RssAnon after the load, kB
	AnonQuiet  int           // RssAnon once the process was quiet for a few seconds after it, kB
	RSSIdle    int           // VmRSS after start-up, kB
	RSSAfter   int           // VmRSS after the load, kB
	RSSQuiet   int           // VmRSS once quiet, kB
	HWM        int           // VmHWM (peak VmRSS) after the load, kB
	Throttled  int           // requests the fake provider refused with 429
	// StartFaults and Faults are the minor page faults of the restart up to its first
	// getUpdates and during the load. Where a page fault is dear (a paravirtualised VM
	// here costs ~20 µs for each), they are much of start-up and of CPU per message.
	StartFaults, Faults int
}

// quietAfter is how long after the load the quiet figures are read.
const quietAfter = 3 * time.Second

func (r loadResult) cpuPerMessage() time.Duration { return r.CPU / time.Duration(r.Messages) }
func (r loadResult) throughput() float64          { return float64(r.Messages) / r.Elapsed.Seconds() }

func benchLoadCommand() *cobra.Command {
	o := loadRun{Chats: 100, Messages: 10, Settle: time.Second, Debounce: -1}
	runs := 3
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Measure serve's CPU, memory and latency under load, against an emulated Telegram",
		Long: `load runs mynah serve (this binary) as a child process on a configuration written as
mynah init --provider openai writes it (openai/gpt-4o-mini, streaming on; private chats
open), against a Bot API emulator and a fake OpenAI server inside this process, so what it
reports is what the serving process pays: --chats private chats each send --messages
messages, each one when the reply to the previous arrived; every reply must arrive in
order. Per run it reads from /proc: the time from start to the first getUpdates (on a
first start, which creates the database, and on a restart, whose process the rest is of),
CPU time per message, RssAnon and VmRSS idle (after start-up), right after the load and 3 s
later (what the process keeps between bursts), and VmHWM; and
reports throughput and the latency of each message (sent to reply received). With
several runs it prints min / median / max.

	mynah bench load                             # 100 chats × 10 messages, instant model
	mynah bench load --chats 20 --messages 5 --delay 500ms
	mynah bench load --accept 4 --delay 200ms    # a provider that serves 4 calls at once`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Chats <= 0 || o.Messages <= 0 || runs <= 0 {
				return usageError{errors.New("--chats, --messages and --runs must be positive")}
			}
			var results []loadResult
			for i := range runs {
				r, err := benchLoad(cmd.Context(), o)
				if err != nil {
					return fmt.Errorf("run %d: %w", i+1, err)
				}
				results = append(results, r)
			}
			return writeLoad(cmd.OutOrStdout(), o, results)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Chats, "chats", o.Chats, "private chats talking at once")
	f.IntVar(&o.Messages, "messages", o.Messages, "messages per chat")
	f.DurationVar(&o.Delay, "delay", 0, "how long the fake model takes per answer")
	f.IntVar(&o.Accept, "accept", 0, "calls the fake provider serves at once, answering 429 beyond (0: any)")
	f.DurationVar(&o.Debounce, "debounce", -1, "the agents' debounce instead of the one init writes")
	f.IntVar(&runs, "runs", runs, "runs, each with a fresh process and database")
	f.StringVar(&o.CPUProfile, "cpuprofile", "", "write serve's CPU profile of the last run to this file")
	f.StringVar(&o.MemProfile, "memprofile", "", "write serve's heap profile at the end of the last run to this file")
	f.StringVar(&o.Bin, "bin", "", "measure this mynah binary instead of this one (to compare builds)")
	return cmd
}

// writeLoad prints the runs' figures: one column per run, or min / median / max.
func writeLoad(w io.Writer, o loadRun, rs []loadResult) error {
	fmt.Fprintf(w, "mynah bench load: %d chats × %d messages, model delay %v", o.Chats, o.Messages, o.Delay)
	if o.Accept > 0 {
		fmt.Fprintf(w, ", provider serves %d at once", o.Accept)
	}
	if o.Debounce >= 0 {
		fmt.Fprintf(w, ", debounce %v", o.Debounce)
	}
	fmt.Fprintf(w, ", %d run(s); replies in order\n\n", len(rs))
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64) }
	mb := func(kb int) string { return strconv.FormatFloat(float64(kb)/1024, 'f', 1, 64) }
	rows := []struct {
		name string
		get  func(loadResult) float64
		show func(float64) string
	}{
		{"CPU per message (ms)", func(r loadResult) float64 { return float64(r.cpuPerMessage()) }, func(v float64) string { return ms(time.Duration(v)) }},
		{"RssAnon idle (MB)", func(r loadResult) float64 { return float64(r.AnonIdle) }, func(v float64) string { return mb(int(v)) }},
		{"RssAnon after (MB)", func(r loadResult) float64 { return float64(r.AnonAfter) }, func(v float64) string { return mb(int(v)) }},
		{"VmRSS idle (MB)", func(r loadResult) float64 { return float64(r.RSSIdle) }, func(v float64) string { return mb(int(v)) }},
		{"VmRSS after (MB)", func(r loadResult) float64 { return float64(r.RSSAfter) }, func(v float64) string { return mb(int(v)) }},
		{"RssAnon 3 s after (MB)", func(r loadResult) float64 { return float64(r.AnonQuiet) }, func(v float64) string { return mb(int(v)) }},
		{"VmRSS 3 s after (MB)", func(r loadResult) float64 { return float64(r.RSSQuiet) }, func(v float64) string { return mb(int(v)) }},
		{"VmHWM (MB)", func(r loadResult) float64 { return float64(r.HWM) }, func(v float64) string { return mb(int(v)) }},
		{"first start to getUpdates (ms)", func(r loadResult) float64 { return float64(r.FirstStart) }, func(v float64) string { return ms(time.Duration(v)) }},
		{"restart to getUpdates (ms)", func(r loadResult) float64 { return float64(r.Start) }, func(v float64) string { return ms(time.Duration(v)) }},
		{"page faults to getUpdates", func(r loadResult) float64 { return float64(r.StartFaults) }, func(v float64) string { return strconv.Itoa(int(v)) }},
		{"page faults per message", func(r loadResult) float64 { return float64(r.Faults) / float64(r.Messages) }, func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }},
		{"throughput (msg/s)", loadResult.throughput, func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }},
		{"latency p50 (ms)", func(r loadResult) float64 { return float64(r.P50) }, func(v float64) string { return ms(time.Duration(v)) }},
		{"latency p99 (ms)", func(r loadResult) float64 { return float64(r.P99) }, func(v float64) string { return ms(time.Duration(v)) }},
	}
	if o.Accept > 0 {
		rows = append(rows, struct {
			name string
			get  func(loadResult) float64
			show func(float64) string
		}{"429s from the provider", func(r loadResult) float64 { return float64(r.Throttled) }, func(v float64) string { return strconv.Itoa(int(v)) }})
	}
	head := "min\tmedian\tmax"
	if len(rs) == 1 {
		head = "run"
	}
	fmt.Fprintf(w, "%-32s %s\n", "", strings.ReplaceAll(head, "\t", "  "))
	for _, row := range rows {
		vs := make([]float64, len(rs))
		for i, r := range rs {
			vs[i] = row.get(r)
		}
		slices.Sort(vs)
		if len(vs) == 1 {
			fmt.Fprintf(w, "%-32s %s\n", row.name, row.show(vs[0]))
			continue
		}
		fmt.Fprintf(w, "%-32s %s / %s / %s\n", row.name, row.show(vs[0]), row.show(vs[len(vs)/2]), row.show(vs[len(vs)-1]))
	}
	return nil
}

// benchLoad measures one run: a fresh serve process, data dir and emulator.
func benchLoad(ctx context.Context, o loadRun) (loadResult, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	bin := o.Bin
	if bin == "" {
		var err error
		if bin, err = os.Executable(); err != nil {
			return loadResult{}, err
		}
	}
	dir, err := os.MkdirTemp("", "mynah-load-")
	if err != nil {
		return loadResult{}, err
	}
	defer os.RemoveAll(dir)
	if err := writeConfig(dir, initData{Name: "Mynah", Model: "openai/gpt-4o-mini"}); err != nil {
		return loadResult{}, err
	}
	if o.Debounce >= 0 {
		if err := setDebounce(filepath.Join(dir, "mynah.yaml"), o.Debounce); err != nil {
			return loadResult{}, err
		}
	}

	telegramtest.LoadSpec() // before the first start, which is timed to its first getUpdates
	emu := telegramtest.New(telegramtest.Options{BotUser: telegramtest.BotUser{ID: 7000001, FirstName: "Mynah", Username: "mynah_bot"}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return loadResult{}, err
	}
	emuCtx, stopEmu := context.WithCancel(context.WithoutCancel(ctx))
	emuDone := make(chan struct{})
	go func() { _ = emu.Run(emuCtx, ln); close(emuDone) }()
	defer func() { stopEmu(); <-emuDone }()
	model, err := startFakeOpenAI(o.Delay, o.Accept)
	if err != nil {
		return loadResult{}, err
	}
	defer model.Close()

	env := append(loadEnv(), "MYNAH_ACCESS_PRIVATE=open", "MYNAH_TELEGRAM_API_URL=http://"+ln.Addr().String(),
		"TELEGRAM_BOT_TOKEN="+telegramtest.DefaultToken, "OPENAI_API_KEY=sk-load", "OPENAI_BASE_URL="+model.URL)
	env = append(env, o.Env...)
	logs := &tailBuffer{max: 64 << 10}
	fail := func(err error) (loadResult, error) {
		return loadResult{}, fmt.Errorf("%w\nserve's output (tail):\n%s", err, logs.String())
	}
	// The first start creates the database; the process is then stopped and started again,
	// as a restart finds it, and that process is measured.
	first, err := startServe(ctx, bin, dir, env, nil, logs, emu, 1)
	if err != nil {
		return fail(err)
	}
	if err := first.stop(); err != nil {
		return fail(fmt.Errorf("stopping the first process: %w", err))
	}
	var profiles []string
	if o.CPUProfile != "" {
		profiles = append(profiles, "--cpuprofile", o.CPUProfile)
	}
	if o.MemProfile != "" {
		profiles = append(profiles, "--memprofile", o.MemProfile)
	}
	proc, err := startServe(ctx, bin, dir, env, profiles, logs, emu, len(emu.CallsTo("getUpdates"))+1)
	if err != nil {
		return fail(err)
	}
	defer func() { _ = proc.stop() }()
	res := loadResult{Messages: o.Chats * o.Messages, FirstStart: first.start, Start: proc.start, StartFaults: proc.faults}
	pid := proc.cmd.Process.Pid
	time.Sleep(o.Settle) // start-up work (menus, key checks) settles before the idle figures
	idle, err := readProc(pid)
	if err != nil {
		return fail(err)
	}
	res.AnonIdle, res.RSSIdle = idle.anon, idle.rss

	latencies, elapsed, err := driveLoad(ctx, emu, o.Chats, o.Messages)
	if err != nil {
		return fail(err)
	}
	after, err := readProc(pid)
	if err != nil {
		return fail(err)
	}
	res.CPU, res.Elapsed, res.Faults = after.cpu-idle.cpu, elapsed, after.minflt-idle.minflt
	res.AnonAfter, res.RSSAfter, res.HWM = after.anon, after.rss, after.hwm
	time.Sleep(quietAfter) // what the process keeps between bursts (see trimAfterBursts)
	quiet, err := readProc(pid)
	if err != nil {
		return fail(err)
	}
	res.AnonQuiet, res.RSSQuiet = quiet.anon, quiet.rss
	slices.Sort(latencies)
	pct := func(p float64) time.Duration { return latencies[int(float64(len(latencies)-1)*p)] }
	res.P50, res.P99 = pct(0.50), pct(0.99)
	res.Throttled = model.Throttled()
	if v := emu.Violations(); len(v) > 0 {
		return fail(fmt.Errorf("the emulator saw requests outside the Bot API spec: %v", v[:min(len(v), 5)]))
	}
	return res, nil
}

// serveProcess is a running mynah serve.
type serveProcess struct {
	cmd    *exec.Cmd
	exited chan struct{}
	start  time.Duration // process start to its first getUpdates
	faults int           // minor page faults by then (read just after)
}

// startServe starts mynah serve on the configuration in dir and waits until it asks for
// updates: until the emulator has seen polls getUpdates calls in all.
func startServe(ctx context.Context, bin, dir string, env, extra []string, logs io.Writer, emu *telegramtest.Server, polls int) (*serveProcess, error) {
	cmd := exec.Command(bin, append([]string{"serve", "--config", dir}, extra...)...)
	cmd.Args[0] = "mynah" // what a test binary standing in for mynah answers to
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logs, logs
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &serveProcess{cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	startCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	calls, err := emu.WaitCalls(startCtx, "getUpdates", polls)
	if err != nil {
		_ = p.stop()
		return nil, fmt.Errorf("mynah did not start: %w", err)
	}
	p.start = calls[polls-1].Time.Sub(started)
	if f, err := readProc(cmd.Process.Pid); err == nil {
		p.faults = f.minflt
	}
	return p, nil
}

// stop ends the process with SIGTERM, killing it if it does not exit within 30 s.
func (p *serveProcess) stop() error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return nil
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
		return errors.New("it did not stop within 30 s of SIGTERM")
	}
}

// setDebounce rewrites the defaults' debounce of the mynah.yaml at path.
func setDebounce(path string, d time.Duration) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	re := regexp.MustCompile(`(?m)^  debounce: .*$`)
	if !re.Match(data) {
		return fmt.Errorf("%s: no debounce setting to replace", path)
	}
	return os.WriteFile(path, re.ReplaceAll(data, []byte("  debounce: "+d.String())), 0o644)
}

// loadEnv is this process's environment without what would point serve elsewhere
// (provider keys and URLs, mynah's own settings, a bot token).
func loadEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(name, "_API_KEY") || strings.HasSuffix(name, "_BASE_URL") || strings.HasPrefix(name, "MYNAH_") || name == "TELEGRAM_BOT_TOKEN" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// driveLoad runs the users: each of chats private chats sends message m when the reply to
// m-1 arrived, and checks that the reply answers m. It returns every message's latency
// and the time from the first message to the last reply.
func driveLoad(ctx context.Context, emu *telegramtest.Server, chats, messages int) ([]time.Duration, time.Duration, error) {
	sub, stop := context.WithCancel(ctx)
	defer stop()
	inbox := map[int64]chan string{}
	for c := range chats {
		inbox[loadUser(c)] = make(chan string, messages+16)
	}
	events := emu.Subscribe(sub)
	routed := make(chan struct{})
	go func() {
		defer close(routed)
		for ev := range events {
			if ch := inbox[ev.Message.ChatID]; ev.Kind == telegramtest.EventSent && ch != nil {
				select {
				case ch <- ev.Message.Text:
				default: // more messages than asked for: the check below fails on order
				}
			}
		}
	}()
	defer func() { stop(); <-routed }()

	var (
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, chats*messages)
		wg        sync.WaitGroup
		errs      = make([]error, chats)
	)
	deadline, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	start := time.Now()
	for c := range chats {
		wg.Go(func() {
			user := telegramtest.User{ID: loadUser(c), FirstName: "User" + strconv.Itoa(c)}
			for m := 1; m <= messages; m++ {
				text := fmt.Sprintf("chat %d message %d", c, m)
				t0 := time.Now()
				emu.SendPrivate(user, text)
				select {
				case got := <-inbox[user.ID]:
					if want := "re: " + text; got != want {
						errs[c] = fmt.Errorf("chat %d: reply %d is %q, want %q (out of order?)", c, m, got, want)
						return
					}
				case <-deadline.Done():
					errs[c] = fmt.Errorf("chat %d: no reply to message %d: %w", c, m, deadline.Err())
					return
				}
				d := time.Since(t0)
				mu.Lock()
				latencies = append(latencies, d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return nil, 0, err
	}
	return latencies, elapsed, nil
}

func loadUser(c int) int64 { return int64(50000 + c) }

// procFigures are a process's CPU time and memory, from /proc.
type procFigures struct {
	cpu            time.Duration
	anon, rss, hwm int // kB
	minflt         int // minor page faults
}

// readProc reads pid's user+system CPU time (all threads) and its RssAnon, VmRSS and
// VmHWM.
func readProc(pid int) (procFigures, error) {
	var f procFigures
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return f, err
	}
	// Fields after the command name, which may hold spaces: state is field 3, utime 14.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	if len(fields) < 13 {
		return f, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	f.minflt, _ = strconv.Atoi(fields[7])
	utime, _ := strconv.Atoi(fields[11])
	stime, _ := strconv.Atoi(fields[12])
	const ticks = 100 // USER_HZ on Linux
	f.cpu = time.Duration(utime+stime) * time.Second / ticks
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return f, err
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		switch name {
		case "RssAnon":
			f.anon = kb
		case "VmRSS":
			f.rss = kb
		case "VmHWM":
			f.hwm = kb
		}
	}
	return f, nil
}

// tailBuffer keeps the last max bytes written to it. Safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
