package lane_test

import (
	"context"
	"fmt"
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

// busyModel takes delay per call and keeps each call's prompt text.
type busyModel struct {
	delay   time.Duration
	mu      sync.Mutex
	prompts []string
}

func (m *busyModel) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	var b strings.Builder
	for _, turn := range req.Turns {
		for _, p := range turn.Parts {
			b.WriteString(p.Text + "\n")
		}
	}
	m.mu.Lock()
	m.prompts = append(m.prompts, b.String())
	m.mu.Unlock()
	select {
	case <-time.After(m.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &llm.Response{Text: "ok"}, nil
}

func (m *busyModel) Stream(ctx context.Context, req llm.Request, _ func(string)) (*llm.Response, error) {
	return m.Generate(ctx, req)
}

// callsMentioning returns the prompts that contain s.
func (m *busyModel) callsMentioning(s string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, p := range m.prompts {
		if strings.Contains(p, s) {
			out = append(out, p)
		}
	}
	return out
}

// TestBurstCostsOneCall: five messages typed 300 ms apart cost exactly one model call, whose
// prompt holds all five, when the agent debounces (each turn held 1 s, as ingest does with
// debounce: 1s) and when, without debouncing, the chat waits for a free lane (another
// chat's 2 s call holds the only one) while the burst arrives: the model is called when
// the turn runs, not when a message arrives. Time is synthetic (testing/synctest): the
// test is exact, not timing-dependent.
func TestBurstCostsOneCall(t *testing.T) {
	for _, c := range []struct {
		name     string
		debounce time.Duration
		busy     bool // another chat's turn occupies the only lane slot during the burst
		call     time.Duration
	}{
		{"debounced", time.Second, false, 500 * time.Millisecond},
		{"behind a busy lane", 0, true, 2 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "b.db"))
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				model := &busyModel{delay: c.call}
				tg := &fakeTelegram{got: make(chan struct{}, 1)}
				asm := prompt.NewAssembler(prompt.Agent{Name: "Mynah", Bot: bot, Budget: 10000}, db, prompt.Sources{}, nil)
				r := lane.New(lane.Agent{Name: "Mynah", Bot: bot, Model: model, ModelName: "fake/m", ModelID: "m", Prompt: asm},
					db, tg, lane.Options{Parallel: 1})
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error, 1)
				go func() { done <- r.Run(ctx) }()

				update := int64(0)
				send := func(chat mynah.Chat, sender mynah.User, id int, text string) {
					update++
					msg := &mynah.Message{Agent: "Mynah", Chat: chat, ID: mynah.MessageID(id), Sender: sender, Text: text, Time: time.Now()}
					turn := &mynah.Turn{Agent: "Mynah", Chat: chat.ID, Target: msg.ID}
					if c.debounce > 0 {
						turn.NotBefore = time.Now().Add(c.debounce)
					}
					if _, err := db.Accept(t.Context(), "Mynah", update, mynah.Intake{Chat: chat, Message: msg, Turn: turn}); err != nil {
						t.Error(err)
					}
					r.Wake()
				}
				if c.busy {
					bob := mynah.User{ID: 43, FirstName: "Bob"}
					send(mynah.Chat{ID: 43, Type: mynah.ChatPrivate}, bob, 1, "bob's question")
					synctest.Wait() // bob's turn is talking to the model
				}
				for i := 1; i <= 5; i++ {
					send(dm, alice, i, fmt.Sprintf("burst part %d", i))
					time.Sleep(300 * time.Millisecond)
				}
				time.Sleep(5 * time.Second) // long past every hold and call
				synctest.Wait()
				cancel()
				if err := <-done; err != nil {
					t.Fatal(err)
				}

				calls := model.callsMentioning("burst part 1")
				if len(calls) != 1 {
					t.Fatalf("%d model calls saw the burst, want exactly 1", len(calls))
				}
				for i := 1; i <= 5; i++ {
					if !strings.Contains(calls[0], fmt.Sprintf("burst part %d", i)) {
						t.Errorf("the one call's prompt lacks part %d:\n%s", i, calls[0])
					}
				}
				if !strings.Contains(calls[0], "message_id 5.") {
					t.Errorf("the one call does not answer the last message:\n%s", calls[0])
				}
			})
		})
	}
}
