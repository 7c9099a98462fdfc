package memory_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
)

// TestTimeNamedNotAlone: in a chat of years, asked "what did Caroline paint last week?"
// when Caroline said nothing that week, the search answers with her messages about
// painting of other times and says that it found nothing of that week; the week's other
// messages, which share no word with the question but the time, do not stand in for an
// answer. Asked about the week alone ("what happened last week?", "what did we talk about
// last week?"), it finds the week's messages.
func TestTimeNamedNotAlone(t *testing.T) {
	db := openStore(t)
	chat := mynah.Chat{ID: -100500, Type: mynah.ChatSupergroup}
	caroline, deborah := mynah.User{ID: 1, FirstName: "Caroline"}, mynah.User{ID: 2, FirstName: "Deborah"}
	t0 := time.Date(2008, 1, 1, 9, 0, 0, 0, time.UTC)
	week := memory.Span{From: time.Date(2009, 6, 8, 0, 0, 0, 0, time.UTC), To: time.Date(2009, 6, 15, 0, 0, 0, 0, time.UTC)}
	var msgs []mynah.Message
	for i := range 8000 { // two years and more, one message every 131 minutes
		m := mynah.Message{ID: mynah.MessageID(i + 1), Time: t0.Add(time.Duration(i) * 131 * time.Minute), Sender: deborah,
			Text: fmt.Sprintf("the weather today is %s and the bus was %d minutes late", []string{"grey", "sunny", "windy"}[i%3], i%17)}
		if i%2 == 0 && !week.Contains(m.Time) { // Caroline and painting are in so many messages that neither is a rare word
			m.Sender, m.Text = caroline, fmt.Sprintf("I finished a painting of the lake at sunrise, the %dth this year", i%50)
		}
		msgs = append(msgs, m)
	}
	if _, err := db.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
		t.Fatal(err)
	}
	s := memory.NewSearcher(db, memory.DefaultOptions(), nil)
	now := time.Date(2009, 6, 17, 12, 0, 0, 0, time.UTC) // a Wednesday; no painting the week before
	for _, m := range msgs {
		if week.Contains(m.Time) && strings.Contains(m.Text, "paint") {
			t.Fatalf("message %d of the week is about painting: the test's chat is wrong", m.ID)
		}
	}
	q := memory.Query{Agent: "a", Chat: chat.ID, Text: "what did Caroline paint last week?", Now: now, K: 5}
	res, err := s.Search(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || slices.ContainsFunc(res, func(r memory.Result) bool { return !strings.Contains(r.Message.Text, "paint") }) {
		t.Errorf("what did Caroline paint last week: %v, want only messages about painting", said(res))
	}
	if span, ok := s.Missed(q.Text, now, res); !ok || !span.From.Equal(week.From) {
		t.Errorf("Missed = %v, %v; want the week before, which has no result", span, ok)
	}
	for _, text := range []string{"what happened last week?", "what did we talk about last week?", "о чём говорили на прошлой неделе?"} {
		q.Text = text
		if res, err = s.Search(t.Context(), q); err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 || slices.ContainsFunc(res, func(r memory.Result) bool { return !week.Contains(r.Time) }) {
			t.Errorf("%s: %v, want messages of that week", text, said(res))
		}
	}
}

// TestWeekendsAgo: "two weekends ago", "the weekend before last" and «позаминулого
// тижня» name that weekend (week): asked in a chat where every weekend has its hike, the
// search answers with the hike of the weekend (week) named, not the last one.
func TestWeekendsAgo(t *testing.T) {
	db := openStore(t)
	chat := mynah.Chat{ID: 900, Type: mynah.ChatPrivate}
	ann := mynah.User{ID: 1, FirstName: "Ann"}
	places := []string{"the lake", "the old quarry", "the pine ridge", "the river bend", "the north cliffs", "the meadow"}
	var msgs []mynah.Message
	sat := time.Date(2024, 4, 6, 10, 0, 0, 0, time.UTC) // a Saturday
	for i, p := range places {
		day := sat.AddDate(0, 0, 7*i)
		msgs = append(msgs,
			mynah.Message{ID: mynah.MessageID(2*i + 1), Time: day, Sender: ann, Text: "we hiked up to " + p + " today, lovely"},
			mynah.Message{ID: mynah.MessageID(2*i + 2), Time: day.AddDate(0, 0, 3), Sender: ann, Text: "busy week at work, the hike was " + p})
	}
	if _, err := db.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
		t.Fatal(err)
	}
	s := memory.NewSearcher(db, memory.DefaultOptions(), nil)
	now := time.Date(2024, 5, 15, 12, 0, 0, 0, time.UTC) // Wednesday after the last hike (11 May)
	for _, c := range []struct{ q, want string }{
		{"where did we hike two weekends ago?", "the north cliffs"}, // 4 May
		{"where did we hike the weekend before last?", "the north cliffs"},
		{"where did we hike 3 weekends ago?", "the river bend"}, // 27 April
		{"where did we hike four weekends ago?", "the pine ridge"},
		{"where did we hike 5 weekends ago?", "the old quarry"},
		{"куди ми ходили в похід позаминулого тижня? hiked", "the north cliffs"}, // 29 April – 5 May
	} {
		res, err := s.Search(t.Context(), memory.Query{Agent: "a", Chat: chat.ID, Text: c.q, Now: now, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 || !strings.Contains(res[0].Message.Text, c.want) {
			t.Errorf("%s: %v, want first the hike to %s", c.q, said(res), c.want)
		}
	}
}

// TestSeasonsAndParts: "last summer", "early March", "late March" and «минулої зими»
// name their time: in a chat with a trip to the beach twice a month for two years, the
// search answers first with a trip of that time, not the latest; asked about the season
// alone ("what did we do last winter?"), with what was said in it, though no message
// names it.
func TestSeasonsAndParts(t *testing.T) {
	db := openStore(t)
	chat := mynah.Chat{ID: 901, Type: mynah.ChatPrivate}
	ann := mynah.User{ID: 1, FirstName: "Ann"}
	var msgs []mynah.Message
	for m := range 28 { // January 2022 to April 2024
		for _, d := range []int{5, 25} {
			at := time.Date(2022, time.January+time.Month(m), d, 17, 0, 0, 0, time.UTC)
			msgs = append(msgs, mynah.Message{ID: mynah.MessageID(len(msgs) + 1), Time: at, Sender: ann,
				Text: fmt.Sprintf("back from the beach, cove number %d", len(msgs)+1)})
		}
	}
	msgs = append(msgs, mynah.Message{ID: mynah.MessageID(len(msgs) + 1), Time: time.Date(2024, 1, 10, 8, 0, 0, 0, time.UTC), Sender: ann,
		Text: "winter is so grey here"})
	if _, err := db.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
		t.Fatal(err)
	}
	s := memory.NewSearcher(db, memory.DefaultOptions(), nil)
	now := time.Date(2024, 5, 15, 12, 0, 0, 0, time.UTC)
	day := func(m time.Month, d int, y int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		q        string
		from, to time.Time
	}{
		{"which beach did we go to last summer?", day(time.June, 1, 2023), day(time.September, 1, 2023)},
		{"which beach did we go to in early March?", day(time.March, 1, 2024), day(time.March, 11, 2024)},
		{"which beach did we go to in late March?", day(time.March, 21, 2024), day(time.April, 1, 2024)},
		{"which beach in mid-2022?", day(time.May, 1, 2022), day(time.September, 1, 2022)},
		{"на який пляж ми ходили минулої зими? beach", day(time.December, 1, 2023), day(time.March, 1, 2024)},
	} {
		res, err := s.Search(t.Context(), memory.Query{Agent: "a", Chat: chat.ID, Text: c.q, Now: now, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 || res[0].Time.Before(c.from) || !res[0].Time.Before(c.to) {
			t.Errorf("%s: %v, want first a trip between %s and %s", c.q, said(res), c.from.Format("2 Jan 2006"), c.to.Format("2 Jan 2006"))
		}
	}
	q := "what did we do last winter?" // the time alone: all its messages, not those naming it
	res, err := s.Search(t.Context(), memory.Query{Agent: "a", Chat: chat.ID, Text: q, Now: now, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	winter := memory.Span{From: day(time.December, 1, 2023), To: day(time.March, 1, 2024)}
	if len(res) < 3 || slices.ContainsFunc(res, func(r memory.Result) bool { return !winter.Contains(r.Time) }) {
		t.Errorf("%s: %v, want three messages of last winter", q, said(res))
	}
}

// TestHolidays: asked about a holiday, a search finds what was said on it, though no
// message names it: a dinner every day for more than two years.
func TestHolidays(t *testing.T) {
	db := openStore(t)
	chat := mynah.Chat{ID: 902, Type: mynah.ChatPrivate}
	ann := mynah.User{ID: 1, FirstName: "Ann"}
	var msgs []mynah.Message
	for at := time.Date(2022, 1, 1, 19, 0, 0, 0, time.UTC); at.Before(time.Date(2024, 5, 15, 0, 0, 0, 0, time.UTC)); at = at.AddDate(0, 0, 1) {
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(len(msgs) + 1), Time: at, Sender: ann,
			Text: fmt.Sprintf("dinner tonight was dish number %d", len(msgs)+1)})
	}
	if _, err := db.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
		t.Fatal(err)
	}
	s := memory.NewSearcher(db, memory.DefaultOptions(), nil)
	now := time.Date(2024, 5, 15, 12, 0, 0, 0, time.UTC)
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		q        string
		from, to time.Time
	}{
		{"what was dinner last Christmas?", day(2023, time.December, 24), day(2023, time.December, 27)},
		{"what was dinner on New Year's Eve?", day(2023, time.December, 31), day(2024, time.January, 1)},
		{"what was dinner at Easter?", day(2024, time.March, 29), day(2024, time.April, 2)},
		{"what was dinner for Halloween 2022?", day(2022, time.October, 31), day(2022, time.November, 1)},
		{"що було на вечерю на Великдень? dinner", day(2024, time.May, 3), day(2024, time.May, 7)},
		{"что было на ужин на Рождество? dinner", day(2024, time.January, 6), day(2024, time.January, 9)},
	} {
		res, err := s.Search(t.Context(), memory.Query{Agent: "a", Chat: chat.ID, Text: c.q, Now: now, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 || res[0].Time.Before(c.from) || !res[0].Time.Before(c.to) {
			t.Errorf("%s: %v, want first a dinner between %s and %s", c.q, said(res), c.from.Format("2 Jan 2006"), c.to.Format("2 Jan 2006"))
		}
	}
}

// TestTimeAloneInANewChat: in a new user's chat of eight messages, a question of a time
// alone answers with what was said then first. The month's name that finds them is in
// half the chat, which gives it no weight in FTS5's BM25, while "January" of the message
// after the New Year is rarer; and «делали», «робили» ask what was done, as "do" does.
func TestTimeAloneInANewChat(t *testing.T) {
	db := openStore(t)
	chat := mynah.Chat{ID: 903, Type: mynah.ChatPrivate}
	ann, bob := mynah.User{ID: 1, FirstName: "Ann"}, mynah.User{ID: 2, FirstName: "Bob"}
	at := func(m time.Month, d, h int, y int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }
	var msgs []mynah.Message
	for _, m := range []struct {
		at   time.Time
		from mynah.User
		text string
	}{
		{at(time.December, 20, 10, 2023), ann, "Buying a tree this weekend"},
		{at(time.December, 25, 13, 2023), ann, "Mum made the roast goose, amazing"},
		{at(time.December, 25, 14, 2023), bob, "We had pierogi at my parents"},
		{at(time.December, 31, 23, 2023), bob, "Fireworks on the bridge, see you there"},
		{at(time.January, 7, 12, 2024), ann, "Back at work, the office is cold"},
		{at(time.February, 14, 20, 2024), bob, "Took Kate to the Italian place on the corner"},
		{at(time.March, 31, 11, 2024), ann, "Egg hunt in the garden with the kids"},
		{at(time.April, 20, 11, 2024), ann, "Picnic by the lake"},
	} {
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(len(msgs) + 1), Time: m.at, Sender: m.from, Text: m.text})
	}
	if _, err := db.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
		t.Fatal(err)
	}
	s := memory.NewSearcher(db, memory.DefaultOptions(), nil)
	now := at(time.May, 1, 12, 2024)
	for q, want := range map[string]string{
		"что мы делали на Новый год?":       "Fireworks on the bridge, see you there",
		"що ми робили на Новий рік?":        "Fireworks on the bridge, see you there",
		"what did we do on New Year's Eve?": "Fireworks on the bridge, see you there",
		"що ми робили в лютому?":            "Took Kate to the Italian place on the corner",
	} {
		res, err := s.Search(t.Context(), memory.Query{Agent: "a", Chat: chat.ID, Text: q, Now: now, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 || res[0].Message.Text != want {
			t.Errorf("%s: %v, want first %q", q, said(res), want)
		}
	}
}

func said(res []memory.Result) []string {
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = r.Time.Format("2006-01-02 ") + r.Message.Text
	}
	return out
}

// TestAsOfAfterTheLast: asked as of a time after the chat's last message ("mynah memory
// search --at" the day of the question), a search finds what it finds asked now, for
// questions of rare and of very common words alike; asked as of a time in the middle of
// the chat, it finds nothing said after it.
func TestAsOfAfterTheLast(t *testing.T) {
	db := openStore(t)
	chat := mynah.Chat{ID: -100501, Type: mynah.ChatSupergroup}
	t0 := time.Date(2008, 1, 1, 9, 0, 0, 0, time.UTC)
	var msgs []mynah.Message
	for i := range 3000 {
		text := fmt.Sprintf("the weather today is %s and the bus was %d minutes late", []string{"grey", "sunny", "windy"}[i%3], i%17)
		if i%250 == 7 {
			text = fmt.Sprintf("the piano tuner comes on day %d, the bus was late again", i)
		}
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(i + 1), Time: t0.Add(time.Duration(i) * time.Hour),
			Sender: mynah.User{ID: mynah.UserID(1 + i%2), FirstName: []string{"Ann", "Bob"}[i%2]}, Text: text})
	}
	if _, err := db.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
		t.Fatal(err)
	}
	last := msgs[len(msgs)-1].Time
	s := memory.NewSearcher(db, memory.DefaultOptions(), func() time.Time { return last.Add(time.Hour) })
	ids := func(q memory.Query) []mynah.MessageID {
		t.Helper()
		res, err := s.Search(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]mynah.MessageID, len(res))
		for i, r := range res {
			out[i] = r.MessageID
			if !q.Until.IsZero() && r.Time.After(q.Until) {
				t.Errorf("%q as of %v: message %d said %v", q.Text, q.Until, r.MessageID, r.Time)
			}
		}
		return out
	}
	for _, text := range []string{"when does the piano tuner come?", "was the bus late in the grey weather?"} {
		q := memory.Query{Agent: "a", Chat: chat.ID, Text: text, K: 10}
		now := ids(q)
		q.Until, q.Now = last.Add(time.Hour), last.Add(time.Hour)
		if asOf := ids(q); !slices.Equal(asOf, now) || len(now) == 0 {
			t.Errorf("%q as of after the last message: %v; asked now: %v", text, asOf, now)
		}
		q.Until, q.Now = msgs[1500].Time, msgs[1500].Time
		if got := ids(q); len(got) == 0 {
			t.Errorf("%q as of message 1501: nothing found", text)
		}
	}
}

// TestEndUpTimeOnly: "end up" asks nothing of its own in a question that names only a
// time either: "what did we end up doing last week?" finds what "what did we do last
// week?" finds, in its order, not first the week's message that says "ended".
func TestEndUpTimeOnly(t *testing.T) {
	db := openStore(t)
	chat := mynah.Chat{ID: 42, Type: mynah.ChatPrivate}
	alice := mynah.User{ID: 1, FirstName: "Alice"}
	var msgs []mynah.Message
	for i, l := range []struct {
		at   string
		text string
	}{
		{"2025-09-01T10:00:00Z", "the lease on the flat ends in March, remind me in February"},
		{"2025-09-02T10:00:00Z", "can you get milk and bread on the way home?"},
		{"2025-09-15T10:00:00Z", "we went bowling with the kids, Tom won twice"},
		{"2025-09-15T11:20:00Z", "the film ended too late for the kids"},
		{"2025-09-15T13:00:00Z", "and then pizza at Luigi's"},
	} {
		at, err := time.Parse(time.RFC3339, l.at)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(i + 1), Time: at, Sender: alice, Text: l.text})
	}
	if _, err := db.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
		t.Fatal(err)
	}
	s := memory.NewSearcher(db, memory.DefaultOptions(), nil)
	now := time.Date(2025, 9, 22, 15, 40, 0, 0, time.UTC)
	ids := func(text string) []mynah.MessageID {
		res, err := s.Search(t.Context(), memory.Query{Agent: "a", Chat: chat.ID, Text: text, Now: now, K: 4})
		if err != nil {
			t.Fatal(err)
		}
		return resultIDs(res)
	}
	plain := ids("what did we do last week?")
	if len(plain) < 3 || plain[0] != 3 {
		t.Fatalf("what did we do last week: %v, want the week's messages, the first of them first", plain)
	}
	if got := ids("What did we end up doing last week?"); !slices.Equal(got, plain) {
		t.Errorf("what did we end up doing last week: %v, want %v as without \"end up\"", got, plain)
	}
	if got := ids("What did we get up to last week?"); !slices.Equal(got, plain) {
		t.Errorf("what did we get up to last week: %v, want %v as without \"get up to\"", got, plain)
	}
}
