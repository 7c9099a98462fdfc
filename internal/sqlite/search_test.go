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
