package lane_test

import (
	"context"
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
)

// readCounting counts the runner's reads of its queue from the store.
type readCounting struct {
	lane.Store
	mu           sync.Mutex
	turns, parts int
}

func (s *readCounting) PendingTurns(ctx context.Context, agent string, now time.Time, limit int) ([]mynah.Turn, error) {
	s.mu.Lock()
	s.turns++
	s.mu.Unlock()
	return s.Store.PendingTurns(ctx, agent, now, limit)
}

func (s *readCounting) PendingParts(ctx context.Context, agent string, limit int) ([]mynah.OutPart, error) {
	s.mu.Lock()
	s.parts++
	s.mu.Unlock()
	return s.Store.PendingParts(ctx, agent, limit)
}

func (s *readCounting) reads() (turns, parts int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turns, s.parts
}

// queueMessage accepts a message of user in chat with a turn to answer it and returns
// the turn as the store queued it.
func queueMessage(t *testing.T, db *sqlite.DB, update int64, chat mynah.Chat, user mynah.User, id mynah.MessageID, text string) mynah.Turn {
	t.Helper()
	msg := &mynah.Message{Agent: "Mynah", Chat: chat, ID: id, Sender: user, Text: text, Time: time.Now()}
	turn := &mynah.Turn{Target: id}
	if _, err := db.Accept(t.Context(), "Mynah", update, mynah.Intake{Chat: chat, Users: []mynah.User{user}, Message: msg, Turn: turn}); err != nil {
		t.Fatal(err)
	}
	return *turn
}

// TestQueuedTurnsCostNoScan: the runner reads its queue from the store once at start;
// turns it is told of (Queued) are answered without reading it again, in many chats at
// once, and news of a turn that arrives after it was answered does not answer it twice.
func TestQueuedTurnsCostNoScan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := openDB(t)
		store := &readCounting{Store: db}
		tg := &fakeTelegram{}
		r := faultRunner(t, db, store, tg, []lane.Model{{Model: &fakeModel{}, Name: "fake/m", ID: "m"}}, lane.Options{Poll: time.Hour})
		stop := start(t, r)
		settle(time.Second)
		var answered []mynah.Turn
		for round := range 5 {
			for c := range 10 {
				user := mynah.User{ID: mynah.UserID(100 + c), FirstName: fmt.Sprint("U", c)}
				chat := mynah.Chat{ID: mynah.ChatID(user.ID), Type: mynah.ChatPrivate}
				turn := queueMessage(t, db, int64(round*100+c+1), chat, user, mynah.MessageID(round+1), "hello")
				if turn.ID == 0 {
					t.Fatal("the store did not return the queued turn's id")
				}
				r.Queued(turn)
				answered = append(answered, turn)
			}
			settle(time.Second)
		}
		for _, turn := range answered[:10] {
			r.Queued(turn) // late news of turns long answered
		}
		settle(time.Second)
		stop()
		if got := len(tg.Sent()); got != 50 {
			t.Errorf("%d replies to 50 messages, want 50", got)
		}
		if turns, parts := store.reads(); turns != 1 || parts != 1 {
			t.Errorf("the queue was read %d times for turns and %d for parts, want once each, at start", turns, parts)
		}
		if pending, _ := db.PendingTurns(t.Context(), "Mynah", time.Now(), 100); len(pending) != 0 {
			t.Errorf("%d turns still pending", len(pending))
		}
	})
}

// TestQueueStartsFromTheStore: work left in the store by an earlier process — a turn and
// the parts of an answer not yet delivered — is found at start and done in order.
func TestQueueStartsFromTheStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := openDB(t)
		first := queueMessage(t, db, 1, dm, alice, 1, "first")
		parts := []mynah.OutPart{{Key: "turn/1/0", Plain: "one"}, {Key: "turn/1/1", Plain: "two"}}
		if _, err := db.FinishTurn(t.Context(), first.ID, parts); err != nil {
			t.Fatal(err)
		}
		queueMessage(t, db, 2, dm, alice, 2, "second")
		tg := &fakeTelegram{}
		r := faultRunner(t, db, nil, tg, []lane.Model{{Model: &fakeModel{}, Name: "fake/m", ID: "m"}}, lane.Options{})
		stop := start(t, r)
		settle(time.Second)
		stop()
		if got := strings.Join(texts(tg.Sent()), "|"); got != "one|two|answer" {
			t.Errorf("sent %q, want the parts left over, then the answer to the second message", got)
		}
	})
}

// TestReminderDueWhenScheduledIsSentAtOnce: a reminder whose time passed while its plan
// waited is queued due at once, and sent then — not at the next read of the store.
func TestReminderDueWhenScheduledIsSentAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		model := &scriptModel{resps: []llm.Response{{Text: "hmm", ToolCalls: []llm.ToolCall{
			call("wait", `{"seconds":5}`),
			call("schedule", `{"text":"Time to stretch!","in_minutes":0.02}`), // 1.2 s: past by the time the wait ends
		}}}}
		db := openDB(t)
		tg := &fakeTelegram{}
		asm := prompt.NewAssembler(prompt.Agent{Name: "Mynah", Bot: bot, Budget: 10000}, db, prompt.Sources{}, nil)
		r := lane.New(lane.Agent{Name: "Mynah", Bot: bot, Model: model, ModelName: "fake/m", ModelID: "m", Apology: "sorry", Prompt: asm},
			db, tg, lane.Options{Poll: time.Hour})
		stop := start(t, r)
		r.Queued(queueMessage(t, db, 1, dm, alice, 1, "remind me"))
		settle(10 * time.Second)
		stop()
		if got := strings.Join(texts(tg.Sent()), "|"); got != "hmm|Time to stretch!" {
			t.Errorf("sent %q within 10 s, want the answer and then, the wait over, the reminder", got)
		}
	})
}
