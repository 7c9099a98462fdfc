package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

// search runs a query and returns the hits' message ids, best first.
func search(t *testing.T, s mynah.HistorySearch, q mynah.SearchQuery) []mynah.MessageID {
	t.Helper()
	if q.Limit == 0 {
		q.Limit = 10
	}
	hits, err := s.SearchHistory(t.Context(), q)
	if err != nil {
		t.Fatalf("SearchHistory(%+v): %v", q, err)
	}
	out := make([]mynah.MessageID, len(hits))
	for i, h := range hits {
		if h.Score <= 0 {
			t.Errorf("hit %d scored %v, want > 0", h.Message.ID, h.Score)
		}
		if i > 0 && h.Score > hits[i-1].Score {
			t.Errorf("hits out of order: %v after %v", h.Score, hits[i-1].Score)
		}
		out[i] = h.Message.ID
	}
	return out
}

func sorted(ids []mynah.MessageID) []mynah.MessageID {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	return ids
}

func testSearchLive(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(group, 1, "the meeting is at the old mill on Friday"))
	post(t, s, agentA, message(group, 2, "bring the red umbrella"))
	reply := &mynah.Message{Chat: group, ID: 3, Sender: bot, Time: at(3), Text: "I will remember the mill", Outgoing: true}
	if _, err := s.ImportMessages(t.Context(), agentA, group, []mynah.Message{*reply}); err != nil {
		t.Fatal(err)
	}
	got := search(t, s, mynah.SearchQuery{Agent: agentA, Chat: group.ID, Terms: []string{"mill"}})
	if diff := cmp.Diff(sorted(got), []mynah.MessageID{1, 3}); diff != "" {
		t.Errorf("search for mill (-got +want):\n%s", diff)
	}
	hits, err := s.SearchHistory(t.Context(), mynah.SearchQuery{Agent: agentA, Chat: group.ID, Terms: []string{"umbrella"}, Limit: 5})
	if err != nil || len(hits) != 1 {
		t.Fatalf("search for umbrella: %d hits, %v", len(hits), err)
	}
	if diff := cmp.Diff(hits[0].Message, stored(agentA, message(group, 2, "bring the red umbrella")), cmpOpts); diff != "" {
		t.Errorf("hit is not the stored message (-got +want):\n%s", diff)
	}
	if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: []string{"nothing", "here"}}); len(got) != 0 {
		t.Errorf("search for absent words found %v", got)
	}
	post(t, s, agentA, message(group, 4, "nothing is here yet"))
	if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: []string{"nothing", "here"}}); !slices.Equal(got, []mynah.MessageID{4}) {
		t.Errorf("search for words absent before a new message found %v, want [4]", got)
	}
	if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: nil}); len(got) != 0 {
		t.Errorf("search without terms found %v", got)
	}
}

// testSearchStems: a word finds its other forms, in English (the porter stemmer), Russian
// and Ukrainian (each word by its own language, in one chat), with case, accents, ё, ґ
// and the apostrophes of Ukrainian folded; and the forms whose stem gains or loses a
// vowel (кошка, кошек; поїздка, поїздок). A part of a compound word finds it (gym:
// PureGym), and the whole word as typed still does.
func testSearchStems(t *testing.T, b Backend) {
	s := b.Open(t)
	for i, text := range []string{
		"She was running to the café",
		"Вчора ми гуляли в парку з собакою",
		"Мы обсуждали новую книгу",
		"Оля наконец купила машину, красную",
		"Ми з Олею два роки жили у Львові",
		"Записала сина до лікаря на вівторок",
		"В Киеве снова идёт снег",
		"Поїдемо потягом, бо літаком дорого",
		"Памʼятаєш ґанок біля ґалереї на Подолі?",
		"Машиною їхати довше, ніж потягом",
		"Взяли из приюта вторую кошку, рыжую",
		"Поїздка до Карпат вдалася, дякую за поради",
		"Купили Мише подарок на день рождения",
		"Сестри приїдуть у суботу",
		"Signed up at PureGym, my AirPods died on the first lap",
	} {
		post(t, s, agentA, message(dm, i+1, text))
	}
	for _, c := range []struct {
		term string
		want []mynah.MessageID
	}{
		{"runs", []mynah.MessageID{1}},
		{"cafe", []mynah.MessageID{1}},
		{"CAFÉ", []mynah.MessageID{1}},
		{"парку", []mynah.MessageID{2}},
		{"парк", []mynah.MessageID{2}},
		{"книгу", []mynah.MessageID{3}},
		{"книга", []mynah.MessageID{3}},
		{"машина", []mynah.MessageID{4, 10}},
		{"Львів", []mynah.MessageID{5}},
		{"лікар", []mynah.MessageID{6}},
		{"Киев", []mynah.MessageID{7}},
		{"идет", []mynah.MessageID{7}},
		{"потяг", []mynah.MessageID{8, 10}},
		{"пам'ятаєш", []mynah.MessageID{9}},
		{"галерея", []mynah.MessageID{9}},
		{"кошек", []mynah.MessageID{11}},
		{"поїздок", []mynah.MessageID{12}},
		{"подарки", []mynah.MessageID{13}},
		{"сестер", []mynah.MessageID{14}},
		{"gym", []mynah.MessageID{15}},
		{"pods", []mynah.MessageID{15}},
		{"puregym", []mynah.MessageID{15}},
		{"AirPods", []mynah.MessageID{15}},
		{"pure gym", []mynah.MessageID{15}},
	} {
		if got := search(t, s, mynah.SearchQuery{Agent: agentA, Chat: dm.ID, Terms: []string{c.term}}); !slices.Equal(sorted(got), c.want) {
			t.Errorf("search for %q = %v, want %v", c.term, got, c.want)
		}
	}
}

func testSearchRanks(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(group, 1, "owls hunt at night, owls are quiet, owls see well"))
	post(t, s, agentA, message(group, 2, "an owl was seen near the barn today with other birds"))
	post(t, s, agentA, message(group, 3, "sparrows and finches and many other small birds"))
	got := search(t, s, mynah.SearchQuery{Agent: agentA, Chat: group.ID, Terms: []string{"owl", "barn"}})
	if !slices.Equal(got, []mynah.MessageID{2, 1}) {
		t.Errorf("search for owl barn = %v, want [2 1]: the message with both terms first", got)
	}
	got = search(t, s, mynah.SearchQuery{Agent: agentA, Chat: group.ID, Terms: []string{"owls", "birds"}, Limit: 1})
	if len(got) != 1 {
		t.Errorf("limit 1 returned %v", got)
	}
	// Messages that match alike come newest first: the same words said again are the
	// latest state of things. (Two hours apart, none is another's conversation.)
	for id := 1; id <= 4; id++ {
		m := message(dm, id, "the heron is back at the pond")
		m.Time = t0.Add(time.Duration(id) * 2 * time.Hour)
		post(t, s, agentA, m)
	}
	if got := search(t, s, mynah.SearchQuery{Agent: agentA, Chat: dm.ID, Terms: []string{"heron"}}); !slices.Equal(got, []mynah.MessageID{4, 3, 2, 1}) {
		t.Errorf("search for heron in four equal messages = %v, want [4 3 2 1], newest first", got)
	}
}

// testSearchUnknownTerm: a word that matches nothing does not remove the others from a
// query ("Havells grooming kit" finds what "Havells kit" finds), in a small chat and in
// one big enough that the other words are common.
func testSearchUnknownTerm(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(dm, 1, "I ordered a Havells ceiling fan"))
	post(t, s, agentA, message(dm, 2, "the repair kit arrived today"))
	post(t, s, agentA, message(dm, 3, "nothing to see here"))
	var msgs []mynah.Message
	for i := 1; i <= 1200; i++ {
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(i), Sender: alice, Time: at(i), Text: fmt.Sprintf("Havells kit number %d", i)})
	}
	importMessages(t, s, agentA, group, msgs...)
	for _, chat := range []mynah.ChatID{dm.ID, group.ID} {
		want := search(t, s, mynah.SearchQuery{Agent: agentA, Chat: chat, Terms: []string{"havells", "kit"}, Limit: 5})
		if len(want) < 2 {
			t.Fatalf("chat %d: search for havells kit = %v, want hits", chat, want)
		}
		for _, terms := range [][]string{{"havells", "grooming", "kit"}, {"xyzzy", "havells", "kit"}} {
			if got := search(t, s, mynah.SearchQuery{Agent: agentA, Chat: chat, Terms: terms, Limit: 5}); len(got) == 0 {
				t.Errorf("chat %d: search for %q found nothing, want what %v found: a word nobody wrote must not remove the others", chat, terms, want)
			}
		}
	}
}

func testSearchEscapes(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(group, 1, `he said "NEAR" and AND or OR, then (stars*) - ok: col:umn ^start`))
	for _, term := range []string{`"`, `near(`, `and`, `or`, `not`, `*`, `stars*`, `col:umn`, `^start`, `-`, `{body}`, `)`, `'`} {
		if _, err := s.SearchHistory(t.Context(), mynah.SearchQuery{Agent: agentA, Terms: []string{term, "said"}, Limit: 5}); err != nil {
			t.Errorf("search with term %q: %v", term, err)
		}
	}
	if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: []string{`"near"`}}); len(got) != 1 {
		t.Errorf("a quoted word as a term found %v, want the message", got)
	}
}

// testSearchEdits: an edit replaces what matches, whether the message was indexed
// before it (message 1: searched, then edited) or not yet (message 2: edited at once).
func testSearchEdits(t *testing.T, b Backend) {
	s := b.Open(t)
	m := message(group, 1, "lunch at noon")
	post(t, s, agentA, m)
	if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: []string{"lunch"}}); !slices.Equal(got, []mynah.MessageID{1}) {
		t.Fatalf("before the edit %v match lunch, want [1]", got)
	}
	// Each new word is searched for right before the edit that brings it in, alone and
	// beside a word that matches: a store that remembers how many messages hold a word
	// must not go on finding nothing.
	absent := func(word string) {
		t.Helper()
		if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: []string{word}}); len(got) != 0 {
			t.Fatalf("before the edit %v match %s", got, word)
		}
	}
	absent("dinner")
	edit := *m
	edit.Text, edit.Edited = "dinner at eight", at(60)
	accept(t, s, agentA, 77, mynah.Intake{Chat: group, Message: &edit, Edit: true})
	m2 := message(group, 2, "breakfast at seven")
	post(t, s, agentA, m2)
	if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: []string{"dinner", "brunch"}}); !slices.Equal(got, []mynah.MessageID{1}) {
		t.Fatalf("before the edit %v match dinner or brunch, want [1]", got)
	}
	edit2 := *m2
	edit2.Text, edit2.Edited = "brunch at ten", at(61)
	accept(t, s, agentA, 78, mynah.Intake{Chat: group, Message: &edit2, Edit: true})
	for _, old := range []string{"lunch", "breakfast"} {
		if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: []string{old}}); len(got) != 0 {
			t.Errorf("after an edit the old text %q still matches: %v", old, got)
		}
	}
	if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: []string{"dinner"}}); !slices.Equal(got, []mynah.MessageID{1}) {
		t.Errorf("after an edit the new text matches %v, want [1]", got)
	}
	if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: []string{"brunch"}}); !slices.Equal(got, []mynah.MessageID{2}) {
		t.Errorf("after an edit before indexing the new text matches %v, want [2]", got)
	}
	if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: []string{"dinner", "brunch"}}); !slices.Equal(sorted(got), []mynah.MessageID{1, 2}) {
		t.Errorf("after the edits %v match dinner or brunch, want [1 2]", got)
	}
}

func testSearchScopes(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(group, 1, "the kettle is broken"))
	post(t, s, agentA, message(dm, 2, "buy a new kettle"))
	carolSays := &mynah.Message{Chat: group, ID: 3, Sender: carol, Time: at(3), Text: "my kettle whistles"}
	post(t, s, agentA, carolSays)
	post(t, s, agentB, message(group, 4, "kettle for agent b"))
	for _, c := range []struct {
		name string
		q    mynah.SearchQuery
		want []mynah.MessageID
	}{
		{"agent", mynah.SearchQuery{Agent: agentA}, []mynah.MessageID{1, 2, 3}},
		{"chat", mynah.SearchQuery{Agent: agentA, Chat: group.ID}, []mynah.MessageID{1, 3}},
		{"other chat", mynah.SearchQuery{Agent: agentA, Chat: dm.ID}, []mynah.MessageID{2}},
		{"sender", mynah.SearchQuery{Agent: agentA, Sender: carol.ID}, []mynah.MessageID{3}},
		{"sender in chat", mynah.SearchQuery{Agent: agentA, Chat: dm.ID, Sender: carol.ID}, nil},
		{"other agent", mynah.SearchQuery{Agent: agentB}, []mynah.MessageID{4}},
		{"unknown agent", mynah.SearchQuery{Agent: "nobody"}, nil},
		{"unknown chat", mynah.SearchQuery{Agent: agentA, Chat: 5}, nil},
	} {
		c.q.Terms = []string{"kettle"}
		if got := sorted(search(t, s, c.q)); !slices.Equal(got, c.want) {
			t.Errorf("%s: found %v, want %v", c.name, got, c.want)
		}
	}
}

func testSearchContext(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(group, 1, "see you there")) // by Alice Liddell, in March 2025
	q := mynah.SearchQuery{Agent: agentA, Terms: []string{"liddell"}}
	if got := search(t, s, q); len(got) != 0 {
		t.Errorf("with context weight 0 the sender's name matched: %v", got)
	}
	q.ContextWeight = 0.5
	for _, term := range []string{"liddell", "march", "2025"} {
		q.Terms = []string{term}
		if got := search(t, s, q); !slices.Equal(got, []mynah.MessageID{1}) {
			t.Errorf("with a context weight, %q found %v, want [1]", term, got)
		}
	}
}

// testSearchBoost: boost words (a month and year, matched in who said a message and
// when) weigh where they meet the search's words and find nothing by themselves: of two
// messages about painting the one said then comes first, and the other messages said then
// are not found; with no word of the search matching anything, they are searched alone.
// A word the search has in common with many messages finds that person's messages of the
// time however they are worded.
func testSearchBoost(t *testing.T, b Backend) {
	s := b.Open(t)
	march, june := time.Date(2024, 3, 10, 12, 0, 0, 0, time.UTC), time.Date(2024, 6, 10, 12, 0, 0, 0, time.UTC)
	bob := mynah.User{ID: 7, FirstName: "Bob"}
	msgs := []mynah.Message{
		{ID: 1, Sender: alice, Time: june, Text: "I paint landscapes"},
		{ID: 2, Sender: alice, Time: march, Text: "I paint portraits"},
		{ID: 3, Sender: bob, Time: march.Add(time.Hour), Text: "the weather was lovely"},
		{ID: 4, Sender: bob, Time: march.Add(2 * time.Hour), Text: "we went to the lake"},
	}
	for i := range 600 { // Alice's name is common: in more messages than a rare word's
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(100 + i), Sender: alice, Time: june.Add(time.Duration(i) * time.Minute), Text: fmt.Sprintf("note %d", i)})
	}
	msgs = append(msgs, mynah.Message{ID: 900, Sender: alice, Time: march.Add(3 * time.Hour), Text: "the gallery took my canvas"})
	importMessages(t, s, agentA, group, msgs...)
	for _, chat := range []mynah.ChatID{group.ID, 0} {
		q := mynah.SearchQuery{Agent: agentA, Chat: chat, Terms: []string{"paint"}, Boost: []string{"march", "2024"}, ContextWeight: 2, Limit: 10}
		if got := search(t, s, q); !slices.Equal(got, []mynah.MessageID{2, 1}) {
			t.Errorf("chat %d: paint, boosted by march 2024 = %v, want [2 1]: the message of March first, and no other message of it", chat, got)
		}
		q.Terms = []string{"zebra"}
		if got := sorted(search(t, s, q)); !slices.Equal(got, []mynah.MessageID{2, 3, 4, 900}) {
			t.Errorf("chat %d: zebra (nowhere), boosted by march 2024 = %v, want the messages of March 2024", chat, got)
		}
		q.Terms = []string{"alice", "paint"}
		if got := search(t, s, q); len(got) < 3 || got[0] != 2 || !slices.Contains(got, 900) || slices.Contains(got, 3) {
			t.Errorf("chat %d: alice paint, boosted by march 2024 = %v, want 2 first, Alice's 900 of March too, not Bob's", chat, got)
		}
	}
}

func testAround(t *testing.T, b Backend) {
	s := b.Open(t)
	for _, id := range []int{2, 4, 6, 8, 10} {
		post(t, s, agentA, message(group, id, "m"))
	}
	for _, c := range []struct {
		id            mynah.MessageID
		before, after int
		want          []mynah.MessageID
	}{
		{6, 1, 1, []mynah.MessageID{4, 6, 8}},
		{6, 2, 0, []mynah.MessageID{2, 4, 6}},
		{2, 2, 1, []mynah.MessageID{2, 4}},
		{10, 1, 3, []mynah.MessageID{8, 10}},
		{5, 1, 1, []mynah.MessageID{4, 6}},
		{6, 0, 0, []mynah.MessageID{6}},
	} {
		ms, err := s.Around(t.Context(), agentA, group.ID, c.id, c.before, c.after)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(ms); !slices.Equal(got, c.want) {
			t.Errorf("Around(%d, %d, %d) = %v, want %v", c.id, c.before, c.after, got, c.want)
		}
	}
}

// bigChat is a chat of 3,000 messages, one a second from t0, each saying "hello" and
// "note" but message 1234, which says "hello" and "unicorn".
func bigChat() []mynah.Message {
	var msgs []mynah.Message
	for i := 1; i <= 3000; i++ {
		text := fmt.Sprintf("hello again, note %d", i)
		if i == 1234 {
			text = "hello, I saw a unicorn"
		}
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(i), Sender: alice, Time: at(i), Text: text})
	}
	return msgs
}

// testSearchBigChat: in a chat where a word is in almost every message, a query still
// finds the one message with its rarer word first, and a query of the common word alone
// still answers with recent messages, as of a time too.
func testSearchBigChat(t *testing.T, b Backend) {
	s := b.Open(t)
	importMessages(t, s, agentA, group, bigChat()...)
	for _, chat := range []mynah.ChatID{group.ID, 0} {
		got := search(t, s, mynah.SearchQuery{Agent: agentA, Chat: chat, Terms: []string{"hello", "unicorn"}, Limit: 5})
		if len(got) == 0 || got[0] != 1234 {
			t.Errorf("chat %d: search for hello unicorn = %v, want 1234 first", chat, got)
		}
		if got := search(t, s, mynah.SearchQuery{Agent: agentA, Chat: chat, Terms: []string{"hello", "again"}, Limit: 5}); len(got) != 5 {
			t.Errorf("chat %d: a query of common words found %v, want 5 messages", chat, got)
		}
		// A mistyped word that stands for a very common one finds what that word finds.
		if got := search(t, s, mynah.SearchQuery{Agent: agentA, Chat: chat, Terms: []string{"hellp"}, Limit: 5, Typos: true}); len(got) != 5 {
			t.Errorf("chat %d: a search for hellp found %v, want 5 messages with hello", chat, got)
		}
		// As of a time, a query of common words answers with messages said by then, though
		// the newest of their matches were said later, and with recent ones of them, as it
		// does asked now: not the chat's first messages.
		asOf := mynah.SearchQuery{Agent: agentA, Chat: chat, Terms: []string{"hello", "again"}, Limit: 5, AsOf: at(1000)}
		if got := search(t, s, asOf); len(got) != 5 || slices.ContainsFunc(got, func(id mynah.MessageID) bool { return id > 1000 || id <= 100 }) {
			t.Errorf("chat %d: a query of common words as of message 1000's time found %v, want 5 recent messages said by then", chat, got)
		}
	}
}

// testSearchCommonTerms: in a chat big enough that some words are common, a common word
// still counts where it meets a rare one (of three messages about a unicorn, the one that
// also says hello comes first, though it is the longest), and a query of common words
// alone finds the one message that has two of them however old it is, not only the
// newest messages with one.
func testSearchCommonTerms(t *testing.T, b Backend) {
	s := b.Open(t)
	var msgs []mynah.Message
	add := func(text string) mynah.MessageID {
		id := mynah.MessageID(len(msgs) + 1)
		msgs = append(msgs, mynah.Message{ID: id, Sender: alice, Time: at(int(id)), Text: text})
		return id
	}
	both := add("alpha and beta met")
	for i := range 5000 {
		switch {
		case i < 900:
			add(fmt.Sprintf("alpha note %d", i))
		case i < 1500:
			add(fmt.Sprintf("hello note %d", i))
		case i >= 3500:
			add(fmt.Sprintf("beta note %d", i))
		default:
			add(fmt.Sprintf("note %d", i))
		}
	}
	add("a unicorn was seen")
	hello := add("hello unicorn came back today")
	add("the unicorn came back")
	importMessages(t, s, agentA, group, msgs...)
	for _, q := range []mynah.SearchQuery{{Chat: group.ID}, {}, {Chat: group.ID, Sender: alice.ID}} {
		q.Agent, q.Limit, q.Terms = agentA, 5, []string{"hello", "unicorn"}
		if got := search(t, s, q); len(got) < 3 || got[0] != hello {
			t.Errorf("chat %d, sender %d: search for hello unicorn = %v, want %d first: a common word weighs where it meets a rare one", q.Chat, q.Sender, got, hello)
		}
		q.Terms = []string{"alpha", "beta"}
		if got := search(t, s, q); len(got) != 5 || got[0] != both {
			t.Errorf("chat %d, sender %d: search for alpha beta = %v, want %d first: the one message with both common words", q.Chat, q.Sender, got, both)
		}
	}
}

// testSearchWithin: a search asking for the messages of a time among its next best finds
// those said then, however weak their match, and no others beyond its limit, in a chat,
// for one sender and across the agent's chats; not those beyond the next best.
func testSearchWithin(t *testing.T, b Backend) {
	s := b.Open(t)
	day := func(d int) time.Time { return t0.AddDate(0, 0, d) }
	var msgs []mynah.Message
	for d := 1; d <= 20; d++ {
		text := "the lake was calm"
		if d <= 10 { // a weaker match: the word in a longer message
			text = "we walked for hours past the old farm, the forest and the bridge before we reached the lake at last"
		}
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(d), Sender: alice, Time: day(d), Text: text})
	}
	importMessages(t, s, agentA, group, msgs...)
	for _, q := range []mynah.SearchQuery{{Chat: group.ID}, {Chat: group.ID, Sender: alice.ID}, {}} {
		q.Agent, q.Terms, q.Limit = agentA, []string{"lake"}, 5
		got := search(t, s, q)
		if len(got) != 5 || slices.ContainsFunc(got, func(id mynah.MessageID) bool { return id <= 10 }) {
			t.Fatalf("chat %d, sender %d: search for lake = %v, want 5 of the short messages 11-20", q.Chat, q.Sender, got)
		}
		best := got
		q.WithinLimit, q.Since, q.Until = 15, day(3), day(5)
		got = search(t, s, q)
		if !slices.Equal(got[:min(5, len(got))], best) || !slices.Equal(sorted(got[5:]), []mynah.MessageID{3, 4}) {
			t.Errorf("chat %d, sender %d: search for lake, the next 15 within days 3-4 = %v, want %v, then 3 and 4", q.Chat, q.Sender, got, best)
		}
		q.Since, q.Until = day(8), time.Time{}
		got = search(t, s, q)
		want := []mynah.MessageID{8, 9, 10}
		for d := mynah.MessageID(11); d <= 20; d++ {
			if !slices.Contains(best, d) {
				want = append(want, d)
			}
		}
		if !slices.Equal(sorted(got[5:]), want) {
			t.Errorf("chat %d, sender %d: search for lake, the next 15 since day 8 = %v, want %v, then %v", q.Chat, q.Sender, got, best, want)
		}
		q.WithinLimit, q.Since, q.Until = 3, day(3), day(5)
		if got := search(t, s, q); !slices.Equal(got, best) {
			t.Errorf("chat %d, sender %d: search for lake, the next 3 within days 3-4 = %v, want %v only: the next 3 are other days'", q.Chat, q.Sender, got, best)
		}
		q.WithinLimit, q.Since, q.Until = 15, day(30), day(40)
		if got := search(t, s, q); !slices.Equal(got, best) {
			t.Errorf("chat %d, sender %d: search for lake within days 30-39 = %v, want %v only", q.Chat, q.Sender, got, best)
		}
	}
}

// testSearchAsOf: a search as of a time (AsOf) finds the Limit best of the messages said
// by then, however many said later match better, and none said later; as of a time before
// the chat's first message it finds nothing. So does a search of every chat of the agent:
// a later message of another chat is left out too; and so does a search of a chat whose
// ids do not follow its times.
func testSearchAsOf(t *testing.T, b Backend) {
	s := b.Open(t)
	day := func(d int) time.Time { return t0.AddDate(0, 0, d) }
	var msgs []mynah.Message
	for d := 1; d <= 30; d++ {
		text := "the boiler is quiet"
		if d <= 5 { // weaker matches: the word in a longer message
			text = "we talked about the garden, the car, the holidays and then the boiler for a while"
		}
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(d), Sender: alice, Time: day(d), Text: text})
	}
	importMessages(t, s, agentA, group, msgs...)
	// another chat whose best matches were said later still
	importMessages(t, s, agentA, dm, mynah.Message{ID: 101, Sender: alice, Time: day(20), Text: "boiler"},
		mynah.Message{ID: 102, Sender: alice, Time: day(21), Text: "boiler boiler"})
	for _, q := range []mynah.SearchQuery{{Chat: group.ID}, {Chat: group.ID, Sender: alice.ID}, {}, {Sender: alice.ID}} {
		q.Agent, q.Terms, q.Limit = agentA, []string{"boiler"}, 4
		q.AsOf = day(5).Add(time.Hour)
		later := func(id mynah.MessageID) bool { return id > 5 }
		if got := search(t, s, q); len(got) != 4 || slices.ContainsFunc(got, later) {
			t.Errorf("chat %d sender %d: boiler as of day 5 = %v, want 4 of messages 1-5, said by then", q.Chat, q.Sender, got)
		}
		q.AsOf = day(5) // the moment message 5 was said
		if got := search(t, s, q); len(got) != 4 || slices.ContainsFunc(got, later) {
			t.Errorf("chat %d sender %d: boiler as of the moment of message 5 = %v, want 4 of messages 1-5", q.Chat, q.Sender, got)
		}
		q.AsOf = day(0)
		if got := search(t, s, q); len(got) != 0 {
			t.Errorf("chat %d sender %d: boiler as of before the chat began = %v, want nothing", q.Chat, q.Sender, got)
		}
	}
	// An imported chat whose ids do not follow its times (the file's order): what was
	// said by then is still what is found.
	other := mynah.Chat{ID: -100777, Type: mynah.ChatSupergroup, Title: "imported"}
	var shuffled []mynah.Message
	for i, d := range []int{12, 3, 25, 1, 18, 4, 30, 2, 9, 5, 22, 15} {
		shuffled = append(shuffled, mynah.Message{ID: mynah.MessageID(i + 1), Sender: alice, Time: day(d), Text: "the boiler is quiet"})
	}
	importMessages(t, s, agentA, other, shuffled...)
	q := mynah.SearchQuery{Agent: agentA, Chat: other.ID, Terms: []string{"boiler"}, Limit: 10, AsOf: day(5)}
	if got := sorted(search(t, s, q)); !slices.Equal(got, []mynah.MessageID{2, 4, 6, 8, 10}) {
		t.Errorf("boiler as of day 5 in a chat whose ids do not follow its times = %v, want [2 4 6 8 10], said by then", got)
	}
}

// testSearchWithinBusyChat: in a chat where the words of a search are too common to rank
// all their matches (a month's name in the month's every message: see veryCommonTerm), the
// messages of a time asked for are still found when none of the next best were said
// then, however old: counted in that time, the words are rare there. A word that is rare
// in the chat finds its message first as before.
func testSearchWithinBusyChat(t *testing.T, b Backend) {
	s := b.Open(t)
	importMessages(t, s, agentA, group, bigChat()...)
	q := mynah.SearchQuery{Agent: agentA, Chat: group.ID, Terms: []string{"hello", "note"}, Limit: 5,
		WithinLimit: 20, Since: at(100), Until: at(110)}
	got := search(t, s, q)
	if len(got) < 15 || !slices.Equal(sorted(got[5:]), []mynah.MessageID{100, 101, 102, 103, 104, 105, 106, 107, 108, 109}) {
		t.Errorf("search for hello note, 20 more within messages 100-109's time = %v, want 5 and then 100-109", got)
	}
	q.Terms = []string{"hello", "unicorn"}
	if got := search(t, s, q); len(got) == 0 || got[0] != 1234 {
		t.Errorf("search for hello unicorn within messages 100-109's time = %v, want 1234 first", got)
	}
}

// testSearchTypos: a typed search (Typos) whose words match nothing reads a mistyped word
// as the word one edit from it with the most matches in the chat, and only in the chat:
// another chat's words never stand in for it; a four-letter word only by a swap or an
// added letter, shorter words not at all. Where one word matches, a word that matches
// nothing is read only as a word with two of its letters swapped. A search without Typos
// corrects nothing.
func testSearchTypos(t *testing.T, b Backend) {
	s := b.Open(t)
	zoo := mynah.Chat{ID: -100999, Type: mynah.ChatSupergroup, Title: "zoo"}
	texts := []string{
		"don't forget your passport at the airport",
		"the passport photos are ready",
		"we saw the sunrise over the lake",
		"Andrew booked the hotel",
		"кошка спала на диване весь день",
		"the cat sat on the mat",
		"the yoga class starts at noon",
		"our kayak trip was cold",
	}
	for _, c := range []mynah.Chat{group, zoo} {
		var msgs []mynah.Message
		for i, text := range texts {
			if c.ID == zoo.ID {
				text = "a unicorn at the zoo: " + text
			}
			msgs = append(msgs, mynah.Message{ID: mynah.MessageID(i + 1), Sender: alice, Time: at(i), Text: text})
		}
		importMessages(t, s, agentA, c, msgs...)
	}
	for _, c := range []struct {
		terms       []string
		typos, want []mynah.MessageID // with and without Typos
	}{
		{[]string{"passprot"}, []mynah.MessageID{1, 2}, nil},                            // swapped
		{[]string{"pasport"}, []mynah.MessageID{1, 2}, nil},                             // left out
		{[]string{"sunrisse"}, []mynah.MessageID{3}, nil},                               // added
		{[]string{"andew", "hotal"}, []mynah.MessageID{4}, nil},                         // left out, changed
		{[]string{"дмване"}, []mynah.MessageID{5}, nil},                                 // Cyrillic, changed
		{[]string{"unicron"}, nil, nil},                                                 // only another chat's word
		{[]string{"cst"}, nil, nil},                                                     // too short to correct
		{[]string{"xqzvwk"}, nil, nil},                                                  // nothing near
		{[]string{"yoag"}, []mynah.MessageID{7}, nil},                                   // four letters, swapped
		{[]string{"kayk"}, []mynah.MessageID{8}, nil},                                   // four letters, added
		{[]string{"yogu"}, nil, nil},                                                    // four letters, changed
		{[]string{"photos", "passprot"}, []mynah.MessageID{1, 2}, []mynah.MessageID{2}}, // one matches: swapped
		{[]string{"cold", "yoag"}, []mynah.MessageID{7, 8}, []mynah.MessageID{8}},       // one matches: swapped
		{[]string{"photos", "pasport"}, []mynah.MessageID{2}, []mynah.MessageID{2}},     // one matches: left out
		{[]string{"class", "kayk"}, []mynah.MessageID{7}, []mynah.MessageID{7}},         // one matches: added
	} {
		for _, typos := range []bool{true, false} {
			want := c.want
			if typos {
				want = c.typos
			}
			got := search(t, s, mynah.SearchQuery{Agent: agentA, Chat: group.ID, Terms: c.terms, Typos: typos})
			if !slices.Equal(sorted(got), want) {
				t.Errorf("search for %q (typos %v) = %v, want %v", c.terms, typos, got, want)
			}
		}
	}
	if got := search(t, s, mynah.SearchQuery{Agent: agentA, Chat: zoo.ID, Terms: []string{"unicron"}, Typos: true}); len(got) != len(texts) {
		t.Errorf("search for unicron in the chat that says unicorn = %v, want all %d", got, len(texts))
	}
}

// testSearchCountsSaid: a word is rare or common by the messages that say it, not counted
// again in the conversation before each message after it. Said in 400 messages of a chat
// (fewer than termcount.Common), each followed by a reply, "kayak" is ranked in all its
// matches, and the oldest message, which says it four times, comes first; counted in the
// replies' previous column too (800), it was ranked in its newest 500 matches only, and
// that message was not found.
func testSearchCountsSaid(t *testing.T, b Backend) {
	s := b.Open(t)
	t0 := time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	var msgs []mynah.Message
	for i := 1; i <= 800; i++ {
		m := mynah.Message{ID: mynah.MessageID(i), Time: t0.Add(time.Duration(i) * time.Minute), Sender: mynah.User{ID: 1, FirstName: "Ann"},
			Text: "we took the kayak out again"}
		if i == 1 {
			m.Text = "kayak, kayak, kayak: my first kayak trip on the river"
		}
		if i%2 == 0 {
			m.Sender, m.Text = mynah.User{ID: 2, FirstName: "Bob"}, "nice, how was the weather?"
		}
		msgs = append(msgs, m)
	}
	importMessages(t, s, agentA, dm, msgs...)
	got := search(t, s, mynah.SearchQuery{Agent: agentA, Chat: dm.ID, Terms: []string{"kayak"}, ContextWeight: 2, PreviousWeight: 0.4, Limit: 10})
	if len(got) == 0 || got[0] != 1 {
		t.Errorf("search for kayak: %v, want message 1 first", got)
	}
}
