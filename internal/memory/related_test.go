package memory_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
)

// TestRelatedDiet: asked for a recipe or a menu, the search also finds what the person
// once said of what they eat ("I've been vegetarian for two years", "my partner is
// lactose intolerant"), which shares no word with the request, before the chat's other
// talk of cooking (feature related); without the feature it is not found.
func TestRelatedDiet(t *testing.T) {
	db := openStore(t)
	chat := mynah.Chat{ID: 42, Type: mynah.ChatPrivate}
	me := mynah.User{ID: 1, FirstName: "Sam"}
	t0 := time.Date(2024, 3, 1, 18, 0, 0, 0, time.UTC)
	lines := []string{
		"what's a good way to cook rice so it isn't sticky?",
		"I've been vegetarian for about two years and I really don't like mushrooms, any tips for eating out?", // 2
		"can you help me plan a dinner party for six?",
		"how long should I cook a roast for?",
		"my oven runs hot, how do I adjust a recipe for that?",
		"what's a quick dinner after a late shift?",
		"how do I cook pasta for a crowd without it clumping?",
		"we had a lovely dinner at the new place on Friday",
		"what can I cook with leftover bread?",
		"any recipe ideas for a slow cooker?",
		"my partner is lactose intolerant, what cheese can she eat?", // 11
		"I cooked a huge pot of soup yesterday, how long does it keep?",
	}
	var msgs []mynah.Message
	for i, l := range lines {
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(i + 1), Time: t0.Add(time.Duration(i) * 24 * time.Hour), Sender: me, Text: l})
	}
	if _, err := db.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
		t.Fatal(err)
	}
	noRelated, _ := memory.Ablate(memory.DefaultOptions(), "related")
	for _, c := range []struct {
		opts memory.Options
		want bool
	}{{memory.DefaultOptions(), true}, {noRelated, false}} {
		for _, q := range []string{"Can you suggest a recipe I could cook for dinner tonight?", "My in-laws visit on Sunday, can you suggest a menu?"} {
			res, err := memory.NewSearcher(db, c.opts, nil).Search(t.Context(), memory.Query{Agent: "a", Chat: chat.ID, Text: q, K: 3})
			if err != nil {
				t.Fatal(err)
			}
			found := slices.ContainsFunc(res, func(r memory.Result) bool { return r.MessageID == 2 }) &&
				slices.ContainsFunc(res, func(r memory.Result) bool { return r.MessageID == 11 })
			if found != c.want {
				t.Errorf("related %v: %q: top 3 %v, found the diet messages (2, 11): %v, want %v", c.opts.Related, q, resultIDs(res), found, c.want)
			}
		}
	}
}
