package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
	"github.com/mynah-ai/mynah/internal/telegram/tghtml"
)

var crashSeed = flag.Uint64("crash.seed", 0, "seed of TestCrashSafety's kill timing; 0 takes one from the clock")

// Crash test parameters. A kill can catch at most one part per chat between Telegram
// accepting it and its MarkSent commit: a lane sends a chat's next part only after that
// commit. TestCrashSafety checks that per chat and run; TestPostgresInstancesKilled, whose
// chats move between instances, bounds the average by crashLanes a fault.
const (
	crashChats    = 30
	crashKills    = 50
	crashShort    = 10 // kills with -short
	crashMinAlive = 20 * time.Millisecond
	crashMaxAlive = 600 * time.Millisecond
	crashLanes    = 8
	// crashDrain bounds the final run's catching up; it takes well under a second.
	crashDrain = 30 * time.Second
)

// TestCrashSafety checks issue 5's promise under SIGKILL. Many private chats talk to the
// real binary (emulator + instant fake provider), each sending its next message as soon as
// the whole reply to the previous one arrived, so a chat never has two unanswered messages
// and no turn is superseded. mynah serve is killed with SIGKILL at random moments (start-up
// included) and restarted at once; finally it runs until every chat got its last reply and
// is stopped cleanly. Then the emulator's view and the database must show: every user
// message stored, every reply part delivered, in order, and recorded with its Telegram
// message id; a duplicate only where a part reached Telegram and the process died before
// MarkSent committed (resent, then recorded, later); a database that passes
// integrity_check and foreign_key_check.
//
//	go test -run TestCrashSafety -v ./cmd/mynah -crash.seed=N
func TestCrashSafety(t *testing.T) {
	sqliteOnly(t, "checks the SQLite file; TestPostgresInstancesKilled is its PostgreSQL counterpart")
	kills := crashKills
	if testing.Short() {
		kills = crashShort
	}
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -crash.seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed>>32))

	h := newHarness(t, harnessOptions{})
	var unattributed atomic.Int64
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		c, n, ok := crashAsked(r)
		if !ok {
			unattributed.Add(1)
			return llmtest.Reply{Text: "which message?"}
		}
		return llmtest.Reply{Text: crashReply(c, n)}
	})
	t.Cleanup(func() {
		if h.proc != nil {
			_ = h.proc.Process.Kill()
			<-h.exited
			h.proc = nil
		}
	})

	users, stopUsers := context.WithCancel(t.Context())
	load := startCrashLoad(users, h.emu, crashChats)
	defer func() { stopUsers(); <-load.done; <-load.routed }()

	var runs []map[int64]int // after each kill: how many messages each chat had been sent
	for i := range kills {
		alive := crashMinAlive + time.Duration(rng.Int64N(int64(crashMaxAlive-crashMinAlive)))
		fmt.Fprintf(h.logs, "=== crash test: run %d, SIGKILL after %v\n", i+1, alive)
		h.spawn()
		time.Sleep(alive) // the deliberate, random kill moment; nothing waits on it
		h.killNow()
		sent := map[int64]int{}
		for c := range crashChats {
			sent[crashUser(c)] = len(h.emu.Sent(crashUser(c)))
		}
		runs = append(runs, sent)
	}
	load.stop()
	fmt.Fprintf(h.logs, "=== crash test: final run, stopped with SIGTERM\n")
	h.spawn()
	drain, cancelDrain := context.WithTimeout(t.Context(), crashDrain)
	err := load.wait(drain)
	cancelDrain()
	if err != nil {
		// Report what is lost or missing below rather than only that something is.
		t.Errorf("after the last restart, not every user got the reply to their last message within %v: %v", crashDrain, err)
		stopUsers()
		<-load.done
	}
	h.stop()
	if n := len(h.emu.Pending(telegramtest.DefaultToken)); n > 0 {
		t.Errorf("%d updates still unconfirmed after a clean stop", n)
	}

	asks := load.asks()
	r := checkCrash(t, h, asks, runs)
	t.Logf("kills: %d; chats: %d; user messages injected: %d; lost: %d; replies missing: %d (parts missing: %d); "+
		"reply parts delivered: %d; duplicate parts (sent, not recorded, resent): %d (%.1f a kill); integrity_check: %s",
		kills, crashChats, len(asks), r.lost, r.missingReplies, r.missingParts, r.parts, r.duplicates, float64(r.duplicates)/float64(kills), r.integrity)
	if n := unattributed.Load(); n > 0 {
		t.Errorf("%d model requests did not name the message they answer", n)
	}
	if r.lost > 0 || r.missingParts > 0 || r.integrity != "ok" {
		t.Errorf("crash safety broken: %d user messages lost, %d reply parts missing, integrity_check %q", r.lost, r.missingParts, r.integrity)
	}
	if strings.Contains(h.logs.String(), "WARNING: DATA RACE") {
		t.Error("the race detector reported a data race in mynah")
	}
	if v := h.emu.Violations(); len(v) > 0 {
		t.Errorf("Bot API violations: %v", v[:min(len(v), 5)])
	}
	if t.Failed() {
		t.Logf("mynah output (tail):\n%s", logTail(h.logs.String()))
	}
}

// spawn runs `mynah serve` (with args) without waiting for it to poll, so a kill can
// land anywhere, start-up included. Unlike start it registers no cleanup per run.
func (h *harness) spawn(args ...string) {
	h.t.Helper()
	h.polls, h.hooks = len(h.emu.CallsTo("getUpdates")), len(h.emu.CallsTo("setWebhook"))
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--config", h.dir}, args...)...)
	cmd.Args[0] = "mynah"
	cmd.Env = h.env
	cmd.Stdout = h.logs
	cmd.Stderr = h.logs
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.proc = cmd
	h.exited = make(chan error, 1)
	go func() { h.exited <- cmd.Wait() }()
}

// killNow sends SIGKILL and fails the test if the process had exited on its own.
func (h *harness) killNow() {
	h.t.Helper()
	_ = h.proc.Process.Signal(syscall.SIGKILL)
	err := <-h.exited
	state := h.proc.ProcessState
	h.proc = nil
	if ws, ok := state.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		h.t.Fatalf("mynah exited by itself (%v) before it was killed\n%s", err, logTail(h.logs.String()))
	}
}

// logTail is the end of mynah's output, enough to see what went wrong.
func logTail(s string) string {
	const max = 64 << 10
	if len(s) <= max {
		return s
	}
	return "…\n" + s[len(s)-max:]
}

// crashAsk is one message a user sent and the reply parts (as Telegram shows them) that
// answer it.
type crashAsk struct {
	chat  int
	n     int
	msg   telegramtest.Message
	parts []string
}

// crashLoad is the users of the crash test: one goroutine per chat, each reading what the
// bot sends it from one subscription to the emulator's events, so that waiting costs
// nothing per message already sent.
type crashLoad struct {
	emu      *telegramtest.Server
	received map[int64]chan string // texts the bot sent, by chat
	stopping chan struct{}
	stopOnce sync.Once
	done     chan struct{} // closed when every user stopped; errs is set then
	errs     []error
	routed   chan struct{} // closed when the subscription ended

	mu   sync.Mutex
	sent []crashAsk
}

// startCrashLoad starts chats users. They stop sending after stop, or at once when ctx is
// cancelled, which also ends the subscription.
func startCrashLoad(ctx context.Context, emu *telegramtest.Server, chats int) *crashLoad {
	l := &crashLoad{emu: emu, received: map[int64]chan string{}, stopping: make(chan struct{}),
		done: make(chan struct{}), routed: make(chan struct{})}
	for c := range chats {
		l.received[crashUser(c)] = make(chan string, 4096) // more than a chat ever receives
	}
	events := emu.Subscribe(ctx)
	go func() {
		defer close(l.routed)
		for ev := range events {
			if ch := l.received[ev.Message.ChatID]; ev.Kind == telegramtest.EventSent && ch != nil {
				select {
				case ch <- ev.Message.Text:
				case <-ctx.Done():
				}
			}
		}
	}()
	errs := make([]error, chats)
	var wg sync.WaitGroup
	for c := range chats {
		wg.Go(func() { errs[c] = l.chat(ctx, c) })
	}
	go func() {
		wg.Wait()
		l.errs = errs
		close(l.done)
	}()
	return l
}

// chat is one user: send message n, wait until the last part of its reply arrived, send
// n+1, until the load stops.
func (l *crashLoad) chat(ctx context.Context, c int) error {
	user := telegramtest.User{ID: crashUser(c), FirstName: "User" + strconv.Itoa(c)}
	for n := 1; ; n++ {
		select {
		case <-l.stopping:
			return nil
		default:
		}
		ask := crashAsk{chat: c, n: n, parts: crashParts(c, n)}
		ask.msg = l.emu.SendPrivate(user, fmt.Sprintf("chat %d message %d", c, n))
		l.mu.Lock()
		l.sent = append(l.sent, ask)
		l.mu.Unlock()
		if err := l.await(ctx, user.ID, ask.parts[len(ask.parts)-1]); err != nil {
			return fmt.Errorf("chat %d, reply to message %d: %w", c, n, err)
		}
	}
}

// await waits until the bot sent text to chat.
func (l *crashLoad) await(ctx context.Context, chat int64, text string) error {
	for {
		select {
		case got := <-l.received[chat]:
			if got == text {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// stop makes every user stop after the reply they are waiting for.
func (l *crashLoad) stop() { l.stopOnce.Do(func() { close(l.stopping) }) }

// wait waits until every user got the reply to their last message.
func (l *crashLoad) wait(ctx context.Context) error {
	select {
	case <-l.done:
		return errors.Join(l.errs...)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// asks returns every message the users sent, chat by chat in sending order.
func (l *crashLoad) asks() []crashAsk {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.sent)
	slices.SortStableFunc(out, func(a, b crashAsk) int { return a.chat*1_000_000 + a.n - (b.chat*1_000_000 + b.n) })
	return out
}

func crashUser(c int) int64 { return int64(60000 + c) }

var crashAskRE = regexp.MustCompile(`chat (\d+) message (\d+)`)

// crashAsked finds the message a model request answers: the last one named in a user turn.
func crashAsked(r llmtest.Recorded) (c, n int, ok bool) {
	for i := len(r.Turns) - 1; i >= 0; i-- {
		if r.Turns[i].Role != llm.User {
			continue
		}
		var text strings.Builder
		for _, p := range r.Turns[i].Parts {
			text.WriteString(p.Text)
			text.WriteString("\n")
		}
		if m := crashAskRE.FindAllStringSubmatch(text.String(), -1); len(m) > 0 {
			last := m[len(m)-1]
			c, _ = strconv.Atoi(last[1])
			n, _ = strconv.Atoi(last[2])
			return c, n, true
		}
	}
	return 0, 0, false
}

// crashReply is the answer to message n of chat c: one line, or for every fifth message
// long enough to be sent as two parts and for every tenth as three. Every paragraph names
// the message, so every part's text is unique in the chat.
func crashReply(c, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "re: chat %d message %d", c, n)
	paragraphs := 0
	switch {
	case n%10 == 0:
		paragraphs = 30
	case n%5 == 0:
		paragraphs = 16
	}
	for k := 1; k <= paragraphs; k++ {
		fmt.Fprintf(&b, "\n\nchat %d message %d, paragraph %d: %s", c, n, k, strings.Repeat("lorem ipsum dolor sit amet ", 10))
	}
	return b.String()
}

// crashParts is crashReply(c, n) as the user sees it: the texts of its parts.
func crashParts(c, n int) []string {
	var out []string
	for _, p := range tghtml.Pieces(crashReply(c, n)) {
		out = append(out, p.Plain)
	}
	return out
}

// crashResult is what the final check found.
type crashResult struct {
	lost, missingReplies, missingParts, parts, duplicates int
	integrity                                             string
}

// checkCrash compares what the users sent and what the emulator shows with the database.
// runs holds, after each kill, how many messages each chat had been sent: a run may leave
// a chat one part sent and not recorded, no more (see crashLanes).
func checkCrash(t *testing.T, h *harness, asks []crashAsk, runs []map[int64]int) crashResult {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(h.dir, "data", "mynah.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var r crashResult
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&r.integrity); err != nil {
		t.Fatal(err)
	}
	if rows := queryStrings(t, db, "PRAGMA foreign_key_check"); len(rows) > 0 {
		t.Errorf("foreign_key_check: %v", rows)
	}
	var pendingTurns, pendingParts, failedParts int
	must(t, db.QueryRow("SELECT count(*) FROM turns WHERE done_at IS NULL").Scan(&pendingTurns))
	must(t, db.QueryRow("SELECT count(*) FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL").Scan(&pendingParts))
	must(t, db.QueryRow("SELECT count(*) FROM outbox WHERE failed_at IS NOT NULL").Scan(&failedParts))
	if pendingTurns+pendingParts+failedParts > 0 {
		t.Errorf("after a clean stop: %d turns pending, %d parts pending, %d parts failed; want none", pendingTurns, pendingParts, failedParts)
	}

	byChat := map[int][]crashAsk{}
	for _, a := range asks {
		byChat[a.chat] = append(byChat[a.chat], a)
	}
	for c := range crashChats {
		chat := crashUser(c)
		chatAsks := byChat[c]

		// Inbound: every message the user sent is stored as sent.
		for _, a := range chatAsks {
			var text string
			err := db.QueryRow("SELECT text FROM messages WHERE agent = 'Mynah' AND chat_id = ? AND message_id = ? AND outgoing = 0",
				chat, a.msg.MessageID).Scan(&text)
			if err != nil || text != a.msg.Text {
				r.lost++
				t.Errorf("chat %d: message %d (%q) not stored (%v, %q)", c, a.msg.MessageID, a.msg.Text, err, text)
			}
		}

		// Each message has exactly one turn (one answer, none superseded or repeated), whose
		// parts are the reply's.
		turns := map[int64]int64{} // turn id → target
		targets := map[int64]int{}
		rows, err := db.Query("SELECT id, target FROM turns WHERE agent = 'Mynah' AND chat_id = ?", chat)
		must(t, err)
		for rows.Next() {
			var id, target int64
			must(t, rows.Scan(&id, &target))
			turns[id] = target
			targets[target]++
		}
		must(t, rows.Err())
		rows.Close()
		expect := map[int64][]string{} // target → parts
		var want []string              // every part of the chat, in order
		for _, a := range chatAsks {
			expect[int64(a.msg.MessageID)] = a.parts
			want = append(want, a.parts...)
			if n := targets[int64(a.msg.MessageID)]; n != 1 {
				t.Errorf("chat %d: message %d has %d turns, want 1", c, a.msg.MessageID, n)
			}
		}
		if len(turns) != len(chatAsks) {
			t.Errorf("chat %d: %d turns for %d messages", c, len(turns), len(chatAsks))
		}

		recorded := map[int]string{} // Telegram message id → part text, from the outbox
		rows, err = db.Query(`SELECT turn_id, key, plain, sent_at IS NOT NULL, coalesce(tg_message_id, 0)
			FROM outbox WHERE agent = 'Mynah' AND chat_id = ? ORDER BY id`, chat)
		must(t, err)
		for rows.Next() {
			var (
				turn, tgID int64
				key, plain string
				sent       bool
			)
			must(t, rows.Scan(&turn, &key, &plain, &sent, &tgID))
			parts := expect[turns[turn]]
			i, _ := strconv.Atoi(key[strings.LastIndexByte(key, '/')+1:])
			if i >= len(parts) || parts[i] != plain {
				t.Errorf("chat %d: part %s is %.40q, not a part of the reply to message %d", c, key, plain, turns[turn])
			}
			if !sent {
				continue
			}
			if _, dup := recorded[int(tgID)]; dup {
				t.Errorf("chat %d: Telegram message %d recorded for two parts", c, tgID)
			}
			recorded[int(tgID)] = plain
		}
		must(t, rows.Err())
		rows.Close()

		// Outbound, as the user sees it: every recorded part is the message Telegram shows
		// under its id; any other message from the bot is a part sent before a kill and
		// resent (then recorded) after the restart.
		var got []string // the recorded messages, in order
		seen := map[string]bool{}
		sent := h.emu.Sent(chat)
		unrecorded := map[int]int{} // run (from 0; len(runs): the last) → parts it left unrecorded
		for i, m := range sent {
			seen[m.Text] = true
			if text, ok := recorded[m.MessageID]; ok {
				if text != m.Text {
					t.Errorf("chat %d: message %d is recorded as %.40q but reads %.40q", c, m.MessageID, text, m.Text)
				}
				got = append(got, m.Text)
				continue
			}
			// The window's signature: the lane died with this part unrecorded, and after the
			// restart the chat's lane first resent it (the next message in the chat),
			// until one copy was recorded.
			r.duplicates++
			run := slices.IndexFunc(runs, func(sentBy map[int64]int) bool { return i < sentBy[chat] })
			if run < 0 {
				run = len(runs)
			}
			if unrecorded[run]++; unrecorded[run] == 2 {
				t.Errorf("chat %d: run %d left more than one part sent and not recorded: the lane sent a part before the previous one's MarkSent", c, run+1)
			}
			j := i + 1
			for j < len(sent) && sent[j].Text == m.Text && recorded[sent[j].MessageID] == "" {
				j++
			}
			if j == len(sent) || recorded[sent[j].MessageID] != m.Text {
				t.Errorf("chat %d: message %d (%.40q) was sent but not recorded, and is not followed by its resend", c, m.MessageID, m.Text)
			}
		}
		r.parts += len(got)
		for _, a := range chatAsks {
			missing := 0
			for _, p := range a.parts {
				if !seen[p] {
					missing++
				}
			}
			if missing > 0 {
				r.missingReplies++
				r.missingParts += missing
				t.Errorf("chat %d: %d of %d parts of the reply to message %d never arrived", c, missing, len(a.parts), a.msg.MessageID)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("chat %d: the recorded messages are not the reply parts in order, each once (%d recorded, want %d)", c, len(got), len(want))
		}
	}
	var outgoing, sentParts int
	must(t, db.QueryRow("SELECT count(*) FROM messages WHERE agent = 'Mynah' AND outgoing = 1").Scan(&outgoing))
	must(t, db.QueryRow("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL").Scan(&sentParts))
	if outgoing != sentParts {
		t.Errorf("%d sent parts but %d outgoing messages stored", sentParts, outgoing)
	}
	return r
}

func queryStrings(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	must(t, err)
	defer rows.Close()
	cols, err := rows.Columns()
	must(t, err)
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		must(t, rows.Scan(ptrs...))
		out = append(out, fmt.Sprint(vals...))
	}
	must(t, rows.Err())
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
