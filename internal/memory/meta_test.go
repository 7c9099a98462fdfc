package memory_test

import (
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
)

// TestMetaWords: a question that speaks of the conversation itself ("in our previous
// conversation", "earlier") finds what was said, not the messages that speak of earlier
// conversations in passing, as an assistant's long answers do.
func TestMetaWords(t *testing.T) {
	db := openStore(t)
	user, bot := mynah.User{ID: 1, FirstName: "Dana"}, mynah.User{ID: 2, FirstName: "Assistant"}
	chat := mynah.Chat{ID: 5, Type: mynah.ChatPrivate}
	t0 := time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
	texts := []struct {
		from mynah.User
		text string
	}{
		{user, "Planning a weekend in Barcelona, any hotel you would pick?"},
		{bot, "I recommend Hotel Arts, right on the beach, with a pool on the roof."},
		{user, "Can you recommend a laptop for photo editing?"},
		{bot, "I recommend a laptop with a colour-accurate screen and 32 GB of memory."},
		{user, "Recommend a podcast for the commute?"},
		{bot, "I recommend The Daily for the news, or Radiolab."},
		{user, "The hotel booking script fails like in the previous conversation."},
		{bot, "As earlier in that conversation: the hotel booking script fails on the date. Here is the fix."},
		{user, "Thanks, the tests pass now."},
		{bot, "Glad to hear it. Anything else?"},
	}
	var msgs []mynah.Message
	for i, m := range texts {
		msgs = append(msgs, mynah.Message{Agent: "a", Chat: chat, ID: mynah.MessageID(i + 1), Sender: m.from,
			Time: t0.Add(time.Duration(i) * 24 * time.Hour), Text: m.text, Outgoing: m.from == bot})
	}
	if _, err := db.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
		t.Fatal(err)
	}
	res, err := memory.NewSearcher(db, memory.DefaultOptions(), nil).Search(t.Context(),
		memory.Query{Agent: "a", Chat: chat.ID, Text: "In our previous conversation, which hotel did you recommend earlier?", K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].MessageID != 2 {
		for _, r := range res {
			t.Logf("#%d %s", r.MessageID, r.Snippet)
		}
		t.Errorf("want the recommendation (#2) first")
	}
}
