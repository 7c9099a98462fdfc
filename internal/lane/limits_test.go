package lane_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// refused returns the contents of the error results in req's last turn.
func refused(req llm.Request) []string {
	var out []string
	last := req.Turns[len(req.Turns)-1]
	for _, p := range last.Parts {
		if p.ToolResult != nil && p.ToolResult.IsError {
			out = append(out, p.ToolResult.Content)
		}
	}
	return out
}

// TestTasksPerAnswerBounded: of 30 messages one response plans, 20 are sent; the model
// is told of the 10 refused and its follow-up is sent too.
func TestTasksPerAnswerBounded(t *testing.T) {
	var calls []llm.ToolCall
	for i := range 30 {
		calls = append(calls, call("send_message", fmt.Sprintf(`{"text":"message %d"}`, i+1)))
	}
	model := &scriptModel{resps: []llm.Response{{ToolCalls: calls}, {Text: "That is all I may send at once."}}}
	tg := &fakeTelegram{got: make(chan struct{}, 1)}
	db := openDB(t)
	r := planRunner(t, model, tg, db, nil)
	accept(t, db, 1, 1, "count to 30", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 1})
	runUntil(t, r, tg, 21)
	sent := texts(tg.Sent())
	if len(sent) != 21 || sent[19] != "message 20" || sent[20] != "That is all I may send at once." {
		t.Errorf("sent %d messages %q, want messages 1 to 20 and the follow-up", len(sent), sent)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2: the plan and the answer to the refusals", len(reqs))
	}
	if got := refused(reqs[1]); len(got) != 10 || !strings.Contains(got[0], "at most 20 tasks") {
		t.Errorf("the model was told %q, want 10 refusals naming the limit", got)
	}
}

// queueReminders queues n reminders for chat, due at due.
func queueReminders(t *testing.T, db *sqlite.DB, update *int64, chat mynah.ChatID, n int, due time.Time) {
	t.Helper()
	for i := range n {
		*update++
		turn := &mynah.Turn{Agent: "Mynah", Chat: chat, Static: fmt.Sprintf("reminder %d of chat %d", i+1, chat), Due: due}
		if _, err := db.Accept(t.Context(), "Mynah", *update, mynah.Intake{Chat: mynah.Chat{ID: chat, Type: mynah.ChatPrivate}, Turn: turn}); err != nil {
			t.Fatal(err)
		}
	}
}

// pendingReminders counts chat's reminders not sent yet.
func pendingReminders(t *testing.T, db *sqlite.DB, chat mynah.ChatID) int {
	t.Helper()
	turns, err := db.PendingTurns(t.Context(), "Mynah", time.Now().Add(400*24*time.Hour), 10000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, turn := range turns {
		if turn.Chat == chat && !turn.Due.IsZero() {
			n++
		}
	}
	return n
}

// TestRemindersPerChatBounded: a chat with 49 reminders pending gets one more of the
// three a response plans, whatever other chats have; the model is told of the rest.
func TestRemindersPerChatBounded(t *testing.T) {
	db := openDB(t)
	update := int64(100)
	tomorrow := time.Now().Add(24 * time.Hour)
	queueReminders(t, db, &update, dm.ID, 49, tomorrow)
	queueReminders(t, db, &update, 43, 5, tomorrow)
	model := &scriptModel{resps: []llm.Response{
		{Text: "Noted.", ToolCalls: []llm.ToolCall{
			call("schedule", `{"text":"one","in_minutes":60}`),
			call("schedule", `{"text":"two","in_minutes":61}`),
			call("schedule", `{"text":"three","in_minutes":62}`),
		}},
		{Text: "I set one of them."},
	}}
	tg := &fakeTelegram{got: make(chan struct{}, 1)}
	r := planRunner(t, model, tg, db, nil)
	accept(t, db, 1, 1, "remind me thrice", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 1})
	runUntil(t, r, tg, 2)
	if n := pendingReminders(t, db, dm.ID); n != 50 {
		t.Errorf("%d reminders pending in the chat, want 50", n)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	if got := refused(reqs[1]); len(got) != 2 || !strings.Contains(got[0], "already has 50 reminders pending") {
		t.Errorf("the model was told %q, want 2 refusals naming the limit", got)
	}
}

// TestDueRemindersDoNotStarveLiveTurns: with 600 reminders of 600 chats due at once —
// more than one scan of the queue reads — a message in another chat is answered among
// the first sends, not behind the backlog; and every reminder is sent.
func TestDueRemindersDoNotStarveLiveTurns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := openDB(t)
		update := int64(1000)
		due := time.Now()
		for c := range 600 {
			queueReminders(t, db, &update, mynah.ChatID(10000+c), 1, due)
		}
		message(t, db, 1, dm, alice, 1, "hello?") // newer than every reminder
		tg := &fakeTelegram{}
		r := faultRunner(t, db, nil, tg, []lane.Model{{Model: &fakeModel{}, Name: "fake/m", ID: "m"}}, lane.Options{Parallel: 4})
		stop := start(t, r)
		settle(time.Minute)
		stop()
		sent := tg.Sent()
		answered := -1
		for i, o := range sent {
			if o.Chat == dm.ID {
				answered = i
			}
		}
		if len(sent) != 601 {
			t.Errorf("%d messages sent, want 600 reminders and the answer", len(sent))
		}
		// Its lane starts with the first ones: the answer comes with the first sends,
		// not after the reminders the first scans read.
		if answered < 0 || answered > 4 {
			t.Errorf("the live message was answered as send %d of %d, want it among the first", answered, len(sent))
		}
	})
}
