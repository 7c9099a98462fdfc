package sqlite

import (
	"fmt"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"

	"github.com/mynah-ai/mynah/internal/storetest"
)

func TestSearchStore(t *testing.T) { storetest.RunSearch(t, backend()) }

// BenchmarkAcceptIndexed measures what the history index's trigger adds to the intake
// path: Accept of one message per update, with the index and with its triggers dropped.
func BenchmarkAcceptIndexed(b *testing.B) {
	for _, indexed := range []bool{true, false} {
		b.Run(fmt.Sprintf("indexed=%v", indexed), func(b *testing.B) {
			db := openTemp(b)
			if !indexed {
				if _, err := db.write.ExecContext(b.Context(), `DROP TRIGGER messages_search_insert; DROP TRIGGER messages_search_edit`); err != nil {
					b.Fatal(err)
				}
			}
			chat := mynah.Chat{ID: -1001, Type: mynah.ChatSupergroup, Title: "bench"}
			users := []mynah.User{{ID: 1, FirstName: "A"}, {ID: 2, FirstName: "B"}}
			i := 0
			for b.Loop() {
				i++
				m := &mynah.Message{Chat: chat, ID: mynah.MessageID(i), Sender: users[0], Time: time.UnixMilli(int64(i) * 1000),
					Text: "an ordinary message of group chatter about the weekend plans"}
				if _, err := db.Accept(b.Context(), "a", int64(i), mynah.Intake{Chat: chat, Users: users, Message: m}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
