package memory_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// TestPlaces: asked of a country or an American state, in English, Ukrainian or Russian,
// the search finds the message that names a city in it instead. "When did Ann visit
// Italy?" finds "Rome was amazing" (feature places: the places in a place the query
// names); "what state did Ann visit?" finds "the beach in Tampa", and "which cities has
// Ann been to?" her Boston and Paris (kinds city and state), each before the chat's other
// talk of visits and trips.
func TestPlaces(t *testing.T) {
	db := openStore(t)
	chat := mynah.Chat{ID: -100600, Type: mynah.ChatGroup}
	ann, ben, olena := mynah.User{ID: 1, FirstName: "Ann"}, mynah.User{ID: 2, FirstName: "Ben"}, mynah.User{ID: 3, FirstName: "Олена"}
	t0 := time.Date(2024, 3, 1, 18, 0, 0, 0, time.UTC)
	type line struct {
		from *mynah.User
		text string
	}
	english := []line{
		{&ben, "my cousin wants to visit us next month, any ideas where to take her?"},
		{&ann, "Rome was amazing, we ate gelato every single day"}, // 2
		{&ben, "the trip to the lake was fun, we should visit again"},
		{&ann, "I took my turtles to the beach in Tampa yesterday"}, // 4
		{&ben, "I'd love to visit a state park this summer"},
		{&ann, "a visit to my parents is planned for the weekend"},
		{&ann, "Boston in the fall is lovely, so many old streets"}, // 7
		{&ben, "how was the trip? did you visit anything fun?"},
		{&ann, "Paris was rainy but the museums made up for it"}, // 9
		{&ben, "I have been to the city centre twice this week"},
		{&ann, "the city council has been arguing about bike lanes again"},
		{&ann, "I've been baking bread all week, the city bakery ran out"},
		{&ann, "been to the gym three times, the city pool is closed"},
	}
	ukrainian := []line{
		{&olena, "Рим був чудовий, щодня їли морозиво"}, // 1
		{&ben, "коли ти була в горах востаннє?"},
		{&olena, "я була в театрі, дуже сподобалось"},
		{&olena, "була на морі з дітьми, вода тепла"},
		{&ben, "ми ходили в гості до бабусі, коли ти була на роботі"},
		{&olena, "відвідала виставку в музеї, було цікаво"},
	}
	uk := openStore(t) // a store of its own: the English chat's words weigh nothing there
	for store, lines := range map[*sqlite.DB][]line{db: english, uk: ukrainian} {
		var msgs []mynah.Message
		for i, l := range lines {
			msgs = append(msgs, mynah.Message{ID: mynah.MessageID(i + 1), Time: t0.Add(time.Duration(i) * 24 * time.Hour), Sender: *l.from, Text: l.text})
		}
		if _, err := store.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
			t.Fatal(err)
		}
	}
	search := func(store *sqlite.DB, o memory.Options, text string) []mynah.MessageID {
		t.Helper()
		res, err := memory.NewSearcher(store, o, nil).Search(t.Context(), memory.Query{Agent: "a", Chat: chat.ID, Text: text, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		var ids []mynah.MessageID
		for _, r := range res {
			ids = append(ids, r.MessageID)
		}
		return ids
	}
	noPlaces, _ := memory.Ablate(memory.DefaultOptions(), "places")
	noKinds, _ := memory.Ablate(memory.DefaultOptions(), "kinds", "searchkinds")
	for _, c := range []struct {
		store *sqlite.DB
		query string
		want  []mynah.MessageID
		off   memory.Options // without the feature that finds them
	}{
		{db, "When did Ann visit Italy?", []mynah.MessageID{2}, noPlaces},
		{db, "What state did Ann visit?", []mynah.MessageID{4}, noKinds},
		{db, "Which cities has Ann been to?", []mynah.MessageID{7, 9}, noKinds},
		{uk, "Коли Олена була в Італії?", []mynah.MessageID{1}, noPlaces},
		{uk, "Які міста відвідала Олена?", []mynah.MessageID{1}, noKinds},
		{uk, "В каких странах была Олена?", []mynah.MessageID{1}, noKinds},
	} {
		got := search(c.store, memory.DefaultOptions(), c.query)
		for _, id := range c.want {
			if !slices.Contains(got, id) {
				t.Errorf("%q: %v, want %d among the first 3", c.query, got, id)
			}
		}
		if off := search(c.store, c.off, c.query); slices.ContainsFunc(c.want, func(id mynah.MessageID) bool { return slices.Contains(off, id) }) {
			t.Errorf("%q without the feature: %v; want none of %v, or the test does not show what it does", c.query, off, c.want)
		}
	}
}
