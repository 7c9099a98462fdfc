package postgres

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

type hit struct {
	User mynah.UserID
	At   time.Time
}

// TestModelTurnsSince: what a rate limit counted before a restart is read back from the
// turn queue: the model turns of the agent within the period, with their messages'
// senders; static replies, other agents' turns and older turns are not.
func TestModelTurnsSince(t *testing.T) {
	db, _ := openTemp(t)
	ctx := t.Context()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	dm := func(u int64) mynah.Chat { return mynah.Chat{ID: mynah.ChatID(u), Type: mynah.ChatPrivate} }
	group := mynah.Chat{ID: -100, Type: mynah.ChatSupergroup, Title: "G"}
	update := int64(0)
	queue := func(agent string, chat mynah.Chat, sender int64, id int, ago time.Duration, static string) {
		t.Helper()
		update++
		at := now.Add(-ago)
		msg := &mynah.Message{Chat: chat, ID: mynah.MessageID(id), Sender: mynah.User{ID: mynah.UserID(sender), FirstName: "U"}, Text: "hi", Time: at}
		turn := &mynah.Turn{Target: msg.ID, Static: static, Created: at}
		if _, err := db.Accept(ctx, agent, update, mynah.Intake{Chat: chat, Message: msg, Turn: turn}); err != nil {
			t.Fatal(err)
		}
	}
	queue("Ada", dm(1), 1, 1, 3*time.Hour, "")          // long before the period
	queue("Ada", dm(1), 1, 2, 70*time.Minute, "")       // just before it
	queue("Ada", dm(1), 1, 3, 50*time.Minute, "")       // counted
	queue("Ada", group, 2, 10, 40*time.Minute, "")      // counted, in a group
	queue("Bob", dm(1), 1, 3, 30*time.Minute, "")       // another agent's
	queue("Ada", dm(1), 1, 4, 20*time.Minute, "Hello!") // a command's reply: no model
	queue("Ada", dm(1), 1, 5, time.Minute, "")          // counted

	var got []hit
	err := db.ModelTurnsSince(ctx, "Ada", now.Add(-time.Hour), func(u mynah.UserID, at time.Time) {
		got = append(got, hit{u, at})
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []hit{{1, now.Add(-time.Minute)}, {2, now.Add(-40 * time.Minute)}, {1, now.Add(-50 * time.Minute)}}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("ModelTurnsSince (-got +want):\n%s", diff)
	}
}

// BenchmarkModelTurnsSince measures the restart cost of restoring rate limits: reading
// back one period's model turns (10,000 of them) out of a history ten times as long.
func BenchmarkModelTurnsSince(b *testing.B) {
	db, _ := openTemp(b)
	ctx := b.Context()
	now := time.Now()
	const total, recent = 100_000, 10_000
	for i := range total {
		chat := mynah.Chat{ID: mynah.ChatID(i%1000 + 1), Type: mynah.ChatPrivate}
		at := now.Add(-time.Duration(total-i) * 36 * time.Second / 100) // the newest 10% within the last hour
		msg := &mynah.Message{Chat: chat, ID: mynah.MessageID(i + 1), Sender: mynah.User{ID: mynah.UserID(chat.ID), FirstName: "U"}, Text: "hi", Time: at}
		if _, err := db.Accept(ctx, "Ada", int64(i+1), mynah.Intake{Chat: chat, Message: msg, Turn: &mynah.Turn{Target: msg.ID, Created: at}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		n := 0
		if err := db.ModelTurnsSince(ctx, "Ada", now.Add(-time.Hour), func(mynah.UserID, time.Time) { n++ }); err != nil {
			b.Fatal(err)
		}
		if n < recent-1 || n > recent {
			b.Fatalf("%d turns read back, want %d", n, recent)
		}
	}
}
