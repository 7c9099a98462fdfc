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

func said(res []memory.Result) []string {
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = r.Time.Format("2006-01-02 ") + r.Message.Text
	}
	return out
}
