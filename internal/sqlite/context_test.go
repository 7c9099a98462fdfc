package sqlite

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
)

// TestConversationContext: a short message is found by the words of the conversation
// just before it (what it answers); a long one, or one said more than an hour later, is
// found by its own words only; the text a message replies to counts whenever it was said.
func TestConversationContext(t *testing.T) {
	db := openTemp(t)
	ctx := t.Context()
	chat := mynah.Chat{ID: -100, Type: mynah.ChatGroup}
	alice, bob := mynah.User{ID: 1, FirstName: "Alice"}, mynah.User{ID: 2, FirstName: "Bob"}
	t0 := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	long := strings.Repeat("something else entirely, about the garden and the fence ", 12)
	msgs := []mynah.Message{
		{ID: 1, Sender: alice, Time: t0, Text: "when is the wedding?"},
		{ID: 2, Sender: bob, Time: t0.Add(time.Minute), Text: "in May!"},
		{ID: 3, Sender: alice, Time: t0.Add(2 * time.Hour), Text: "which bakery makes the cake?"},
		{ID: 4, Sender: bob, Time: t0.Add(2*time.Hour + time.Minute), Text: long},
		{ID: 5, Sender: alice, Time: t0.Add(5 * time.Hour), Text: "who plays the violin?"},
		{ID: 6, Sender: bob, Time: t0.Add(8 * time.Hour), Text: "no idea"},
		{ID: 7, Sender: bob, Time: t0.Add(48 * time.Hour), Text: "my cousin does", ReplyTo: &mynah.ReplyRef{ID: 5, Sender: alice, Text: "who plays the violin?"}},
	}
	if _, err := db.ImportMessages(ctx, "a", chat, msgs); err != nil {
		t.Fatal(err)
	}
	find := func(term string) []mynah.MessageID {
		hits, err := db.SearchHistory(ctx, mynah.SearchQuery{Agent: "a", Chat: chat.ID, Terms: []string{term}, PreviousWeight: 0.3, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var ids []mynah.MessageID
		for _, h := range hits {
			ids = append(ids, h.Message.ID)
		}
		slices.Sort(ids)
		return ids
	}
	for term, want := range map[string][]mynah.MessageID{
		"wedding": {1, 2}, // the short answer, a minute later
		"bakery":  {3},    // not the long message after it
		"violin":  {5, 7}, // not "no idea" three hours later; the reply two days later
	} {
		if got := find(term); !slices.Equal(got, want) {
			t.Errorf("%q found %v, want %v", term, got, want)
		}
	}
}
