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
