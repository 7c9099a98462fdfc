package lane_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

var (
	bot   = mynah.User{ID: 777, FirstName: "Mynah", Username: "mynah_bot", IsBot: true}
	alice = mynah.User{ID: 42, FirstName: "Alice"}
	dm    = mynah.Chat{ID: 42, Type: mynah.ChatPrivate}
)

// fakeTelegram records sends and hands out message ids.
type fakeTelegram struct {
	mu   sync.Mutex
	sent []mynah.Outgoing
	next mynah.MessageID
	fail []error // errors returned by the next sends, in order
	got  chan struct{}
}

func (f *fakeTelegram) Send(_ context.Context, o mynah.Outgoing) (mynah.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.fail) > 0 {
		err := f.fail[0]
		f.fail = f.fail[1:]
		return mynah.Message{}, err
	}
	f.next++
	f.sent = append(f.sent, o)
	select {
	case f.got <- struct{}{}:
	default:
	}
	return mynah.Message{Chat: mynah.Chat{ID: o.Chat}, ID: 1000 + f.next, Sender: bot, Text: o.Text, Time: time.Now()}, nil
}

func (f *fakeTelegram) Typing(context.Context, mynah.ChatID, int64) error { return nil }

// Sticker and React are recorded among the sends as "sticker:SET/EMOJI" and
// "react:EMOJI" (ReplyTo holding the message reacted to), so tests see one ordered list.
func (f *fakeTelegram) Sticker(ctx context.Context, chat mynah.ChatID, thread int64, set, emoji string, replyTo mynah.MessageID) (mynah.Message, error) {
	return f.Send(ctx, mynah.Outgoing{Chat: chat, ThreadID: thread, Text: "sticker:" + set + "/" + emoji, ReplyTo: replyTo})
}

func (f *fakeTelegram) React(ctx context.Context, chat mynah.ChatID, msg mynah.MessageID, emoji string) error {
	_, err := f.Send(ctx, mynah.Outgoing{Chat: chat, Text: "react:" + emoji, ReplyTo: msg})
	return err
}

func (f *fakeTelegram) Sent() []mynah.Outgoing {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]mynah.Outgoing(nil), f.sent...)
}

// fakeModel answers every call and records the requests.
type fakeModel struct {
	mu   sync.Mutex
	reqs []llm.Request
	err  error
}

func (m *fakeModel) Generate(_ context.Context, req llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	if m.err != nil {
		return nil, m.err
	}
	return &llm.Response{Text: "[meta] message_id=1 name=\"Mynah\"\nanswer", Usage: llm.Usage{InputTokens: 10, OutputTokens: 2}}, nil
}

func (m *fakeModel) Stream(ctx context.Context, req llm.Request, _ func(string)) (*llm.Response, error) {
	return m.Generate(ctx, req)
}

func (m *fakeModel) Requests() []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]llm.Request(nil), m.reqs...)
}

func accept(t *testing.T, db *sqlite.DB, update int64, id mynah.MessageID, text string, turn *mynah.Turn) {
	t.Helper()
	msg := &mynah.Message{Agent: "Mynah", Chat: dm, ID: id, Sender: alice, Text: text, Time: time.Now()}
	if _, err := db.Accept(t.Context(), "Mynah", update, mynah.Intake{Chat: dm, Users: []mynah.User{alice}, Message: msg, Turn: turn}); err != nil {
		t.Fatal(err)
	}
}

// runUntil runs the runner until n messages were sent, then stops it.
func runUntil(t *testing.T, r *lane.Runner, tg *fakeTelegram, n int) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	deadline := time.After(20 * time.Second)
	for len(tg.Sent()) < n {
		select {
		case <-tg.got:
		case <-deadline:
			t.Fatalf("only %d of %d messages sent", len(tg.Sent()), n)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func newRunner(t *testing.T, model llm.Model, tg *fakeTelegram) (*lane.Runner, *sqlite.DB) {
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	asm := prompt.NewAssembler(prompt.Agent{Name: "Mynah", Bot: bot, Budget: 10000}, db, prompt.Sources{}, nil)
	r := lane.New(lane.Agent{Name: "Mynah", Bot: bot, Model: model, ModelName: "fake/m", ModelID: "m", Apology: "sorry", Prompt: asm}, db, tg, lane.Options{})
	return r, db
}

func TestBurstGetsOneAnswer(t *testing.T) {
	model := &fakeModel{}
	tg := &fakeTelegram{got: make(chan struct{}, 1)}
	r, db := newRunner(t, model, tg)
	for i := 1; i <= 3; i++ {
		id := mynah.MessageID(i)
		accept(t, db, int64(i), id, "part "+string(rune('0'+i)), &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: id})
	}
	runUntil(t, r, tg, 1)
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls for a burst of three messages, want 1", len(reqs))
	}
	var all strings.Builder
	for _, turn := range reqs[0].Turns {
		for _, p := range turn.Parts {
			all.WriteString(p.Text + "\n")
		}
	}
	for _, want := range []string{"part 1", "part 2", "part 3", "message_id 3."} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the one answer's prompt lacks %q:\n%s", want, all.String())
		}
	}
	if sent := tg.Sent(); len(sent) != 1 || sent[0].Text != "answer" {
		t.Errorf("sent %+v, want one reply with the echoed [meta] line stripped", sent)
	}
	pending, _ := db.PendingTurns(t.Context(), "Mynah", time.Now(), 10)
	if len(pending) != 0 {
		t.Errorf("%d turns still pending", len(pending))
	}
}

// TestStaticTurnsKeepOrderAndFailuresApologise: a model failing for longer than the
// retry window gets the apology, after the window, in message order. Time is synthetic.
func TestStaticTurnsKeepOrderAndFailuresApologise(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		model := &fakeModel{err: &llm.Error{Provider: "fake", Status: 500, Message: "boom"}}
		tg := &fakeTelegram{got: make(chan struct{}, 1), fail: []error{&mynah.RetryAfterError{After: 10 * time.Millisecond}}}
		r, db := newRunner(t, model, tg)
		accept(t, db, 1, 1, "/start", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 1, Static: "welcome"})
		accept(t, db, 2, 2, "question", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 2})
		accept(t, db, 3, 3, "/help", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 3, Static: "help text"})
		stop := start(t, r)
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := texts(tg.Sent()); strings.Join(got, " | ") != "welcome" {
			t.Errorf("sent %q within the retry window, want only the welcome: the question waits, and the help after it", got)
		}
		time.Sleep(3 * time.Minute) // past the window
		synctest.Wait()
		stop()
		if got := texts(tg.Sent()); strings.Join(got, " | ") != "welcome | sorry | help text" {
			t.Errorf("sent %q, want the replies in message order with an apology for the failed call", got)
		}
		if n := len(model.Requests()); n < 2 {
			t.Errorf("%d model calls, want the question tried again within the window", n)
		}
	})
}

func TestHeldTurnWaitsAndIsReplaced(t *testing.T) {
	model := &fakeModel{}
	tg := &fakeTelegram{got: make(chan struct{}, 1)}
	r, db := newRunner(t, model, tg)
	// A part of a long paste, held back for the rest (here: far in the future).
	accept(t, db, 1, 1, strings.Repeat("long ", 800), &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 1, NotBefore: time.Now().Add(time.Hour)})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	// The rest arrives: its turn replaces the held one and runs at once.
	accept(t, db, 2, 2, "the end of the paste", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 2})
	r.Wake()
	select {
	case <-tg.got:
	case <-time.After(20 * time.Second):
		t.Fatal("the newer turn was not answered")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1 for the whole paste", len(reqs))
	}
	if pending, _ := db.PendingTurns(t.Context(), "Mynah", time.Now(), 10); len(pending) != 0 {
		t.Errorf("%d turns still pending; the held turn should have been replaced", len(pending))
	}
}
