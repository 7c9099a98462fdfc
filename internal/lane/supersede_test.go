package lane_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
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
	"github.com/mynah-ai/mynah/internal/tool"
)

// gateModel holds every call until the test releases it (or the call is cancelled),
// streaming partial first when set; it records each call's prompt and how it ended.
type gateModel struct {
	release chan struct{}
	partial string
	// tool, when set, is a tool the model calls at once in the first call of each turn
	// (a request not ending with tool results); the call after its result is held.
	tool string

	mu    sync.Mutex
	calls []gateCall
}

type gateCall struct {
	prompt    string
	cancelled bool
}

func (m *gateModel) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	return m.Stream(ctx, req, nil)
}

func (m *gateModel) Stream(ctx context.Context, req llm.Request, onText func(string)) (*llm.Response, error) {
	var b strings.Builder
	for _, turn := range req.Turns {
		for _, p := range turn.Parts {
			b.WriteString(p.Text + "\n")
		}
	}
	m.mu.Lock()
	m.calls = append(m.calls, gateCall{prompt: b.String()})
	n := len(m.calls)
	m.mu.Unlock()
	if last := req.Turns[len(req.Turns)-1]; m.tool != "" && last.Role != llm.ToolRole {
		return &llm.Response{ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("c%d", n), Name: m.tool, Arguments: json.RawMessage(`{}`)}}, Usage: gateUsage}, nil
	}
	if m.partial != "" && onText != nil {
		onText(m.partial)
	}
	select {
	case <-m.release:
		return &llm.Response{Text: fmt.Sprintf("reply %d", n), Usage: gateUsage}, nil
	case <-ctx.Done():
		m.mu.Lock()
		m.calls[n-1].cancelled = true
		m.mu.Unlock()
		return nil, ctx.Err()
	}
}

// gateUsage is what each answered call of a gateModel uses.
var gateUsage = llm.Usage{InputTokens: 100, OutputTokens: 7}

func (m *gateModel) Calls() []gateCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]gateCall(nil), m.calls...)
}

// draftTelegram is a fakeTelegram that shows drafts, recording their texts.
type draftTelegram struct {
	*fakeTelegram
	mu     sync.Mutex
	drafts []string
}

func (d *draftTelegram) Draft(_ context.Context, _ mynah.ChatID, _ int64, _ int, text string, _ bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.drafts = append(d.drafts, text)
	return nil
}

// supersedeRig runs a runner over a gateModel as ingest would feed it: each message is
// stored with its turn, and the runner is told of the turn (Queued).
type supersedeRig struct {
	t      *testing.T
	db     *sqlite.DB
	path   string
	r      *lane.Runner
	model  *gateModel
	tg     *fakeTelegram
	update int64
	stop   func()
}

func newSupersedeRig(t *testing.T, model *gateModel, tg lane.Telegram, stream bool, tools ...tool.Tool) *supersedeRig {
	path := t.TempDir() + "/s.db"
	db, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	asm := prompt.NewAssembler(prompt.Agent{Name: "Mynah", Bot: bot, Budget: 10000}, db, prompt.Sources{}, nil)
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	r := lane.New(lane.Agent{Name: "Mynah", Bot: bot, Model: model, ModelName: "fake/m", ModelID: "m", Prompt: asm, Stream: stream, Tools: reg},
		db, tg, lane.Options{})
	rig := &supersedeRig{t: t, db: db, path: path, r: r, model: model}
	switch tg := tg.(type) {
	case *fakeTelegram:
		rig.tg = tg
	case *draftTelegram:
		rig.tg = tg.fakeTelegram
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	rig.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	return rig
}

// usage returns how many model calls the store recorded usage of, and their input tokens.
func (s *supersedeRig) usage() (calls, input int) {
	s.t.Helper()
	db, err := sql.Open("sqlite", s.path)
	if err != nil {
		s.t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT count(*), coalesce(sum(input_tokens), 0) FROM usage`).Scan(&calls, &input); err != nil {
		s.t.Fatal(err)
	}
	return calls, input
}

// send stores a message of sender in chat and queues its turn, as ingest does.
func (s *supersedeRig) send(chat mynah.Chat, sender mynah.User, id mynah.MessageID, text string) {
	s.t.Helper()
	s.update++
	msg := &mynah.Message{Agent: "Mynah", Chat: chat, ID: id, Sender: sender, Text: text, Time: time.Now()}
	turn := &mynah.Turn{Agent: "Mynah", Chat: chat.ID, Target: id, Sender: sender.ID, Created: time.Now()}
	if chat.IsGroup() {
		turn.ReplyTo = id
	}
	if _, err := s.db.Accept(s.t.Context(), "Mynah", s.update, mynah.Intake{Chat: chat, Users: []mynah.User{sender}, Message: msg, Turn: turn}); err != nil {
		s.t.Fatal(err)
	}
	s.r.Queued(*turn)
	synctest.Wait()
}

// answer lets the model call under way answer.
func (s *supersedeRig) answer() {
	s.t.Helper()
	select {
	case s.model.release <- struct{}{}:
	case <-time.After(time.Minute):
		s.t.Fatalf("no model call waits to be answered; calls so far: %+v", s.model.Calls())
	}
	synctest.Wait()
}

func (s *supersedeRig) pending() int {
	s.t.Helper()
	ts, err := s.db.PendingTurns(s.t.Context(), "Mynah", time.Now(), 10)
	if err != nil {
		s.t.Fatal(err)
	}
	return len(ts)
}

// TestNewerMessageReplacesUnansweredTurn: a second message of the same user, arriving
// while the model is still writing the answer to the first and nothing of it shows,
// cancels that call; one reply comes, from a call that saw both messages, and both
// turns are finished. Time is synthetic.
func TestNewerMessageReplacesUnansweredTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSupersedeRig(t, &gateModel{release: make(chan struct{})}, &fakeTelegram{got: make(chan struct{}, 1)}, false)
		s.send(dm, alice, 1, "is the museum open")
		if n := len(s.model.Calls()); n != 1 {
			t.Fatalf("%d model calls after the first message, want 1 (no debounce)", n)
		}
		s.send(dm, alice, 2, "on sundays I mean")
		s.answer()
		s.stop()

		calls := s.model.Calls()
		if len(calls) != 2 || !calls[0].cancelled || calls[1].cancelled {
			t.Fatalf("calls %+v, want the first cancelled and a second one answered", calls)
		}
		for _, want := range []string{"is the museum open", "on sundays I mean", "message_id 2."} {
			if !strings.Contains(calls[1].prompt, want) {
				t.Errorf("the answering call's prompt lacks %q:\n%s", want, calls[1].prompt)
			}
		}
		if got := texts(s.tg.Sent()); strings.Join(got, " | ") != "reply 2" {
			t.Errorf("sent %q, want exactly the one reply", got)
		}
		if n := s.pending(); n != 0 {
			t.Errorf("%d turns still pending, want both finished", n)
		}
		for id := mynah.MessageID(1); id <= 2; id++ {
			if _, err := s.db.Message(t.Context(), "Mynah", dm.ID, id); err != nil {
				t.Errorf("message %d: %v", id, err)
			}
		}
	})
}

// TestAnsweredTurnIsNotReplaced: once the first answer is delivered, a second message
// gets its own answer, after the first.
func TestAnsweredTurnIsNotReplaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSupersedeRig(t, &gateModel{release: make(chan struct{})}, &fakeTelegram{got: make(chan struct{}, 1)}, false)
		s.send(dm, alice, 1, "first")
		s.answer()
		s.send(dm, alice, 2, "second")
		s.answer()
		s.stop()
		if got := texts(s.tg.Sent()); strings.Join(got, " | ") != "reply 1 | reply 2" {
			t.Errorf("sent %q, want both replies in order", got)
		}
		for _, c := range s.model.Calls() {
			if c.cancelled {
				t.Errorf("a call was cancelled: %+v", s.model.Calls())
			}
		}
	})
}

// TestShownDraftIsNotReplaced: once a draft of the answer shows, a newer message no longer
// replaces it: both messages are answered, in order.
func TestShownDraftIsNotReplaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := &draftTelegram{fakeTelegram: &fakeTelegram{got: make(chan struct{}, 1)}}
		s := newSupersedeRig(t, &gateModel{release: make(chan struct{}), partial: "Let me think"}, tg, true)
		s.send(dm, alice, 1, "first")
		time.Sleep(2 * time.Second) // the draft interval passes: the draft shows
		synctest.Wait()
		if len(tg.drafts) == 0 {
			t.Fatal("no draft shown")
		}
		s.send(dm, alice, 2, "second")
		s.answer()
		s.answer()
		s.stop()
		if got := texts(s.tg.Sent()); strings.Join(got, " | ") != "reply 1 | reply 2" {
			t.Errorf("sent %q, want both replies in order", got)
		}
	})
}

// TestGroupReplacesOnlyTheSameSender: in a group, a message of somebody else waits its
// turn; a newer message of the same member replaces that member's unanswered turn.
func TestGroupReplacesOnlyTheSameSender(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		group := mynah.Chat{ID: -100, Type: mynah.ChatSupergroup, Title: "Club"}
		bob := mynah.User{ID: 43, FirstName: "Bob"}
		s := newSupersedeRig(t, &gateModel{release: make(chan struct{})}, &fakeTelegram{got: make(chan struct{}, 1)}, false)
		s.send(group, alice, 1, "Mynah, what time is it")
		s.send(group, bob, 2, "Mynah, and the weather")
		if calls := s.model.Calls(); len(calls) != 1 || calls[0].cancelled {
			t.Fatalf("calls %+v: bob's message must not cancel alice's turn", calls)
		}
		s.answer() // alice's
		s.send(group, bob, 3, "in Paris")
		s.answer() // bob's, both his messages in view
		s.stop()

		calls := s.model.Calls()
		if len(calls) != 3 || calls[0].cancelled || !calls[1].cancelled || calls[2].cancelled {
			t.Fatalf("calls %+v, want alice's answered, bob's first cancelled by his second", calls)
		}
		if !strings.Contains(calls[2].prompt, "and the weather") || !strings.Contains(calls[2].prompt, "message_id 3.") {
			t.Errorf("bob's answering call lacks his burst:\n%s", calls[2].prompt)
		}
		sent := s.tg.Sent()
		if got := texts(sent); strings.Join(got, " | ") != "reply 1 | reply 3" {
			t.Fatalf("sent %q, want alice's reply, then one for bob", got)
		}
		if sent[0].ReplyTo != 1 || sent[1].ReplyTo != 3 {
			t.Errorf("replies answer messages %d and %d, want 1 and 3", sent[0].ReplyTo, sent[1].ReplyTo)
		}
	})
}

// TestReplacingIsCapped: a user who keeps writing while the model answers still gets an
// answer: after three turns replaced in a row, over more than the length of a burst, the
// next is answered, with everything so far in view, and the message after it gets its
// own.
func TestReplacingIsCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSupersedeRig(t, &gateModel{release: make(chan struct{})}, &fakeTelegram{got: make(chan struct{}, 1)}, false)
		for i := 1; i <= 5; i++ {
			s.send(dm, alice, mynah.MessageID(i), fmt.Sprintf("thought %d", i))
			time.Sleep(time.Second) // a slow model: each message comes while the call is under way
		}
		s.answer() // the fourth message's turn
		s.answer() // the fifth's
		s.stop()

		calls := s.model.Calls()
		cancelled := 0
		for _, c := range calls {
			if c.cancelled {
				cancelled++
			}
		}
		if len(calls) != 5 || cancelled != 3 {
			t.Fatalf("%d calls, %d cancelled; want 5 calls, the first 3 cancelled", len(calls), cancelled)
		}
		for i := 1; i <= 4; i++ {
			if !strings.Contains(calls[3].prompt, fmt.Sprintf("thought %d", i)) {
				t.Errorf("the first answered call lacks thought %d:\n%s", i, calls[3].prompt)
			}
		}
		if got := texts(s.tg.Sent()); strings.Join(got, " | ") != "reply 4 | reply 5" {
			t.Errorf("sent %q, want two replies", got)
		}
		if n := s.pending(); n != 0 {
			t.Errorf("%d turns still pending", n)
		}
	})
}

// TestBurstIsReplacedWhole: a burst of messages arriving one by one while the model
// answers, each after the lane started its call, gets one answer, however long the
// burst, from a call that saw all of it.
func TestBurstIsReplacedWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSupersedeRig(t, &gateModel{release: make(chan struct{})}, &fakeTelegram{got: make(chan struct{}, 1)}, false)
		for i := 1; i <= 6; i++ {
			s.send(dm, alice, mynah.MessageID(i), fmt.Sprintf("line %d", i))
			time.Sleep(100 * time.Millisecond)
		}
		s.answer()
		s.stop()
		calls := s.model.Calls()
		if len(calls) != 6 {
			t.Fatalf("%d calls, want one started per message (each came while the previous one ran)", len(calls))
		}
		for i := 1; i <= 6; i++ {
			if !strings.Contains(calls[5].prompt, fmt.Sprintf("line %d", i)) {
				t.Errorf("the answering call lacks line %d:\n%s", i, calls[5].prompt)
			}
		}
		if got := texts(s.tg.Sent()); strings.Join(got, " | ") != "reply 6" {
			t.Errorf("sent %q, want one reply to the whole burst", got)
		}
	})
}

// TestCommandDoesNotReplace: a command's reply queued while the model answers replaces
// nothing: the answer comes, then the command's reply.
func TestCommandDoesNotReplace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSupersedeRig(t, &gateModel{release: make(chan struct{})}, &fakeTelegram{got: make(chan struct{}, 1)}, false)
		s.send(dm, alice, 1, "a question")
		s.update++
		msg := &mynah.Message{Agent: "Mynah", Chat: dm, ID: 2, Sender: alice, Text: "/help", Time: time.Now()}
		help := &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 2, Sender: alice.ID, Static: "help text"}
		if _, err := s.db.Accept(t.Context(), "Mynah", s.update, mynah.Intake{Chat: dm, Message: msg, Turn: help}); err != nil {
			t.Fatal(err)
		}
		s.r.Queued(*help)
		synctest.Wait()
		s.answer()
		s.stop()
		if got := texts(s.tg.Sent()); strings.Join(got, " | ") != "reply 1 | help text" {
			t.Errorf("sent %q, want the answer, then the command's reply", got)
		}
	})
}

// countTool is a tool the model calls, counting its runs; readTool is the same tool
// marked as one that only reads (tool.ReadOnly).
type countTool struct {
	mu   sync.Mutex
	runs int
}

func (c *countTool) Spec() llm.Tool {
	return llm.Tool{Name: "lookup", Description: "look up", Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (c *countTool) Run(context.Context, tool.Call) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs++
	return "the museum opens at ten", nil
}

func (c *countTool) Runs() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs
}

type readTool struct{ *countTool }

func (readTool) ReadOnly() {}

// TestReadOnlyToolKeepsTurnReplaceable: a turn whose model only searched (a tool that
// reads) is still replaced by a newer message of its user: one reply, from a call that saw
// both messages; the search runs again for the newer turn.
func TestReadOnlyToolKeepsTurnReplaceable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct := &countTool{}
		s := newSupersedeRig(t, &gateModel{release: make(chan struct{}), tool: "lookup"}, &fakeTelegram{got: make(chan struct{}, 1)}, false, readTool{ct})
		s.send(dm, alice, 1, "is the museum open")
		if ct.Runs() != 1 {
			t.Fatalf("the tool ran %d times before the second message, want 1", ct.Runs())
		}
		s.send(dm, alice, 2, "on sundays I mean")
		s.answer()
		s.stop()
		if got := texts(s.tg.Sent()); len(got) != 1 {
			t.Fatalf("sent %q, want exactly one reply for the two messages", got)
		}
		calls := s.model.Calls()
		last := calls[len(calls)-1]
		if last.cancelled || !strings.Contains(last.prompt, "on sundays I mean") || !strings.Contains(last.prompt, "is the museum open") {
			t.Errorf("the answering call %+v does not see both messages", last)
		}
		if !calls[1].cancelled {
			t.Errorf("calls %+v: the first turn's call after its search was not cancelled", calls)
		}
		if ct.Runs() != 2 {
			t.Errorf("the tool ran %d times, want 2 (once per turn)", ct.Runs())
		}
		if n := s.pending(); n != 0 {
			t.Errorf("%d turns still pending, want both finished", n)
		}
		// The replaced turn's first call was answered and paid for: its usage is recorded
		// with the answering turn's two (the cancelled call reported none).
		if n, in := s.usage(); n != 3 || in != 3*gateUsage.InputTokens {
			t.Errorf("usage of %d calls, %d input tokens recorded; want 3 calls, %d tokens", n, in, 3*gateUsage.InputTokens)
		}
	})
}

// TestToolWithEffectKeepsTurn: a turn whose model ran a tool that may change what lasts
// (remember, note) is not replaced: both messages are answered, in order.
func TestToolWithEffectKeepsTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct := &countTool{}
		s := newSupersedeRig(t, &gateModel{release: make(chan struct{}), tool: "lookup"}, &fakeTelegram{got: make(chan struct{}, 1)}, false, ct)
		s.send(dm, alice, 1, "remember I like tea")
		s.send(dm, alice, 2, "and coffee")
		s.answer()
		s.answer()
		s.stop()
		if got := texts(s.tg.Sent()); len(got) != 2 {
			t.Errorf("sent %q, want both messages answered", got)
		}
		for _, c := range s.model.Calls() {
			if c.cancelled {
				t.Errorf("a call was cancelled: %+v", s.model.Calls())
			}
		}
	})
}
