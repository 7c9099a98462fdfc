package sqlite

import (
	"fmt"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
)

// BenchmarkIndexPending is what the search index costs a stored message: messages are
// indexed in batches (IndexPending), one transaction for all that arrived since the last.
func BenchmarkIndexPending(b *testing.B) {
	benchIndexPending(b, []mynah.User{{ID: 1, FirstName: "A"}, {ID: 2, FirstName: "B"}},
		"an ordinary message %d of group chatter about the weekend plans")
}

// benchIndexPending stores b.N messages from users, their texts from texts in turn (each
// formatted with the message's number), then times indexing them.
func benchIndexPending(b *testing.B, users []mynah.User, texts ...string) {
	db := openTemp(b)
	chat := mynah.Chat{ID: -1001, Type: mynah.ChatSupergroup, Title: "bench"}
	for i := 1; i <= b.N; i++ {
		m := &mynah.Message{Chat: chat, ID: mynah.MessageID(i), Sender: users[i%len(users)], Time: time.UnixMilli(int64(i) * 1000),
			Text: fmt.Sprintf(texts[i%len(texts)], i)}
		if _, err := db.Accept(b.Context(), "a", int64(i), mynah.Intake{Chat: chat, Users: users, Message: m}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	n, err := db.IndexPending(b.Context())
	if err != nil || n != b.N {
		b.Fatalf("indexed %d of %d: %v", n, b.N, err)
	}
}

// A catch-up that indexed most of the history merges the index (mergeIndex): every
// message is still found once, and messages indexed after it too.
func TestSearchAfterLargeCatchUp(t *testing.T) {
	db := openTemp(t)
	chat := mynah.Chat{ID: -1001, Type: mynah.ChatSupergroup, Title: "big"}
	const n = 3 * indexBatch
	seedChat(t, db, "a", chat, n)
	if got, err := db.IndexPending(t.Context()); err != nil || got != n {
		t.Fatalf("IndexPending: %d, %v; want %d", got, err, n)
	}
	later := &mynah.Message{Chat: chat, ID: n + 1, Sender: mynah.User{ID: 42, FirstName: "Alice"}, Time: time.Now(),
		Text: "chatter after the import"}
	if _, err := db.Accept(t.Context(), "a", 1, mynah.Intake{Chat: chat, Message: later}); err != nil {
		t.Fatal(err)
	}
	hits, err := db.SearchHistory(t.Context(), mynah.SearchQuery{Agent: "a", Chat: chat.ID, Sender: 42,
		Terms: []string{"chatter"}, Limit: 2 * n})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[mynah.MessageID]bool{}
	for _, h := range hits {
		seen[h.Message.ID] = true
	}
	if len(hits) != n+1 || len(seen) != n+1 {
		t.Errorf("search for a word of every message: %d hits of %d messages, want %d", len(hits), len(seen), n+1)
	}
	for _, tc := range []struct {
		term string
		want mynah.MessageID
	}{{"1", 1}, {fmt.Sprint(n), n}, {"import", n + 1}} {
		hits, err := db.SearchHistory(t.Context(), mynah.SearchQuery{Agent: "a", Chat: chat.ID, Terms: []string{tc.term}, Limit: 10})
		if err != nil || len(hits) != 1 || hits[0].Message.ID != tc.want {
			t.Errorf("search for %q: %d hits, %v; want message %d", tc.term, len(hits), err, tc.want)
		}
	}
}

// idsBetween bounds a time's message ids in a chat whose ids are sparse: every bound,
// open sides, times between messages, and times before, after and between all of them.
func TestIDsBetween(t *testing.T) {
	db := openTemp(t)
	chat := mynah.Chat{ID: -1002, Type: mynah.ChatSupergroup, Title: "sparse"}
	t0 := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	hour := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	var msgs []mynah.Message
	ids := []int64{3, 4, 10, 11, 57, 1000, 1001, 5000} // said at hours 0, 2, 4, ...
	for i, id := range ids {
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(id), Time: hour(2 * i), Sender: mynah.User{ID: 1, FirstName: "A"}, Text: "hi"})
	}
	if _, err := db.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		since, until time.Time
		first, last  int64
		ok           bool
	}{
		{hour(0), hour(1), 3, 3, true},
		{hour(1), hour(3), 4, 4, true},
		{hour(2), hour(8), 4, 11, true},
		{hour(3), hour(4), 0, 0, false},
		{hour(8), time.Time{}, 57, 5000, true},
		{time.Time{}, hour(5), 3, 10, true},
		{time.Time{}, time.Time{}, 3, 5000, true},
		{hour(14), hour(15), 5000, 5000, true},
		{hour(15), hour(99), 0, 0, false},
		{hour(-9), hour(0), 0, 0, false},
	} {
		first, last, ok, err := db.idsBetween(t.Context(), "a", chat.ID, c.since, c.until)
		if err != nil {
			t.Fatal(err)
		}
		var in []int64 // the chat's ids in first..last
		for _, id := range ids {
			if ok && id >= first && id <= last {
				in = append(in, id)
			}
		}
		if ok != c.ok || ok && (in[0] != c.first || in[len(in)-1] != c.last) {
			t.Errorf("ids between %v and %v = %d..%d (%v): messages %v, want %d..%d (%v)", c.since, c.until, first, last, ok, in, c.first, c.last, c.ok)
		}
	}
	if _, _, ok, err := db.idsBetween(t.Context(), "a", -1003, hour(0), hour(99)); ok || err != nil {
		t.Errorf("ids between in a chat with no messages: ok %v, %v; want none", ok, err)
	}
}
