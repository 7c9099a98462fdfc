package memory

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/tool"
)

// chatOf builds a history of one chat from lines "+minutes sender: text", ids from 1.
func chatOf(t0 time.Time, lines ...string) *fakeHistory {
	h := &fakeHistory{}
	users := map[string]mynah.User{"Alice": alice, "Bob": bob, "Mynah": {ID: 99, FirstName: "Mynah", IsBot: true},
		"Assistant": {ID: 98, FirstName: "Assistant"}}
	for i, l := range lines {
		var minutes int
		var rest string
		if _, err := fmt.Sscanf(l, "+%d", &minutes); err != nil {
			panic(l)
		}
		rest = l[strings.Index(l, " ")+1:]
		name, text, _ := strings.Cut(rest, ": ")
		h.msgs = append(h.msgs, mynah.Message{Agent: "a", Chat: chat, ID: mynah.MessageID(i + 1), Sender: users[name],
			Time: t0.Add(time.Duration(minutes) * time.Minute), Text: text, Outgoing: name == "Mynah"})
	}
	return h
}

func searchIDs(t *testing.T, h History, o Options, q Query) []mynah.MessageID {
	t.Helper()
	q.Agent, q.Chat = "a", chat.ID
	rs, err := NewSearcher(h, o, nil).Search(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	return resultIDs(rs)
}

// featureFinds fails t unless the default ranking's results for q hold id and those
// without feature do not (the test would show nothing otherwise); it returns the
// default's results.
func featureFinds(t *testing.T, h History, q Query, feature string, id mynah.MessageID) []mynah.MessageID {
	t.Helper()
	got := searchIDs(t, h, DefaultOptions(), q)
	if !slices.Contains(got, id) {
		t.Errorf("%q: results %v, want %d", q.Text, got, id)
	}
	off, err := Ablate(DefaultOptions(), feature)
	if err != nil {
		t.Fatal(err)
	}
	if without := searchIDs(t, h, off, q); slices.Contains(without, id) {
		t.Errorf("%q without %s: %v, want no %d; the test does not show what it does", q.Text, feature, without, id)
	}
	return got
}

func before(ids []mynah.MessageID, a, b mynah.MessageID) bool {
	i, j := slices.Index(ids, a), slices.Index(ids, b)
	return i >= 0 && (j < 0 || i < j)
}

// TestNeighboursByShape: a short reply next to a strong match comes up with it; a long
// message next to one is read on its own; a message an hour away from another is no
// neighbour of it.
func TestNeighboursByShape(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	long := strings.Repeat("a long story about the garden and the weather and what grew there ", 10)
	h := chatOf(t0,
		"+0 Alice: the vet for the cat, what was her name?",
		"+1 Bob: Ruiz, the cat loved her",
		"+200 Bob: the cat hid under the bed",
		"+300 Bob: the cat "+long,
		"+500 Alice: vet cat name, the new one",
		"+501 Bob: the cat "+long,
	)
	q := Query{Text: "cat vet name"}
	got := searchIDs(t, h, DefaultOptions(), q)
	if !before(got, 2, 3) {
		t.Errorf("results %v: the short reply 2, a minute after the question, should come before 3, alone", got)
	}
	if !before(got, 4, 6) {
		t.Errorf("results %v: the long message 6 next to a match should not pass the same message 4 alone", got)
	}
	off, _ := Ablate(DefaultOptions(), "neighbours")
	if got := searchIDs(t, h, off, q); before(got, 2, 3) {
		t.Errorf("without neighbours: %v; then the reply has nothing to come before 3 with", got)
	}
}

// TestSpanWindow: a query naming a day ranks more candidates than usual and keeps the
// extra ones said that day or the next, so a message that matches only a name, behind a
// hundred others like it, comes in.
func TestSpanWindow(t *testing.T) {
	t0 := time.Date(2025, 2, 1, 10, 0, 0, 0, time.UTC)
	lines := make([]string, 0, 121)
	for i := range 120 {
		lines = append(lines, fmt.Sprintf("+%d Bob: James and the quiz team, round %d", i*60, i))
	}
	lines = append(lines, fmt.Sprintf("+%d Bob: yesterday James was at the lake with us", 44*24*60)) // 17 March
	h := chatOf(t0, lines...)
	q := Query{Text: "Where was James on 16 March?", Now: t0.AddDate(0, 2, 0)}
	if got := searchIDs(t, h, DefaultOptions(), q); len(got) == 0 || got[0] != 121 {
		t.Errorf("results %v, want 121, told the day after, first", got)
	}
	off, _ := Ablate(DefaultOptions(), "window")
	if got := searchIDs(t, h, off, q); slices.Contains(got, 121) {
		t.Errorf("without window: %v; 121 should be beyond the pool, or the test does not show what window does", got)
	}
}

// TestSpeakerLift: where the index does not weigh a name (here it never does, as in a
// two-person chat where each wrote half), the words of the person a question names come
// first by the lift, which the share of candidates from others sets.
func TestSpeakerLift(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	h := chatOf(t0,
		"+0 Bob: the garden and the roses look great this year",
		"+120 Alice: roses in the garden need pruning",
		"+240 Bob: garden party on Sunday?",
	)
	q := Query{Text: "What did Alice say about the garden and the roses?"}
	if got := searchIDs(t, h, DefaultOptions(), q); len(got) == 0 || got[0] != 2 {
		t.Errorf("results %v, want Alice's 2 first", got)
	}
	off, _ := Ablate(DefaultOptions(), "lift")
	if got := searchIDs(t, h, off, q); len(got) == 0 || got[0] != 1 {
		t.Errorf("without lift: %v, want Bob's longer match 1 first; the test does not show what lift does", got)
	}
}

// TestLengthPrior: a message of one or two words that matches a name says less than a
// sentence that matches it as well.
func TestLengthPrior(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	h := chatOf(t0,
		"+0 Alice: bye Bob",
		"+600 Alice: Bob fixed the fence and painted the shed green last spring",
	)
	if got := searchIDs(t, h, DefaultOptions(), Query{Text: "Bob"}); !slices.Equal(got, []mynah.MessageID{2, 1}) {
		t.Errorf("results %v, want the sentence 2 before the goodbye 1", got)
	}
}

// TestTimeInQueries: "last week" finds what was said last week first and does not search
// for the words "last week"; "when…" prefers the message that dates the event; with
// RecentBoost on, "current" prefers the newer of equal matches.
func TestTimeInQueries(t *testing.T) {
	t0 := time.Date(2025, 3, 3, 10, 0, 0, 0, time.UTC) // Monday 3 March
	day := 24 * 60
	h := chatOf(t0,
		"+0 Alice: my job at the bakery",
		fmt.Sprintf("+%d Alice: the job interview at the library went fine", 15*day), // Tuesday 18 March
		fmt.Sprintf("+%d Bob: last year was a hard year, the job too", 21*day),       // 24 March
	)
	now := t0.Add(time.Duration(21*day) * time.Minute).Add(time.Hour) // 24 March: last week is 17–23 March
	if got := searchIDs(t, h, DefaultOptions(), Query{Text: "the job last week", Now: now}); len(got) == 0 || got[0] != 2 {
		t.Errorf("job last week: %v, want 2, said last week, first", got)
	}
	off, _ := Ablate(DefaultOptions(), "span")
	if got := searchIDs(t, h, off, Query{Text: "the job last week", Now: now}); len(got) == 0 || got[0] != 3 {
		t.Errorf("without span: %v, want 3 (it says \"last\") first; the test does not show what span does", got)
	}

	// told: said the day after, "yesterday" tells of the day asked about
	h = chatOf(t0,
		"+0 Bob: James bowled, James won, James paid for the pizza",
		fmt.Sprintf("+%d Bob: yesterday James was at the lake with us", 15*day), // 18 March
	)
	if got := searchIDs(t, h, DefaultOptions(), Query{Text: "Where was James on 17 March?", Now: now}); len(got) == 0 || got[0] != 2 {
		t.Errorf("James on 17 March: %v, want 2, which tells of that day, first", got)
	}
	off, _ = Ablate(DefaultOptions(), "told")
	if got := searchIDs(t, h, off, Query{Text: "Where was James on 17 March?", Now: now}); len(got) == 0 || got[0] != 1 {
		t.Errorf("without told: %v, want the shorter 1 first; the test does not show what told does", got)
	}

	h = chatOf(t0,
		"+0 Alice: the bike is fixed now, fixed for good I think",
		"+10 Alice: I fixed the bike last Sunday",
	)
	if got := searchIDs(t, h, DefaultOptions(), Query{Text: "When did Alice fix the bike?"}); len(got) == 0 || got[0] != 2 {
		t.Errorf("when: %v, want 2, which dates the repair, first", got)
	}
	off, _ = Ablate(DefaultOptions(), "dated")
	if got := searchIDs(t, h, off, Query{Text: "When did Alice fix the bike?"}); len(got) == 0 || got[0] != 1 {
		t.Errorf("without dated: %v, want 1 first; the test does not show what dated does", got)
	}

	h = chatOf(t0,
		"+0 Bob: my job is at the bakery",
		fmt.Sprintf("+%d Bob: my job is at the library", 40*day),
	)
	recent := DefaultOptions()
	recent.RecentBoost = 0.2
	if got := searchIDs(t, h, recent, Query{Text: "What is Bob's current job?"}); len(got) == 0 || got[0] != 2 {
		t.Errorf("current job: %v, want the newer 2 first", got)
	}
	if got := searchIDs(t, h, recent, Query{Text: "What was Bob's job?"}); len(got) == 0 || got[0] != 1 {
		t.Errorf("job, no time: %v, want the first of equals, 1, first", got)
	}
}

// TestTimeAnchors: "before the trip" prefers what was said before the message that tells
// of the trip, "after the trip" what was said after it; of two equal matches the order
// follows the anchor, which a search with the span feature off does not.
func TestTimeAnchors(t *testing.T) {
	t0 := time.Date(2025, 3, 3, 10, 0, 0, 0, time.UTC)
	day := 24 * 60
	h := chatOf(t0,
		"+0 Alice: I got a blue scarf at the market",
		fmt.Sprintf("+%d Alice: off on the trip to Japan tomorrow, so excited", 10*day),
		fmt.Sprintf("+%d Alice: I got a green scarf in Kyoto", 20*day),
	)
	now := t0.AddDate(0, 1, 0)
	// The message that tells of the trip is found too: it matches "trip". Of the two
	// scarves, the anchor decides.
	for _, c := range []struct {
		query         string
		first, second mynah.MessageID
	}{
		{"which scarf did Alice get before the trip?", 1, 3},
		{"which scarf did Alice get after the trip?", 3, 1},
		{"which scarf did Alice get since the trip to Japan", 3, 1},
	} {
		if got := searchIDs(t, h, DefaultOptions(), Query{Text: c.query, Now: now}); !before(got, c.first, c.second) {
			t.Errorf("%q: %v, want %d before %d", c.query, got, c.first, c.second)
		}
	}
	off, _ := Ablate(DefaultOptions(), "anchors")
	pre := searchIDs(t, h, off, Query{Text: "which scarf did Alice get before the trip?", Now: now})
	post := searchIDs(t, h, off, Query{Text: "which scarf did Alice get after the trip?", Now: now})
	if !slices.Equal(pre, post) {
		t.Errorf("without span: before %v, after %v; the same ranking was expected, so the test shows what anchors do", pre, post)
	}
	// A search of one person's words dates events by their words alone: Bob's trip does
	// not reorder what Alice said.
	h2 := chatOf(t0,
		"+0 Alice: I got a blue scarf at the market",
		fmt.Sprintf("+%d Bob: off on the trip to Japan tomorrow, so excited", 10*day),
		fmt.Sprintf("+%d Alice: I got a green scarf in Kyoto", 20*day),
	)
	hers := Query{Text: "which scarf did I get after the trip?", Now: now, Sender: alice.ID}
	if got, want := searchIDs(t, h2, DefaultOptions(), hers), searchIDs(t, h2, off, hers); !slices.Equal(got, want) {
		t.Errorf("Alice's words after Bob's trip: %v, want %v as without anchors", got, want)
	}
	everyone := Query{Text: "which scarf did I get after the trip?", Now: now}
	if got := searchIDs(t, h2, DefaultOptions(), everyone); !before(got, 3, 1) {
		t.Errorf("everyone's words after the trip: %v, want 3 before 1 (the test shows what the sender scope changes)", got)
	}
	// An event nothing tells of bounds nothing: the matches keep their order.
	wedding := Query{Text: "which scarf did Alice get before the wedding?", Now: now}
	if got, want := searchIDs(t, h, DefaultOptions(), wedding), searchIDs(t, h, off, wedding); !slices.Equal(got, want) {
		t.Errorf("before an unknown event: %v, want %v as without anchors", got, want)
	}
}

// TestEventOnly: a question that asks only what was said before (after) an event gets
// the message that tells of it and those said just before (after) it, closest first,
// though they share no word with it; with any other word asked, the words rank.
func TestEventOnly(t *testing.T) {
	t0 := time.Date(2025, 3, 3, 10, 0, 0, 0, time.UTC)
	day := 24 * 60
	h := chatOf(t0,
		"+0 Alice: I got a blue scarf at the market",
		fmt.Sprintf("+%d Alice: booked the flights", 5*day),
		fmt.Sprintf("+%d Alice: off on the trip to Japan tomorrow, so excited", 10*day),
		fmt.Sprintf("+%d Alice: Kyoto is lovely", 12*day),
		fmt.Sprintf("+%d Alice: home again, so tired", 20*day),
	)
	now := t0.AddDate(0, 1, 0)
	for _, c := range []struct {
		query string
		want  []mynah.MessageID
	}{
		{"what did Alice do before the trip?", []mynah.MessageID{3, 2, 1}},
		{"what happened after the trip to Japan?", []mynah.MessageID{3, 4, 5}},
		{"what did we talk about before the trip", []mynah.MessageID{3, 2, 1}},
	} {
		if got := searchIDs(t, h, DefaultOptions(), Query{Text: c.query, Now: now, K: 3}); !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, want %v", c.query, got, c.want)
		}
	}
	// what is asked besides the event is searched for
	if got := searchIDs(t, h, DefaultOptions(), Query{Text: "which scarf did Alice get before the trip?", Now: now, K: 3}); !slices.Contains(got, 1) || slices.Contains(got, 2) {
		t.Errorf("a scarf before the trip: %v, want the scarf (1), not what shares no word with it (2)", got)
	}
	// a name asks for what that person said then
	h2 := chatOf(t0,
		"+0 Bob: fixed the bike",
		"+1 Alice: lunch?",
		"+2 Bob: packed my bag",
		"+3 Alice: see you",
		"+4 Alice: off on the trip to Japan tomorrow",
	)
	if got := searchIDs(t, h2, DefaultOptions(), Query{Text: "What did Bob do before the trip?", Now: now, K: 3}); !slices.Equal(got, []mynah.MessageID{5, 3, 1}) {
		t.Errorf("Bob before the trip: %v, want [5 3 1]", got)
	}
	// a name typed in lower case is a name when someone of the time is called so
	if got := searchIDs(t, h2, DefaultOptions(), Query{Text: "what did bob do before the trip?", Now: now, K: 3}); !slices.Equal(got, []mynah.MessageID{5, 3, 1}) {
		t.Errorf("bob before the trip: %v, want [5 3 1]", got)
	}
	// and a word no one is called is searched for, not taken for a name
	if got := searchIDs(t, h2, DefaultOptions(), Query{Text: "what did we pack before the trip?", Now: now, K: 3}); !slices.Contains(got, 3) || slices.Contains(got, 4) {
		t.Errorf("packed before the trip: %v, want the packing (3), not what shares no word with it (4)", got)
	}
	// a search of one person's words finds theirs alone, in a group too: in their private
	// chat, what they wrote anywhere is theirs to see, what others wrote is not
	if got := searchIDs(t, h2, DefaultOptions(), Query{Text: "what did I do before the trip?", Now: now, K: 3, Sender: alice.ID}); !slices.Equal(got, []mynah.MessageID{5, 4, 2}) {
		t.Errorf("Alice's words before the trip: %v, want [5 4 2], none of Bob's", got)
	}
	// the window's messages are not found again
	if got := searchIDs(t, h, DefaultOptions(), Query{Text: "what did Alice do before the trip?", Now: now, K: 3, Exclude: []mynah.MessageID{2}}); !slices.Equal(got, []mynah.MessageID{3, 1}) {
		t.Errorf("excluding 2: %v, want [3 1]", got)
	}
	// the trip is when Alice told of it, not when the agent wished her a good one
	h3 := chatOf(t0,
		"+0 Alice: bought sunscreen",
		"+1 Alice: off on the trip to Lisbon on Friday",
		"+2 Alice: packed the bags",
		"+3 Mynah: have a wonderful trip to Lisbon, Alice, and send me photos from the trip",
	)
	if got := searchIDs(t, h3, DefaultOptions(), Query{Text: "what did Alice do before the trip?", Now: now, K: 2}); !slices.Equal(got, []mynah.MessageID{2, 1}) {
		t.Errorf("before the trip the agent wished a good one: %v, want [2 1]", got)
	}
}

// TestCover: a question for several things joined with "and" gets a hit of each, even
// when the best hits all tell of one; a question that asks for no several things keeps
// its ranking. A Ukrainian question is read as an English one: «та» joins, and a message
// holds a word in another of its forms (Японії, Японія).
func TestCover(t *testing.T) {
	t0 := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	day := 24 * 60
	trips := []string{
		"+0 Alice: 10 days in japan, landed today",
		"+1 Alice: the first days in japan were rainy",
		"+2 Bob: how many days left in japan?",
		fmt.Sprintf("+%d Alice: day six in japan, the days fly", day),
		fmt.Sprintf("+%d Alice: back from the work trip to chicago", 40*day),
	}
	for _, c := range []struct {
		name, query, other string
		messages           []string
	}{
		{"English", "How many days did Alice spend in Japan and Chicago in total?", "What did Alice write about relaxing in Japan and Chicago", trips},
		{"which first", "Where did Alice spend days first, Japan or Chicago?", "Did Alice write about relaxing in Japan or Chicago?", trips},
		{"Ukrainian", "Скільки днів Аліса провела в Японії та Чикаго загалом?", "Що Аліса писала про відпочинок в Японії та Чикаго", []string{
			"+0 Alice: 10 днів в Японії, щойно приземлилася",
			"+1 Alice: перші дні в Японії були дощові",
			"+2 Bob: скільки днів ще в Японії?",
			fmt.Sprintf("+%d Alice: шостий день у Японії, дні летять", day),
			fmt.Sprintf("+%d Alice: повернулася з робочої поїздки в Чикаго", 40*day),
		}},
	} {
		h := chatOf(t0, c.messages...)
		q := Query{Text: c.query, K: 3}
		if got := searchIDs(t, h, DefaultOptions(), q); len(got) != 3 || !slices.Contains(got, 5) || got[0] == 5 {
			t.Errorf("%s: %v, want 3 hits with 5 (Chicago) among them, after the best", c.name, got)
		}
		off, _ := Ablate(DefaultOptions(), "cover")
		if got := searchIDs(t, h, off, q); slices.Contains(got, 5) {
			t.Errorf("%s without cover: %v; Chicago's message was expected to be crowded out, so the test shows what cover does", c.name, got)
		}
		// Not a question for several things: the ranking stays.
		q = Query{Text: c.other, K: 3}
		if got, want := searchIDs(t, h, DefaultOptions(), q), searchIDs(t, h, off, q); !slices.Equal(got, want) {
			t.Errorf("%s, no aggregate: %v, want %v as without cover", c.name, got, want)
		}
	}
}

// TestCoverFills: when the candidates of a question for two things all tell of the one
// with more matching words (the coffee machine fills the pool), the best message of the
// other is searched for and comes in.
func TestCoverFills(t *testing.T) {
	t0 := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	var lines []string
	for i := range 6 {
		lines = append(lines, fmt.Sprintf("+%d Alice: the coffee machine is fixed, cup %d", i, i))
	}
	lines = append(lines, "+90 Bob: the printer is broken")
	h := chatOf(t0, lines...)
	o := DefaultOptions()
	o.Pool = 4
	q := Query{Text: "Which came first, the broken printer or the coffee machine fix?", K: 3}
	if got := searchIDs(t, h, o, q); !slices.Contains(got, 7) {
		t.Errorf("%v, want the printer's message 7 among 3 hits", got)
	}
	o.Cover = false
	if got := searchIDs(t, h, o, q); slices.Contains(got, 7) {
		t.Errorf("without cover: %v; the printer's message was expected to be left out of the pool, so the test shows what cover does", got)
	}
}

func TestConjuncts(t *testing.T) {
	stop := stopWords()
	for q, want := range map[string][]string{
		"How many days in Japan and Chicago in total?":     {"japan", "chicago"},
		"What do Melanie and her husband both like?":       {"melanie", "husband"},
		"Which books and films did Ann and Bob recommend?": {"books", "films", "ann", "bob"},
		"How many times did I go hiking?":                  nil,
		"Скільки днів у Японії та Чикаго загалом?":         {"японії", "чикаго"},
		"Сколько дней в Японии и Чикаго?":                  {"японии", "чикаго"},
		"Which pet did I adopt first, Susie or Seraphim?":  {"susie", "seraphim"},
		"Did I adopt Susie or Seraphim?":                   nil,
		"Що я купила раніше, лампу чи стіл?":               {"лампу", "стіл"},
		"and": nil,
		"What schools did John play in and how many years was he there?": {"play", "years"},
		"Де ми відпочивали і скільки днів?":                              {"відпочивали", "днів"},
	} {
		if got := conjuncts(q, stop); !slices.Equal(got, want) {
			t.Errorf("conjuncts(%q) = %q, want %q", q, got, want)
		}
	}
}

// TestSeveralFromOtherDays: a question asking for several things gets its second result
// from another day rather than the message next to its first, by feature spread (on by
// default) and by feature diversity (off by default, measured here without spread, which
// does the same in its chat); without the feature, the message next to the first comes
// second.
func TestSeveralFromOtherDays(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	diverse, _ := Ablate(DefaultOptions(), "spread")
	diverse.Diversity = 0.4
	hiking := chatOf(t0,
		"+0 Alice: hiking trip, we go hiking every weekend",
		"+1 Bob: hiking was great, go again",
		"+3000 Alice: we go hiking every month, hiking is our thing",
	)
	for _, c := range []struct {
		feature string
		on      Options
		h       History
		q       string
	}{
		{"diversity", diverse, hiking, "How many times did we go hiking?"},
		{"spread", DefaultOptions(), chatOf(t0,
			"+0 Alice: I painted a sunset over the lake, my best painting so far",
			"+1 Alice: painted it at dawn",
			"+3000 Alice: finished a portrait I painted of my grandmother last month, it took weeks of evenings",
		), "What has Alice painted?"},
	} {
		q := Query{Text: c.q, K: 2}
		if got := searchIDs(t, c.h, c.on, q); !slices.Equal(got, []mynah.MessageID{1, 3}) {
			t.Errorf("%s, %q: %v, want [1 3]: 2 is only next to 1", c.feature, c.q, got)
		}
		off, _ := Ablate(c.on, c.feature)
		if got := searchIDs(t, c.h, off, q); !slices.Equal(got, []mynah.MessageID{1, 2}) {
			t.Errorf("without %s, %q: %v, want [1 2]; the test does not show what %s does", c.feature, c.q, got, c.feature)
		}
	}
	if got := searchIDs(t, hiking, diverse, Query{Text: "did we go hiking?", K: 2}); !slices.Equal(got, []mynah.MessageID{1, 2}) {
		t.Errorf("diversity, a question for one thing: %v, want [1 2], the best two", got)
	}
}

func TestAggregate(t *testing.T) {
	for q, want := range map[string]bool{
		"How many times has Melanie gone to the beach?": true,
		"What books has Melanie read?":                  true,
		"Where has Melanie camped?":                     true,
		"What kinds of art does Caroline make?":         true,
		"What type of music has Dave been getting into": false,
		"What did Melanie paint recently?":              false,
		"Where did we go on Friday?":                    false,
		"Скільки разів ми ходили в гори?":               true,
		"Які книги Оля прочитала загалом?":              true,
		"В каких городах мы были оба?":                  true,
		"Що Оля робила в п'ятницю?":                     false,
		"Где мы все были в пятницу?":                    false,
	} {
		if got := Aggregate(q); got != want {
			t.Errorf("Aggregate(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestSearchMany: several queries at once return each one's best first, every message
// once, and memory_search takes them as queries.
func TestSearchMany(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	h := chatOf(t0,
		"+0 Alice: five days in Japan, Tokyo mostly, and days of rain in Japan",
		"+1 Bob: Japan sounds great, how many days?",
		"+5000 Alice: three days in Chicago for the conference",
		"+5001 Bob: Chicago in winter, brr",
	)
	s := NewSearcher(h, DefaultOptions(), nil)
	res, err := s.SearchMany(t.Context(), Query{Agent: "a", Chat: chat.ID, K: 3}, []string{"days in Japan", "days in Chicago"})
	if err != nil {
		t.Fatal(err)
	}
	got := resultIDs(res)
	if len(got) != 3 || !slices.Contains(got[:2], 1) || !slices.Contains(got[:2], 3) {
		t.Errorf("results %v: want 1 (Japan) and 3 (Chicago) first", got)
	}
	seen := map[mynah.MessageID]bool{}
	for _, id := range got {
		if seen[id] {
			t.Errorf("results %v: %d twice", got, id)
		}
		seen[id] = true
	}
	out, err := NewSearchTool(s).Run(t.Context(), tool.Call{Agent: "a", Chat: chat, Now: t0.Add(10 * 24 * time.Hour),
		Args: json.RawMessage(`{"queries":["days in Japan","days in Chicago"],"k":2}`)})
	if err != nil || !strings.Contains(out, "#1]") || !strings.Contains(out, "#3]") || strings.Count(out, "\n") != 1 {
		t.Errorf("memory_search with queries = %q, %v", out, err)
	}
	if !strings.Contains(out, "Sat 1 Mar 2025 10:00, 10 days ago, #1] Alice") {
		t.Errorf("memory_search = %q: want each result with when it was said", out)
	}
	if _, err := NewSearchTool(s).Run(t.Context(), tool.Call{Agent: "a", Chat: chat, Args: json.RawMessage(`{"queries":["a","b","c","d","e","f"]}`)}); err == nil {
		t.Error("memory_search with 6 queries succeeded")
	}
}

func TestAge(t *testing.T) {
	kyiv, err := time.LoadLocation("Europe/Kyiv")
	if err != nil {
		t.Skip(err)
	}
	now := time.Date(2025, 3, 10, 9, 0, 0, 0, kyiv)
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{now.Add(-30 * time.Second), "just now"},
		{now.Add(-5 * time.Minute), "5 minutes ago"},
		{now.Add(-3 * time.Hour), "3 hours ago"},
		{now.Add(-10 * time.Hour), "yesterday"}, // 23:00 the day before
		{now.AddDate(0, 0, -4), "4 days ago"},
		{now.AddDate(0, 0, -15), "2 weeks ago"},
		{now.AddDate(0, -5, 0), "5 months ago"},
		{now.AddDate(-2, 0, 0), "2 years ago"},
		{now.Add(time.Hour), ""},
	} {
		if got := Age(c.t, now); got != c.want {
			t.Errorf("Age(%v) = %q, want %q", c.t, got, c.want)
		}
	}
	if got := SaidAt(time.Date(2025, 3, 9, 21, 30, 0, 0, time.UTC), now, kyiv); got != "Sun 9 Mar 2025 23:30, yesterday" {
		t.Errorf("SaidAt = %q", got)
	}
}

// TestFeatures: every feature turns off and on again to what DefaultOptions holds, and
// with all of them off ranking is plain BM25 (Options{} but the pool and the shape
// settings).
func TestFeatures(t *testing.T) {
	d := DefaultOptions()
	for _, f := range Features() {
		o, err := Ablate(d, f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if f.Enabled(d) {
			if o == d {
				t.Errorf("%s: Ablate changed nothing", f.Name)
			}
			if f.On(&o); o != d {
				t.Errorf("%s: off and on again is %+v, not DefaultOptions", f.Name, o)
			}
		} else if w, _ := With(d, f.Name); w == d || !f.Enabled(w) {
			t.Errorf("%s: With did not turn it on", f.Name)
		}
	}
	plain, _ := Ablate(d, "all")
	plain.Pool, plain.NeighbourGap, plain.ContextWords = 0, 0, 0
	if plain != (Options{}) {
		t.Errorf("all off: %+v, want plain BM25", plain)
	}
	if _, err := Ablate(d, "magic"); err == nil || !strings.Contains(err.Error(), "neighbours") {
		t.Errorf("Ablate(magic) = %v, want an error naming the features", err)
	}
}

// TestSpeakerGather: a question for several things a person did ("what books has Alice
// read?") puts that person's words first, even where someone else's talk on the topic
// matches more of its words.
func TestSpeakerGather(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	h := chatOf(t0,
		"+0 Bob: books I read: the best books",
		"+600 Alice: I read Dune on the train",
		"+1200 Bob: my sister likes the new cafe",
		"+1800 Alice: finished a novel by Le Guin, read it twice",
	)
	q := Query{Text: "What books has Alice read?", K: 1}
	if got := searchIDs(t, h, DefaultOptions(), q); !slices.Equal(got, []mynah.MessageID{4}) {
		t.Errorf("what books has Alice read: %v, want Alice's 4", got)
	}
	off, _ := Ablate(DefaultOptions(), "gather")
	if got := searchIDs(t, h, off, q); !slices.Equal(got, []mynah.MessageID{1}) {
		t.Errorf("without gather: %v, want Bob's 1, or the test does not show what gather does", got)
	}
	if got := searchIDs(t, h, DefaultOptions(), Query{Text: "Which book did Alice read?", K: 1}); !slices.Equal(got, []mynah.MessageID{1}) {
		t.Errorf("a question for one thing: %v, want 1 as without gather", got)
	}
}

// TestWhole: the message holding every word of a query comes first. It comes before a
// longer one holding only some of them, which the length prior alone would put first
// ("spotify summer playlist"); and a short one ("dentist on Friday") bears only the
// square root of the prior, which holds back a short message that matched by chance
// ("thanks, see you Friday").
func TestWhole(t *testing.T) {
	t0 := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		query string
		chat  []string
	}{
		{"spotify summer playlist", []string{
			"+0 Alice: I made a summer playlist on Spotify",
			"+600 Bob: the summer was long and we drove to the coast with an old playlist of songs from school, stopping in every town on the way for coffee and stories, and it rained most days but nobody minded at all",
		}},
		{"dentist friday", []string{
			"+0 Alice: dentist on Friday",
			"+3600 Bob: I finally called the dentist about the crown that cracked last month, and the receptionist said the dentist could see me next week if I bring the old x-rays along",
			"+7200 Alice: the dentist said flossing more would have saved the tooth, so I bought a new brush and some floss on the way home",
		}},
	} {
		h := chatOf(t0, tc.chat...)
		q := Query{Text: tc.query}
		if got := searchIDs(t, h, DefaultOptions(), q); len(got) == 0 || got[0] != 1 {
			t.Errorf("%q: results %v, want 1, which holds every word, first", tc.query, got)
		}
		off, _ := Ablate(DefaultOptions(), "whole")
		if got := searchIDs(t, h, off, q); len(got) == 0 || got[0] == 1 {
			t.Errorf("%q without whole: %v; want another first, or the test does not show what whole does", tc.query, got)
		}
	}
}

// TestWholePast: a verb a question asks of the past is held in its past forms too, as
// the search finds them: "I made a wonky mug" holds every word of "what did I make at the
// pottery workshop?", and comes before a longer message that says "make" beside "pottery"
// and "workshop" without telling what was made.
func TestWholePast(t *testing.T) {
	t0 := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	h := chatOf(t0,
		"+0 Alice: went to a pottery workshop yesterday and made a wonky mug",
		"+3600 Bob: that pottery workshop sounds fun, I'd love to make something too, maybe at a workshop next month with the kids, who will probably make a mess of the clay and of the car on the way home, but it's worth it for the memories",
	)
	for _, q := range []string{"What did Alice make at the pottery workshop?", "what has Alice made at the pottery workshop"} {
		if got := searchIDs(t, h, DefaultOptions(), Query{Text: q}); len(got) == 0 || got[0] != 1 {
			t.Errorf("%q: results %v, want 1, which tells what she made, first", q, got)
		}
	}
}

// TestSpeakerLength: in a chat with an assistant that answers at length, the user's own
// line that answers the question comes before the assistant's long reply that only
// repeats its words: the length prior reads each sender against their usual length.
func TestSpeakerLength(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	long := " Here are a few more thoughts on that, since there is a lot to say about planning, budgets, timing, packing lists, and the many small things that make a move or a trip go smoothly for everyone involved in it."
	h := chatOf(t0,
		"+0 Alice: sister moved to Lisbon",
		"+1 Bob: How exciting that your sister moved! A sister who moved abroad is a reason to travel."+long,
		"+60 Alice: my sister wants a cat",
		"+61 Bob: A cat is a lovely idea for your sister."+long+long,
		"+120 Alice: visiting my sister next week",
		"+121 Bob: Visiting your sister sounds great."+long+long,
	)
	q := Query{Text: "where did my sister move?"}
	if got := searchIDs(t, h, DefaultOptions(), q); len(got) < 2 || !before(got, 1, 2) {
		t.Errorf("results %v, want Alice's 1 before the reply 2", got)
	}
	off, _ := Ablate(DefaultOptions(), "speakerlength", "asker") // asker alone puts 1 first too
	if got := searchIDs(t, h, off, q); len(got) < 2 || !before(got, 2, 1) {
		t.Errorf("without speakerlength: %v, want the reply 2 first; the test does not show what it does", got)
	}
}

// TestAskerBoost: a question in the first person is about the asker's own life, so what
// a person said comes before an assistant's restating of it: the agent's messages in a
// chat with it, or, in an imported chat of two, those of the one whose messages are
// several times as long. A question of "you" prefers the assistant's; one of both is left
// as it was.
func TestAskerBoost(t *testing.T) {
	t0 := time.Date(2025, 3, 3, 10, 0, 0, 0, time.UTC)
	off := DefaultOptions()
	off.AskerBoost = 0
	told := "my kitten hid under the chair all evening after the vet"
	withAgent := chatOf(t0,
		"+0 Alice: "+told,
		"+1 Mynah: a kitten often reacts to an injection by hiding for a day or two, so give her a quiet corner and some treats",
		"+2 Alice: thanks",
	)
	long := " Most of them calm down within a day, eat normally again by the next morning, and the best thing to do is to leave the door open and let her come out when she wants."
	imported := chatOf(t0,
		"+0 Alice: "+told,
		"+1 Bob: A kitten often reacts to an injection by hiding for a day or two, so give her a quiet corner and some treats."+long,
		"+2 Alice: my kitten bit the cable",
		"+3 Bob: A kitten bites cables while teething, so hide them behind the furniture and give her chew toys."+long,
		"+4 Alice: my kitten scratched the sofa",
		"+5 Bob: A kitten scratches to keep her claws sharp, so put a scratching post next to the sofa."+long,
	)
	// an export of a chat with an assistant, which writes no longer than its user
	named := chatOf(t0,
		"+0 Alice: "+told,
		"+1 Assistant: a kitten often reacts to an injection by hiding for a day or two, so give her a quiet corner and some treats",
		"+2 Alice: thanks",
	)
	for _, c := range []struct {
		name string
		h    History
	}{{"with the agent", withAgent}, {"imported, the assistant known by its long messages", imported},
		{"imported, the assistant known by its name", named}} {
		q := Query{Text: "how did my kitten react at the vet to the injection?", K: 3}
		if got := searchIDs(t, c.h, DefaultOptions(), q); len(got) == 0 || got[0] != 1 {
			t.Errorf("%s: %v, want Alice's own message (1) first", c.name, got)
		}
		if got := searchIDs(t, c.h, off, q); len(got) == 0 || got[0] == 1 {
			t.Errorf("%s, AskerBoost off: %v, want the assistant's first (else this test shows nothing)", c.name, got)
		}
		q.Text = "can you remind me how my kitten reacted at the vet to the injection?"
		if got := searchIDs(t, c.h, DefaultOptions(), q); len(got) == 0 || got[0] != 1 {
			t.Errorf("%s, a request: %v, want Alice's own message (1) first", c.name, got)
		}
		q.Text = "what do you think of how my kitten reacted to the injection at the vet?"
		if got, want := searchIDs(t, c.h, DefaultOptions(), q), searchIDs(t, c.h, off, q); !slices.Equal(got, want) {
			t.Errorf("%s, a question of both: %v, want %v as without AskerBoost", c.name, got, want)
		}
		// asked of "you", what the assistant said comes first
		q.Text = "what did you say about a kitten hiding under the chair after the vet?"
		if got := searchIDs(t, c.h, DefaultOptions(), q); len(got) == 0 || got[0] != 2 {
			t.Errorf("%s, a question of you: %v, want the assistant's (2) first", c.name, got)
		}
		if got := searchIDs(t, c.h, off, q); len(got) == 0 || got[0] == 2 {
			t.Errorf("%s, a question of you, AskerBoost off: %v, want Alice's first (else this test shows nothing)", c.name, got)
		}
	}
}

// TestAskedOf: which side of a chat with an assistant a question asks about.
func TestAskedOf(t *testing.T) {
	for _, c := range []struct {
		query     string
		self, you bool
	}{
		{"what did I paint?", true, false},
		{"where did my sister move?", true, false},
		{"what did you recommend?", false, true},
		{"can you remind me where my sister moved?", true, false},
		{"what did I tell you about my sister?", true, false},
		{"do you remember what I said about my sister?", true, false},
		{"I remember you recommended a hotel in Lisbon, what was its name?", false, true},
		{"in our last chat you told me which books to read, which was the third?", false, true},
		{"what do you think of my painting?", true, true},
		{"що я купила минулого тижня?", true, false},
		{"Какой корм ты мне советовал для собаки?", false, true},
		{"Яку книжку ти радив, щоб мій син знову почав читати?", false, true},
		{"что ты думаешь о моей картине?", true, true},
		{"what did Caroline paint?", false, false},
	} {
		if self, you := askedOf(c.query); self != c.self || you != c.you {
			t.Errorf("%q: self %v, you %v; want %v, %v", c.query, self, you, c.self, c.you)
		}
	}
}

// TestDistinct: a reminder a bot posts every day is found once, saying how many more
// times it was said, and the rest of the results are what else was said. Without the
// feature its copies fill the results. The queries of a SearchMany each keep their own:
// the reminders of two days asked about are two answers.
func TestDistinct(t *testing.T) {
	t0 := time.Date(2025, 4, 1, 8, 0, 0, 0, time.UTC)
	var lines []string
	for day := range 8 {
		lines = append(lines, fmt.Sprintf("+%d Mynah: Reminder: water the plants on the balcony", day*1440))
	}
	lines = append(lines,
		"+3000 Alice: the balcony plants look sad, I think they need more sun",
		"+5000 Alice: repotted the plants on the balcony today, the basil got a bigger pot",
		"+6000 Bob: my plants on the windowsill died while we were away",
	)
	h := chatOf(t0, lines...)
	q := Query{Text: "plants on the balcony", K: 4}
	reminders := func(ids []mynah.MessageID) int {
		n := 0
		for _, id := range ids {
			if id <= 8 {
				n++
			}
		}
		return n
	}
	q.Agent, q.Chat = "a", chat.ID
	rs, err := NewSearcher(h, DefaultOptions(), nil).Search(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	got := resultIDs(rs)
	if i := slices.IndexFunc(rs, func(r Result) bool { return r.MessageID <= 8 }); i >= 0 && rs[i].Repeats != 7 {
		t.Errorf("the reminder's result: repeats %d, want 7", rs[i].Repeats)
	}
	if reminders(got) != 1 || !slices.Contains(got, 9) || !slices.Contains(got, 10) || !slices.Contains(got, 11) {
		t.Errorf("results %v, want one reminder (1-8) and 9, 10, 11", got)
	}
	out, err := NewSearchTool(NewSearcher(h, DefaultOptions(), nil)).Run(t.Context(), tool.Call{Agent: "a", Chat: chat,
		Args: json.RawMessage(`{"query":"plants on the balcony"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "Reminder: water the plants") != 1 || !strings.Contains(out, "said 7 more times") {
		t.Errorf("memory_search:\n%s\nwant the reminder once, said 7 more times", out)
	}
	shown := q
	shown.Exclude = []mynah.MessageID{5} // a reminder in the prompt already
	if got := searchIDs(t, h, DefaultOptions(), shown); reminders(got) != 0 {
		t.Errorf("with reminder 5 in the prompt: results %v, want no reminder (1-8)", got)
	}
	off, _ := Ablate(DefaultOptions(), "distinct")
	if got := searchIDs(t, h, off, q); reminders(got) < 2 {
		t.Errorf("without distinct: %v, want the reminders to repeat; the test does not show what it does", got)
	}
	q.Now = t0.Add(8*24*time.Hour + 2*time.Hour)
	rs, err = NewSearcher(h, DefaultOptions(), nil).SearchMany(t.Context(), q, []string{"water the plants yesterday", "water the plants on April 2"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultIDs(rs); !slices.Contains(got, 8) || !slices.Contains(got, 2) {
		t.Errorf("SearchMany: results %v, want the reminders of 8 and 2 April (8 and 2)", got)
	}
}

// TestAnswers: asked what the assistant suggested, the search returns the assistant's
// answer to the person's message about it, though the answer shares no word with the
// question, before the assistant's other suggestions that share some; asked of the
// person's own words, it does not.
func TestAnswers(t *testing.T) {
	t0 := time.Date(2025, 4, 1, 8, 0, 0, 0, time.UTC)
	h := chatOf(t0,
		"+0 Alice: two big terracotta pots sit by the back door in full sun and I fancy dahlias in them this summer, which ones stay compact?",
		"+1 Mynah: The Gallery series is bred for exactly this: 'Gallery Art Nouveau' or 'Gallery Singer' stay about 40cm tall, need no staking and flower from July until the first frosts.",
		"+3000 Alice: the puppy cries in his crate at night",
		"+3001 Mynah: I suggest leaving the crate door open in the day, so he goes in by himself",
		"+5000 Alice: the front door squeaks",
		"+5001 Mynah: I would suggest a drop of oil on the door hinges",
	)
	q := Query{Text: "Which dahlias did you suggest for the pots by my back door?", K: 2}
	if got := featureFinds(t, h, q, "answers", 2); len(got) == 0 || got[0] != 2 {
		t.Errorf("results %v, want the answer about dahlias (2) first", got)
	}
	q.Text = "Which dahlias did I want for the pots by the back door?"
	if got := searchIDs(t, h, DefaultOptions(), q); len(got) == 0 || got[0] != 1 {
		t.Errorf("asked of the person's words: results %v, want their message (1) first", got)
	}
}

// TestMoney: asked how much was spent, the message that names the price comes before the
// others that share the question's words; a question of time spent is not one of money.
func TestMoney(t *testing.T) {
	t0 := time.Date(2025, 4, 1, 8, 0, 0, 0, time.UTC)
	h := chatOf(t0,
		"+0 Alice: I love my long bike rides along the river on a sunny Sunday morning, with coffee at the little kiosk by the bridge",
		"+1000 Alice: my bike looks so shiny after the wash, like brand new again, I scrubbed it the whole afternoon out in the yard",
		"+2000 Alice: had the chain and cassette done at the bike shop today, $85 with my discount",
	)
	featureFinds(t, h, Query{Text: "How much did I spend on bike repairs?", K: 1}, "money", 3) // the one result
	for text, want := range map[string]bool{
		"How much did I spend on bike repairs?":    true,
		"What did the car cost me altogether?":     true,
		"How much is my rent now?":                 true,
		"Скільки я витратив на велосипед?":         true,
		"Сколько стоил ремонт?":                    true,
		"У скільки нам обійшовся відпочинок?":      true,
		"Во сколько обошлась поездка?":             true,
		"What did the camps end up costing me?":    true,
		"How much time did I spend on the thesis?": false,
		"How many days did I spend in Rome?":       false,
		"What did I buy in May?":                   false,
	} {
		if got := asksMoney(text); got != want {
			t.Errorf("asksMoney(%q) = %v, want %v", text, got, want)
		}
	}
	for text, want := range map[string]bool{
		"chain done at the bike shop, $85": true, "it was £13,950 from a dealer": true, "40 euros for both": true,
		"paid 500 грн": true, "like 20 bucks": true, "12 € a month": true, "she ran 85 km": false, "back in 2019": false,
		"the $ sign": false, "осмотр вышел в 140 лари": true, "за 2 700 доларів": true, "сто баксов": false, "100 баксов": true,
		"Лари сказав": false,
	} {
		if got := saysMoney(text); got != want {
			t.Errorf("saysMoney(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestSearchKinds: asked how many countries, the search finds the message that names a
// city visited and nothing else the question says.
func TestSearchKinds(t *testing.T) {
	t0 := time.Date(2025, 4, 1, 8, 0, 0, 0, time.UTC)
	h := chatOf(t0,
		"+0 Alice: back from a long weekend in Prague with the gang, the castle was worth the climb",
		"+1000 Alice: the list of countries I'd love to see one day is endless",
		"+2000 Alice: I need to travel less for work next year",
	)
	featureFinds(t, h, Query{Text: "How many countries did I travel to this year?", K: 3}, "searchkinds", 1)
	if got := severalThings(splitWords("which country is prague in?")); got != nil {
		t.Errorf("severalThings of one country asked for: %v, want none", got)
	}
}

// TestRelated: asked how many conferences, the search finds the message that tells of a
// talk given at one without naming it a conference; asked of weddings, birthdays, medical
// appointments, concerts, a job or houseplants, the one that tells of someone marrying,
// turning 50, a checkup with the GP, a night at the arena, a promotion, new plants, a
// Sigma bought.
func TestRelated(t *testing.T) {
	t0 := time.Date(2025, 4, 1, 8, 0, 0, 0, time.UTC)
	h := chatOf(t0,
		"+0 Alice: I'm giving a 15-minute talk at IAGLR next Wednesday on stormwater ponds",
		"+1000 Alice: the conference room at work smells of burnt coffee again",
		"+2000 Alice: my sister wants to present her cake at the village fair",
	)
	featureFinds(t, h, Query{Text: "How many conferences did I present at this year?", K: 3}, "related", 1)
	for _, c := range []struct{ told, other, question string }{
		{"my buddy Marcus is marrying Jen this Saturday and I'm a groomsman", "I went to the gym twice this year, a record",
			"Whose weddings did I go to this year?"},
		{"Dave turns 50 next Saturday and I'm giving a toast at the party", "we did go to the party at the bakery this year",
			"Whose birthdays did we celebrate this year?"},
		{"had my annual checkup with the GP, all fine", "how many steps did I have to climb today, ugh",
			"How many medical appointments did I have this year?"},
		{"saw Arctic Monkeys at the arena last night, amazing", "did you go to the new bakery? I did",
			"Which concerts did I go to?"},
		{"I got promoted to senior marketing manager on Friday!", "what title should the report have?",
			"What is my job title now?"},
		{"I got two more plants this weekend, a fiddle leaf fig and a calathea", "how many do I have to invite to the party now?",
			"How many houseplants do I have now?"},
		{"bought a used Sigma 150-600 off a guy for $1,150", "spent $40 on the spare battery, which I did not need",
			"How much did I spend on lenses?"},
	} {
		h := chatOf(t0, "+0 Alice: "+c.told, "+1000 Alice: "+c.other, "+2000 Alice: the weather was awful all week")
		featureFinds(t, h, Query{Text: c.question, K: 1}, "related", 1)
	}
}

// TestEndUp: "end up" in a question asks what came of a thing; its "end" must not pull
// up the chat's other ends of things that share the question's subject.
func TestEndUp(t *testing.T) {
	t0 := time.Date(2025, 9, 1, 10, 0, 0, 0, time.UTC)
	h := chatOf(t0,
		"+0 Alice: paid for the camps today, $640 for the two of them",
		"+60 Alice: the football camps end on Friday, pick-up at four",
		"+120 Alice: at the end of the camps they put on a little show",
		"+180 Alice: the art camps ended early because of the rain",
		"+240 Alice: both camps end with a barbecue for the parents",
	)
	for _, q := range []string{"What did the camps end up costing me?", "what did the camps END UP costing"} {
		if got := searchIDs(t, h, DefaultOptions(), Query{Text: q, K: 1}); !slices.Equal(got, []mynah.MessageID{1}) {
			t.Errorf("%q: %v, want [1], the message of what the camps cost", q, got)
		}
	}
}

// TestMonthsSaid: a question naming a month gets the message that named a time in it
// when said before, in no other word of the question, before messages of its words said
// at other times; "may" as a verb is no May.
func TestMonthsSaid(t *testing.T) {
	t0 := time.Date(2023, 7, 18, 20, 0, 0, 0, time.UTC)
	h := chatOf(t0,
		"+0 Alice: booked a cabin in Yaremche for 7 to 11 August, can you plan the days?",
		"+10 Assistant: sure, here is a plan for the days in the mountains",
		"+100000 Alice: what should I pack for a holiday by the sea?",
		"+110000 Alice: any tips for a holiday with a dog?",
		"+120000 Alice: we went on holiday to a lake once, years ago",
	)
	now := time.Date(2023, 12, 1, 10, 0, 0, 0, time.UTC)
	featureFinds(t, h, Query{Text: "Where did we go on holiday in August?", K: 3, Now: now}, "months", 1)
	uk := chatOf(t0,
		"+0 Alice: забронювали садибу в Яремче з 7 по 11 серпня, складеш програму на ці дні?",
		"+10 Assistant: звісно, ось програма на ці дні в горах",
		"+100000 Alice: що взяти у відпустку на море?",
		"+110000 Alice: як відпочивати з собакою?",
		"+120000 Alice: колись ми відпочивали на озері",
	)
	featureFinds(t, uk, Query{Text: "Куди ми їздили відпочивати в серпні?", K: 3, Now: now}, "months", 1)
	may := chatOf(t0,
		"+0 Alice: you may want to book the train early",
		"+30000 Alice: what to cook for a picnic?",
	)
	if got := searchIDs(t, may, DefaultOptions(), Query{Text: "What did we cook in May?", K: 3, Now: now}); slices.Contains(got, 1) {
		t.Errorf("results %v: \"you may want to\" is no time in May", got)
	}
}

// TestTellsEachTime: a message tells of each time it names on its own, not of their hull:
// an open time beside a month ("by autumn") leaves the month told, and two months far
// apart tell of each, not of the months between.
func TestTellsEachTime(t *testing.T) {
	s := NewSearcher(nil, DefaultOptions(), nil)
	month := func(y int, m time.Month) Span {
		from := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		return Span{From: from, To: from.AddDate(0, 1, 0)}
	}
	for _, c := range []struct {
		text string
		said time.Time
		span Span
		want bool
	}{
		{"The baby is due early November, so we need the nursery painted by autumn", time.Date(2023, 4, 10, 10, 0, 0, 0, time.UTC), month(2023, time.November), true},
		{"I was in Paris in March and we fly to Rome in November", time.Date(2023, 6, 10, 10, 0, 0, 0, time.UTC), month(2023, time.November), true},
		{"I was in Paris in March and we fly to Rome in November", time.Date(2023, 6, 10, 10, 0, 0, 0, time.UTC), month(2023, time.March), true},
		{"I was in Paris in March and we fly to Rome in November", time.Date(2023, 6, 10, 10, 0, 0, 0, time.UTC), month(2023, time.July), false},
	} {
		m := mynah.Message{Time: c.said, Text: c.text}
		if got := s.tells(&m, c.span); got != c.want {
			t.Errorf("tells(%q, %s) = %v, want %v", c.text, c.span.From.Format("January 2006"), got, c.want)
		}
	}
}
