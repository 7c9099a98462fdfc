package lane_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
)

var group = mynah.Chat{ID: -100123, Type: mynah.ChatSupergroup, Title: "Birds"}

// slowStream streams its text in chunks, pausing between them.
type slowStream struct {
	chunks []string
	pause  time.Duration
}

func (s slowStream) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	return s.Stream(ctx, req, func(string) {})
}

func (s slowStream) Stream(ctx context.Context, _ llm.Request, onText func(string)) (*llm.Response, error) {
	for _, c := range s.chunks {
		onText(c)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(s.pause):
		}
	}
	return &llm.Response{Text: strings.Join(s.chunks, "")}, nil
}

func groupRunner(t *testing.T, model llm.Model, tg *fakeTelegram) (*lane.Runner, func(update int64, id mynah.MessageID)) {
	db := openDB(t)
	asm := prompt.NewAssembler(prompt.Agent{Name: "Mynah", Bot: bot, Budget: 10000}, db, prompt.Sources{}, nil)
	r := lane.New(lane.Agent{Name: "Mynah", Bot: bot, Model: model, ModelName: "fake/m", ModelID: "m",
		Apology: "sorry", Prompt: asm, Stream: true}, db, tg, lane.Options{DraftInterval: 10 * time.Millisecond})
	accept := func(update int64, id mynah.MessageID) {
		msg := &mynah.Message{Agent: "Mynah", Chat: group, ID: id, Sender: alice, Text: "@mynah_bot tell me", Time: time.Now()}
		turn := &mynah.Turn{Agent: "Mynah", Chat: group.ID, Target: id, ReplyTo: id}
		if _, err := db.Accept(t.Context(), "Mynah", update, mynah.Intake{Chat: group, Users: []mynah.User{alice}, Message: msg, Turn: turn}); err != nil {
			t.Fatal(err)
		}
	}
	return r, accept
}

// TestGroupAnswerStreamsByEditing: in a group a streamed answer is posted once, as a reply
// to the mention, and edited in place at most once a second; the final answer is an edit
// of that message, not a second message.
func TestGroupAnswerStreamsByEditing(t *testing.T) {
	model := slowStream{chunks: []string{"Mynahs ", "eat ", "fruit, ", "insects ", "and ", "seeds."}, pause: 300 * time.Millisecond}
	tg := &fakeTelegram{got: make(chan struct{}, 1)}
	r, accept := groupRunner(t, model, tg)
	accept(1, 5)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		sent := tg.Sent()
		if len(sent) > 0 && strings.Contains(sent[len(sent)-1].Text, "seeds.") && sent[len(sent)-1].Edit != 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no final edit; sent %+v", sent)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	sent := tg.Sent()
	if sent[0].Edit != 0 || sent[0].ReplyTo != 5 {
		t.Fatalf("first update %+v: want a new message replying to the mention", sent[0])
	}
	preview := mynah.MessageID(1001) // the fake's first message id
	posts := 0
	for _, o := range sent {
		if o.Edit == 0 {
			posts++
		} else if o.Edit != preview {
			t.Errorf("an edit of message %d, want only of the preview %d", o.Edit, preview)
		}
	}
	if posts != 1 {
		t.Errorf("%d messages posted, want 1 (the preview, then edits): %+v", posts, sent)
	}
}

// TestRetriedTurnEditsItsPreview: a turn retried after a crash finds the preview it posted
// and replaces it, rather than leaving a half answer and posting another.
func TestRetriedTurnEditsItsPreview(t *testing.T) {
	tg := &fakeTelegram{got: make(chan struct{}, 1)}
	db := openDB(t)
	asm := prompt.NewAssembler(prompt.Agent{Name: "Mynah", Bot: bot, Budget: 10000}, db, prompt.Sources{}, nil)
	r := lane.New(lane.Agent{Name: "Mynah", Bot: bot, Model: &fakeModel{}, ModelName: "fake/m", ModelID: "m",
		Apology: "sorry", Prompt: asm, Stream: true}, db, tg, lane.Options{})
	msg := &mynah.Message{Agent: "Mynah", Chat: group, ID: 5, Sender: alice, Text: "@mynah_bot hi", Time: time.Now()}
	if _, err := db.Accept(t.Context(), "Mynah", 1, mynah.Intake{Chat: group, Message: msg,
		Turn: &mynah.Turn{Chat: group.ID, Target: 5, ReplyTo: 5}}); err != nil {
		t.Fatal(err)
	}
	turns, err := db.PendingTurns(t.Context(), "Mynah", time.Now(), 1)
	if err != nil || len(turns) != 1 {
		t.Fatal(turns, err)
	}
	if err := db.SetPreview(t.Context(), turns[0].ID, 77); err != nil { // posted before the crash
		t.Fatal(err)
	}
	runUntil(t, r, tg, 1)
	if sent := tg.Sent(); len(sent) != 1 || sent[0].Edit != 77 || sent[0].Text != "answer" {
		t.Errorf("sent %+v, want one edit of the preview 77 to the answer", sent)
	}
}
