package lane_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/tool"
)

// scriptModel answers with its responses in order, the last one repeated, and records
// the requests.
type scriptModel struct {
	mu    sync.Mutex
	resps []llm.Response
	reqs  []llm.Request
}

func (m *scriptModel) Generate(_ context.Context, req llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	r := m.resps[min(len(m.reqs), len(m.resps))-1]
	return &r, nil
}

func (m *scriptModel) Stream(ctx context.Context, req llm.Request, _ func(string)) (*llm.Response, error) {
	return m.Generate(ctx, req)
}

func (m *scriptModel) Requests() []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]llm.Request(nil), m.reqs...)
}

func call(name, args string) llm.ToolCall {
	return llm.ToolCall{ID: "call_" + name, Name: name, Arguments: json.RawMessage(args)}
}

func planRunner(t *testing.T, model llm.Model, tg lane.Telegram, db *sqlite.DB, edit func(*lane.Agent)) *lane.Runner {
	t.Helper()
	asm := prompt.NewAssembler(prompt.Agent{Name: "Mynah", Bot: bot, Budget: 10000}, db, prompt.Sources{}, nil)
	a := lane.Agent{Name: "Mynah", Bot: bot, Model: model, ModelName: "fake/m", ModelID: "m", Apology: "sorry",
		Prompt: asm, StickerSets: []string{"MrRibbit"}}
	if edit != nil {
		edit(&a)
	}
	return lane.New(a, db, tg, lane.Options{})
}

func openDB(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(t.Context(), t.TempDir()+"/m.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func texts(sent []mynah.Outgoing) []string {
	var out []string
	for _, o := range sent {
		out = append(out, o.Text)
	}
	return out
}

// TestPlanIsCarriedOutInOrder: one model call that reacts, pauses, sends a sticker and two
// messages becomes those actions in that order, the first message replying to the user.
func TestPlanIsCarriedOutInOrder(t *testing.T) {
	model := &scriptModel{resps: []llm.Response{{Text: "first", ToolCalls: []llm.ToolCall{
		call("react", `{"emoji":"👍️"}`),
		call("wait", `{"seconds":0.05}`),
		call("send_sticker", `{"emoji":"💻"}`),
		call("send_message", `{"text":"second","reply_to":1}`),
	}}}}
	tg := &fakeTelegram{got: make(chan struct{}, 1)}
	db := openDB(t)
	r := planRunner(t, model, tg, db, nil)
	accept(t, db, 1, 1, "hello", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 1, ReplyTo: 1})
	runUntil(t, r, tg, 4)
	got := texts(tg.Sent())
	want := []string{"first", "react:👍", "sticker:MrRibbit/💻", "second"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("sent %q, want %q", got, want)
	}
	if sent := tg.Sent(); sent[0].ReplyTo != 1 || sent[1].ReplyTo != 1 || sent[3].ReplyTo != 1 {
		t.Errorf("reply targets %+v: the answer, the reaction and the explicit reply go to message 1", sent)
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1: a plan of plan tools needs no second call", n)
	}
	if left, _ := db.PendingParts(t.Context(), "Mynah", 10); len(left) != 0 {
		t.Errorf("pending parts left: %+v", left)
	}
	tools := model.Requests()[0].Tools
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); got != "send_message,react,wait,schedule,send_sticker" {
		t.Errorf("tools offered %s", got)
	}
}

// echoTool is an immediate tool: its result goes back to the model.
type echoTool struct{ calls []tool.Call }

func (e *echoTool) Spec() llm.Tool {
	return llm.Tool{Name: "lookup", Description: "look up", Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (e *echoTool) Run(_ context.Context, c tool.Call) (string, error) {
	e.calls = append(e.calls, c)
	return "Alice likes tea (asked by " + c.Sender.FirstName + ")", nil
}

// TestToolLoop: a tool the agent has runs at once and the model answers with its result;
// a bad plan call is refused to the model, which corrects it.
func TestToolLoop(t *testing.T) {
	model := &scriptModel{resps: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("lookup", `{"q":"tea"}`), call("react", `{"emoji":"🦜"}`)}},
		{Text: "You like tea.", ToolCalls: []llm.ToolCall{call("react", `{"emoji":"❤"}`)}},
	}}
	tg := &fakeTelegram{got: make(chan struct{}, 1)}
	db := openDB(t)
	echo := &echoTool{}
	reg, err := tool.NewRegistry(echo)
	if err != nil {
		t.Fatal(err)
	}
	r := planRunner(t, model, tg, db, func(a *lane.Agent) { a.Tools = reg })
	accept(t, db, 1, 1, "what do I like?", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 1})
	runUntil(t, r, tg, 2)
	if got := texts(tg.Sent()); strings.Join(got, "|") != "You like tea.|react:❤" {
		t.Fatalf("sent %q", got)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	if len(echo.calls) != 1 || echo.calls[0].Sender.ID != alice.ID || string(echo.calls[0].Args) != `{"q":"tea"}` {
		t.Errorf("tool calls %+v: want one, by Alice, with the model's arguments", echo.calls)
	}
	turns := reqs[1].Turns
	results := turns[len(turns)-1]
	if results.Role != llm.ToolRole || len(results.Parts) != 2 {
		t.Fatalf("second request ends with %+v, want the two tool results", results)
	}
	if r := results.Parts[0].ToolResult; r == nil || !strings.Contains(r.Content, "Alice likes tea") || r.IsError {
		t.Errorf("lookup result %+v", r)
	}
	if r := results.Parts[1].ToolResult; r == nil || !r.IsError || !strings.Contains(r.Content, "not an allowed reaction") {
		t.Errorf("refused reaction result %+v", r)
	}
}

// failingTelegram fails sends whose text contains fail with err.
type failingTelegram struct {
	*fakeTelegram
	fail string
	err  error
	mu   sync.Mutex
	n    int
}

func (f *failingTelegram) Send(ctx context.Context, o mynah.Outgoing) (mynah.Message, error) {
	if strings.Contains(o.Text, f.fail) {
		f.mu.Lock()
		f.n++
		f.mu.Unlock()
		return mynah.Message{}, f.err
	}
	return f.fakeTelegram.Send(ctx, o)
}

func (f *failingTelegram) React(ctx context.Context, chat mynah.ChatID, msg mynah.MessageID, emoji string) error {
	_, err := f.Send(ctx, mynah.Outgoing{Chat: chat, Text: "react:" + emoji, ReplyTo: msg})
	return err
}

func (f *failingTelegram) tries() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// TestFailedTaskDropsPlan: a task that keeps failing is tried TaskRetries times, then the
// rest of its plan is dropped, and the next message is answered as usual.
func TestFailedTaskDropsPlan(t *testing.T) {
	model := &scriptModel{resps: []llm.Response{
		{ToolCalls: []llm.ToolCall{call("send_message", `{"text":"doomed"}`), call("send_message", `{"text":"after"}`)}},
		{Text: "fresh answer"},
	}}
	tg := &failingTelegram{fakeTelegram: &fakeTelegram{got: make(chan struct{}, 1)}, fail: "doomed", err: errors.New("connection reset")}
	db := openDB(t)
	r := planRunner(t, model, tg, db, func(a *lane.Agent) { a.TaskRetries, a.TaskRetryDelay = 3, time.Millisecond })
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	accept(t, db, 1, 1, "hi", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 1})
	r.Wake()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if left, _ := db.PendingParts(t.Context(), "Mynah", 10); tg.tries() >= 3 && len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("plan not dropped: %d tries", tg.tries())
		}
	}
	accept(t, db, 2, 2, "again", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 2})
	r.Wake()
	for deadline := time.Now().Add(20 * time.Second); len(tg.Sent()) < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the next message was not answered")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := tg.tries(); n != 3 {
		t.Errorf("failing task tried %d times, want 3", n)
	}
	if got := texts(tg.Sent()); len(got) != 1 || got[0] != "fresh answer" {
		t.Errorf("sent %q: want only the answer to the next message (the dropped plan's later task never sent)", got)
	}
}

// TestRejectedTaskSkipsDependents: a reaction Telegram rejects for good is given up with
// the task that depends on it; the rest of the plan still goes out.
func TestRejectedTaskSkipsDependents(t *testing.T) {
	model := &scriptModel{resps: []llm.Response{{Text: "answer", ToolCalls: []llm.ToolCall{
		call("react", `{"emoji":"👍"}`),
		call("send_message", `{"text":"only if reacted","depends_on":[2]}`),
		call("send_message", `{"text":"independent"}`),
	}}}}
	tg := &failingTelegram{fakeTelegram: &fakeTelegram{got: make(chan struct{}, 1)}, fail: "react:",
		err: fmt.Errorf("%w: Bad Request: message to react not found", mynah.ErrRejected)}
	db := openDB(t)
	r := planRunner(t, model, tg, db, nil)
	accept(t, db, 1, 1, "hi", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 1})
	runUntil(t, r, tg.fakeTelegram, 2)
	if got := texts(tg.Sent()); strings.Join(got, "|") != "answer|independent" {
		t.Errorf("sent %q, want the answer and the independent message", got)
	}
	if n := tg.tries(); n != 1 {
		t.Errorf("rejected reaction tried %d times, want 1", n)
	}
}

// TestScheduleSurvivesRestart: a reminder the model schedules is kept in the store and sent
// when due, by whichever runner is running then.
func TestScheduleSurvivesRestart(t *testing.T) {
	model := &scriptModel{resps: []llm.Response{{Text: "I'll remind you.", ToolCalls: []llm.ToolCall{
		call("schedule", `{"text":"Time to stretch!","in_minutes":0.02}`), // 1.2 s
	}}}}
	tg := &fakeTelegram{got: make(chan struct{}, 1)}
	db := openDB(t)
	accept(t, db, 1, 1, "remind me", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 1})
	runUntil(t, planRunner(t, model, tg, db, nil), tg, 1)
	// Another runner (a restarted process) carries out what is left and sends the reminder
	// when it falls due.
	runUntil(t, planRunner(t, model, tg, db, nil), tg, 2)
	got := texts(tg.Sent())
	if len(got) != 2 || got[1] != "Time to stretch!" {
		t.Fatalf("sent %q, want the answer then the reminder", got)
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("%d model calls: a reminder costs none", n)
	}
}

// TestNewMessageReplacesWaitingPlan: a plan pausing in a wait is dropped when the user
// writes again; the new message gets a fresh plan.
func TestNewMessageReplacesWaitingPlan(t *testing.T) {
	model := &scriptModel{resps: []llm.Response{
		{Text: "hmm", ToolCalls: []llm.ToolCall{call("wait", `{"seconds":30}`), call("send_message", `{"text":"stale"}`)}},
		{Text: "fresh"},
	}}
	tg := &fakeTelegram{got: make(chan struct{}, 1)}
	db := openDB(t)
	r := planRunner(t, model, tg, db, nil)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	accept(t, db, 1, 1, "hi", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 1})
	r.Wake()
	for deadline := time.Now().Add(20 * time.Second); len(tg.Sent()) < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no first answer")
		}
	}
	accept(t, db, 2, 2, "actually…", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 2})
	r.Wake()
	for deadline := time.Now().Add(20 * time.Second); len(tg.Sent()) < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the new message was not answered while the old plan waited")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := texts(tg.Sent()); strings.Join(got, "|") != "hmm|fresh" {
		t.Errorf("sent %q, want the first answer then the fresh one, never the stale plan", got)
	}
}
