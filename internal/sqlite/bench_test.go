package sqlite

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
)

// seedChat stores n messages of agent in chat (ids 1..n, every fifth in forum topic 7) in
// one transaction, through the same statements Accept uses, and returns the time it took.
// One transaction makes 100,000 messages a matter of seconds rather than minutes.
func seedChat(tb testing.TB, db *DB, agent string, chat mynah.Chat, n int) time.Duration {
	tb.Helper()
	ctx := tb.Context()
	start := time.Now()
	alice := mynah.User{ID: 42, FirstName: "Alice", Username: "alice"}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	err := db.inTx(ctx, func(tx *txn) error {
		if _, err := tx.exec(ctx, db.stmts.upsertChat, agent, int64(chat.ID), string(chat.Type), chat.Title,
			chat.Username, boolInt(chat.IsForum), t0.UnixMilli()); err != nil {
			return err
		}
		for i := 1; i <= n; i++ {
			m := &mynah.Message{Chat: chat, ID: mynah.MessageID(i), Sender: alice, Time: t0.Add(time.Duration(i) * time.Second),
				Text: fmt.Sprintf("message %d: a line of ordinary group chatter, about as long as most are. 🐦", i)}
			if i%5 == 0 {
				m.ThreadID = 7
			}
			if i%10 == 0 {
				m.Entities = []mynah.Entity{{Type: "mention", Offset: 0, Length: 6}}
				m.ReplyTo = &mynah.ReplyRef{ID: mynah.MessageID(i - 1), Sender: alice, Text: "the message before"}
			}
			if _, err := db.storeMessage(ctx, tx, agent, chat.ID, m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return time.Since(start)
}

func TestSeedChat(t *testing.T) {
	db := openTemp(t)
	chat := mynah.Chat{ID: -1001, Type: mynah.ChatSupergroup, Title: "big"}
	seedChat(t, db, "a", chat, 1000)
	h, err := db.History(t.Context(), "a", chat.ID, 7, 0, 50)
	if err != nil || len(h) != 50 || h[49].ID != 1000 || h[0].ID != 1000-49*5 {
		t.Fatalf("History of the seeded topic: %d messages, %v", len(h), err)
	}
}

// BenchmarkAccept measures the intake path: one update (chat, two users, a message) per
// Accept, each its own transaction.
func BenchmarkAccept(b *testing.B) {
	db := openTemp(b)
	chat := mynah.Chat{ID: -1001, Type: mynah.ChatSupergroup, Title: "bench"}
	users := []mynah.User{{ID: 1, FirstName: "A"}, {ID: 2, FirstName: "B"}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		m := &mynah.Message{Chat: chat, ID: mynah.MessageID(i), Sender: users[0], Time: time.UnixMilli(int64(i) * 1000),
			Text: "an ordinary message of group chatter"}
		if _, err := db.Accept(b.Context(), "a", int64(i), mynah.Intake{Chat: chat, Users: users, Message: m}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkAcceptParallel measures Accept from many goroutines at once (one chat each),
// the load the single writer connection serializes.
func BenchmarkAcceptParallel(b *testing.B) {
	db := openTemp(b)
	var next, chats atomic.Int64
	b.SetParallelism(4)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		chat := mynah.Chat{ID: mynah.ChatID(-1000 - chats.Add(1)), Type: mynah.ChatGroup}
		var id int64
		for pb.Next() {
			id++
			u := next.Add(1)
			m := &mynah.Message{Chat: chat, ID: mynah.MessageID(id), Sender: mynah.User{ID: 1}, Time: time.UnixMilli(u * 1000),
				Text: "an ordinary message of group chatter"}
			if _, err := db.Accept(b.Context(), "a", u, mynah.Intake{Chat: chat, Message: m}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkHistory measures the prompt's read: the newest 50 messages of a chat holding
// 100,000, for the whole chat and for one forum topic (a fifth of the chat), from the start
// of the chat and from a session start; and, for comparison, of a chat of 1,000.
func BenchmarkHistory(b *testing.B) {
	const n = 100_000
	db := openTemp(b)
	chat := mynah.Chat{ID: -1001, Type: mynah.ChatSupergroup, Title: "big", IsForum: true}
	took := seedChat(b, db, "a", chat, n)
	small := mynah.Chat{ID: -1002, Type: mynah.ChatGroup}
	seedChat(b, db, "a", small, 1000) // for comparison: the cost must not depend on the size
	b.Logf("seeded %d messages in %v (%.0f msgs/s)", n, took, n/took.Seconds())
	for _, bb := range []struct {
		name   string
		chat   mynah.ChatID
		thread int64
		after  mynah.MessageID
	}{
		{"chat", chat.ID, 0, 0},
		{"chat_after_session", chat.ID, 0, n - 200},
		{"topic", chat.ID, 7, 0},
		{"small_chat", small.ID, 0, 0},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				h, err := db.History(b.Context(), "a", bb.chat, bb.thread, bb.after, 50)
				if err != nil || len(h) != 50 {
					b.Fatalf("History: %d messages, %v", len(h), err)
				}
			}
		})
	}
}

// BenchmarkPendingTurns measures the runtime's queue scan: 100 pending turns (one per
// chat) read with the runtime's limit, as every dispatch does.
func BenchmarkPendingTurns(b *testing.B) {
	db := openTemp(b)
	for i := 1; i <= 100; i++ {
		chat := mynah.Chat{ID: mynah.ChatID(i), Type: mynah.ChatPrivate}
		m := &mynah.Message{Chat: chat, ID: 1, Sender: mynah.User{ID: mynah.UserID(i)}, Time: time.UnixMilli(int64(i) * 1000), Text: "hi"}
		if _, err := db.Accept(b.Context(), "a", int64(i), mynah.Intake{Chat: chat, Message: m, Turn: &mynah.Turn{Target: 1}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if ts, err := db.PendingTurns(b.Context(), "a", time.Now(), 512); err != nil || len(ts) != 100 {
			b.Fatalf("PendingTurns: %d turns, %v", len(ts), err)
		}
	}
}

// BenchmarkOpenNew opens a new database, which applies every migration: what a first
// start costs before mynah reaches Telegram.
func BenchmarkOpenNew(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		db, err := Open(b.Context(), fmt.Sprintf("%s/%d.db", b.TempDir(), i))
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}

// BenchmarkOpenExisting opens a database whose schema is current: what a restart costs.
func BenchmarkOpenExisting(b *testing.B) {
	path := b.TempDir() + "/m.db"
	db, err := Open(b.Context(), path)
	if err != nil {
		b.Fatal(err)
	}
	db.Close()
	for b.Loop() {
		db, err := Open(b.Context(), path)
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}
