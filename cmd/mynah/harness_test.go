package main

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for the tests' own reads

	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/postgres"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// harness runs the real mynah binary (this test binary re-executed as "mynah", see
// TestMain) against the Bot API emulator and a fake provider over real HTTP.
type harness struct {
	t        testing.TB
	emu      *telegramtest.Server
	llm      *llmtest.Server
	provider string
	dir      string
	env      []string
	proc     *exec.Cmd
	logs     *syncBuffer
	exited   chan error
	// polls and hooks are the emulator's getUpdates and setWebhook calls before the last
	// spawn (see waitStarted).
	polls, hooks int
	pg           string // the PostgreSQL database of store:, when the harness runs on one
}

var botUser = telegramtest.BotUser{ID: 7000001, FirstName: "Mynah", Username: "mynah_bot", CanReadAllGroupMessages: true}

type harnessOptions struct {
	Provider string // openai (default), anthropic, gemini
	YAML     string // extra mynah.yaml content
	Front    string // extra agent front matter
	Model    string // the agent's model key; default <provider>/test-model
	// Access is the agent's access front matter (a YAML flow mapping), e.g. "{}" for the
	// defaults (private: pairing, groups once approved). Empty runs every agent with
	// MYNAH_ACCESS_PRIVATE=open and MYNAH_ACCESS_GROUPS_ALLOW=*, so that tests about
	// something else chat freely, whatever files they write.
	Access string
}

func newHarness(t testing.TB, o harnessOptions) *harness {
	t.Helper()
	if o.Provider == "" {
		o.Provider = "openai"
	}
	h := &harness{t: t, provider: o.Provider, dir: t.TempDir(), logs: &syncBuffer{}}
	if onPostgres() && !strings.Contains(o.YAML, "store:") {
		o.YAML = "store: " + testPostgres(t) + "\n" + o.YAML
	}
	if _, dsn, ok := strings.Cut(o.YAML, "store: "); ok && postgres.IsURL(dsn) {
		h.pg, _, _ = strings.Cut(dsn, "\n")
	}
	h.emu = telegramtest.Start(t, telegramtest.Options{BotUser: botUser})
	switch o.Provider {
	case "openai":
		h.llm = llmtest.NewOpenAI(t)
	case "anthropic":
		h.llm = llmtest.NewAnthropic(t)
	case "gemini":
		h.llm = llmtest.NewGemini(t)
	}
	write(t, filepath.Join(h.dir, "mynah.yaml"), "data_dir: data\nshutdown_timeout: 10s\nlog:\n  level: debug\n"+o.YAML)
	access := ""
	if o.Access != "" {
		access = "access: " + o.Access + "\n"
	}
	write(t, filepath.Join(h.dir, "agents", "Mynah.md"), fmt.Sprintf(`---
telegram_token: ${TELEGRAM_BOT_TOKEN}
model: %s
roles: [Friendly]
names: [Mynah, Майна]
%s%s---
You are {botname}, talking in {chatname}.
`, cmp.Or(o.Model, o.Provider+"/test-model"), access, o.Front))
	write(t, filepath.Join(h.dir, "prompts", "Friendly.md"), "Be friendly.")
	h.env = append(loadEnv(),
		"MYNAH_TELEGRAM_API_URL="+h.emu.URL(),
		"TELEGRAM_BOT_TOKEN="+telegramtest.DefaultToken,
		"OPENAI_API_KEY=sk-test-openai", "OPENAI_BASE_URL="+h.llm.URL(),
		"ANTHROPIC_API_KEY=sk-test-anthropic", "ANTHROPIC_BASE_URL="+h.llm.URL(),
		"GEMINI_API_KEY=test-gemini", "GOOGLE_GEMINI_BASE_URL="+h.llm.URL(),
	)
	if o.Access == "" {
		h.env = append(h.env, "MYNAH_ACCESS_PRIVATE=open", "MYNAH_ACCESS_GROUPS_ALLOW=*")
	}
	return h
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// onPostgres reports whether the end-to-end tests run on PostgreSQL: with
// MYNAH_E2E_STORE=postgres every harness serves from a schema of its own on the server of
// MYNAH_TEST_POSTGRES instead of a SQLite file.
func onPostgres() bool { return os.Getenv("MYNAH_E2E_STORE") == "postgres" }

// sqliteOnly skips a test that checks what only the SQLite store does, when the
// end-to-end tests run on PostgreSQL.
func sqliteOnly(t testing.TB, why string) {
	t.Helper()
	if onPostgres() {
		t.Skip("SQLite store only: " + why)
	}
}

// query runs a read of the test's own on the harness's database, the SQLite file or the
// PostgreSQL schema, and returns its rows as text (NULL as "<nil>"). Its placeholders are
// ?, and booleans compare as = 1 on both stores.
func (h *harness) query(q string, args ...any) [][]string {
	h.t.Helper()
	// A busy timeout, as mynah's own connections have: a read right after a SIGKILL meets
	// the restarted mynah recovering the WAL (SQLITE_BUSY_RECOVERY) and must wait for it.
	driver, dsn := "sqlite", filepath.Join(h.dir, "data", "mynah.db")+"?_pragma=busy_timeout(10000)"
	if h.pg != "" {
		driver, dsn = "pgx", h.pg
		n := 0
		q = regexp.MustCompile(`\?`).ReplaceAllStringFunc(q, func(string) string { n++; return "$" + strconv.Itoa(n) })
		q = pgBooleans.ReplaceAllString(q, "$1::int = $2")
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		h.t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(q, args...)
	if err != nil {
		h.t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			h.t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			row[i] = fmt.Sprint(v)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		h.t.Fatal(err)
	}
	return out
}

// pgBooleans are comparisons of the columns PostgreSQL stores as booleans, SQLite as 0/1.
var pgBooleans = regexp.MustCompile(`\b(active|closing|sender_is_bot|outgoing|blocked|stopped|is_bot|is_forum) = ([01])\b`)

// start runs `mynah serve` and waits until it polls (or, in webhook mode, registered the webhook).
func (h *harness) start(args ...string) {
	h.t.Helper()
	h.spawn(args...)
	h.t.Cleanup(func() {
		if h.proc != nil {
			_ = h.proc.Process.Kill()
			<-h.exited
			h.proc = nil // the cleanup of an earlier start must not wait for it again
		}
		if h.t.Failed() {
			h.t.Logf("mynah output:\n%s", h.logs.String())
		}
	})
	h.waitStarted()
}

// waitStarted waits until the mynah spawn started last polls Telegram or sets its
// webhook: it serves, and handles SIGTERM (before, the signal ends it as it would any
// process). It fails the test if mynah exits or takes longer than 30 s.
func (h *harness) waitStarted() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.t.Context(), 30*time.Second)
	defer cancel()
	started := make(chan error, 1)
	go func() {
		if _, err := h.emu.WaitCalls(ctx, "getUpdates", h.polls+1); err == nil {
			started <- nil
		}
	}()
	go func() {
		if _, err := h.emu.WaitCalls(ctx, "setWebhook", h.hooks+1); err == nil {
			started <- nil
		}
	}()
	select {
	case <-started:
	case err := <-h.exited:
		h.proc = nil
		h.t.Fatalf("mynah exited at start: %v\n%s", err, h.logs.String())
	case <-ctx.Done():
		h.t.Fatalf("mynah did not start:\n%s", h.logs.String())
	}
}

// stop sends SIGTERM and expects a clean exit.
func (h *harness) stop() {
	h.t.Helper()
	if err := h.proc.Process.Signal(syscall.SIGTERM); err != nil {
		h.t.Fatal(err)
	}
	select {
	case err := <-h.exited:
		h.proc = nil
		if err != nil {
			h.t.Fatalf("mynah exited with %v after SIGTERM\n%s", err, h.logs.String())
		}
	case <-time.After(30 * time.Second):
		h.t.Fatalf("mynah did not stop within 30s of SIGTERM\n%s", h.logs.String())
	}
	h.checkNoSecrets()
}

// checkNoSecrets fails the test if a bot token or API key appears in mynah's output.
func (h *harness) checkNoSecrets() {
	h.t.Helper()
	logs := h.logs.String()
	for _, kv := range h.env {
		name, value, _ := strings.Cut(kv, "=")
		if (strings.HasSuffix(name, "_API_KEY") || strings.HasSuffix(name, "TOKEN")) && value != "" && strings.Contains(logs, value) {
			h.t.Errorf("the secret in %s appears in mynah's logs", name)
		}
		if name == "TELEGRAM_BOT_TOKEN" && strings.Contains(logs, strings.SplitN(value, ":", 2)[1]) {
			h.t.Errorf("part of the bot token appears in mynah's logs")
		}
	}
}

// waitSent waits until chat has n messages from the bot.
func (h *harness) waitSent(chat int64, n int) []telegramtest.SentMessage {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.t.Context(), 30*time.Second)
	defer cancel()
	sent, err := h.emu.WaitSent(ctx, chat, n)
	if err != nil {
		h.t.Fatalf("waiting for %d messages in chat %d: %v (have %d)\n%s", n, chat, err, len(h.emu.Sent(chat)), h.logs.String())
	}
	return sent
}

// waitLog waits until mynah's output contains s: the output reaches the test through a
// pipe, so a line written before a reply was sent may arrive after it.
func (h *harness) waitLog(s string) bool {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.t.Context(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(h.logs.String(), s) {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}

// waitRequests waits until the provider received n requests.
func (h *harness) waitRequests(n int) []llmtest.Recorded {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.t.Context(), 30*time.Second)
	defer cancel()
	reqs, err := h.llm.WaitRequests(ctx, n)
	if err != nil {
		h.t.Fatalf("waiting for %d provider requests: %v\n%s", n, err, h.logs.String())
	}
	return reqs
}

// requestText flattens a recorded request's turns for substring checks.
func requestText(r llmtest.Recorded) string {
	var b strings.Builder
	for _, turn := range r.Turns {
		fmt.Fprintf(&b, "<%s>\n", turn.Role)
		for _, p := range turn.Parts {
			b.WriteString(p.Text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// syncBuffer collects the child's output safely.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
