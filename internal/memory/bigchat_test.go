package memory_test

import (
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/memory/locomo"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// bigChatFiller is how many messages TestLoCoMoBigChat adds to a half's conversations.
const bigChatFiller = 30_000

// TestLoCoMoBigChat asks each half's questions in one busy chat: the half's five
// conversations and, after them, 30,000 messages of the other half's turns over and over,
// as a group chat that talks for months holds them. There most words of a question are
// common (hundreds of matches), which the store does not rank over every match (see the
// SQLite store's commonTerm): turn recall@10 over categories 1-4 must still reach 0.65,
// and no category fall below plain BM25. Leaving the common terms out entirely gave 0.571
// / 0.595 (halves A / B); ranking them where they meet a rare term gives 0.681 / 0.687.
func TestLoCoMoBigChat(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("imports the benchmark with 30,000 more messages: runs without -short and -race")
	}
	convs := readLoCoMo(t)
	for _, half := range locomo.Halves {
		db, chat, now := bigChat(t, convs, half)
		ask := func(opts memory.Options) *locomo.Report {
			rep := locomo.NewReport([]int{5, 10, 20})
			s := memory.NewSearcher(db, opts, func() time.Time { return now })
			for i, c := range convs {
				if !locomo.InHalf(half, i, len(convs)) {
					continue
				}
				for _, q := range c.Questions {
					res, err := s.Search(t.Context(), memory.Query{Agent: locomo.Agent, Chat: chat.ID, Text: q.Text, K: 20})
					if err != nil {
						t.Fatal(err)
					}
					ids := make([]mynah.MessageID, len(res))
					for j, h := range res {
						ids[j] = -1 // another conversation's turn, or filler
						if h.MessageID/bigChatConv == mynah.MessageID(i) {
							ids[j] = h.MessageID % bigChatConv
						}
					}
					rep.Add(q, ids)
				}
			}
			return rep
		}
		rep, plain := ask(memory.DefaultOptions()), ask(plainBM25(t))
		t.Logf("half %s, turn recall@5/10/20\ndefault ranking:\n%s\nplain BM25 in mynah's index:\n%s", half, formatReport(rep), formatReport(plain))
		if got := recallAt10(&rep.Core); got < 0.65 {
			t.Errorf("half %s: turn recall@10 over categories 1-4 = %.3f in one busy chat, want >= 0.65", half, got)
		}
		for cat := 1; cat <= 4; cat++ {
			if got, b := recallAt10(rep.ByCategory[cat]), recallAt10(plain.ByCategory[cat]); got < b {
				t.Errorf("half %s, category %d (%s): turn recall@10 = %.3f in one busy chat, below plain BM25's %.3f", half, cat, locomo.Categories[cat], got, b)
			}
		}
	}
}

// bigChatConv spaces the conversations' message ids in the busy chat: turn t of
// conversation i is message i·bigChatConv + t.
const bigChatConv = 1_000_000

// bigChat imports half's conversations into one chat followed by bigChatFiller messages
// of the other half's turns, a minute apart after the last turn, and returns the store,
// the chat and the time of its last message.
func bigChat(t *testing.T, convs []locomo.Conversation, half string) (*sqlite.DB, mynah.Chat, time.Time) {
	t.Helper()
	db := openStore(t)
	chat := mynah.Chat{ID: -2000, Type: mynah.ChatSupergroup, Title: "busy"}
	var last time.Time
	var other []locomo.Turn
	for i, c := range convs {
		if !locomo.InHalf(half, i, len(convs)) {
			other = append(other, c.Turns...)
			continue
		}
		// The turns as locomo.Import stores them, numbered apart from the other conversations'.
		var msgs []mynah.Message
		err := locomo.Source(c, i)(func(_ string, m mynah.Message, err error) bool {
			m.ID += mynah.MessageID(i * bigChatConv)
			msgs = append(msgs, m)
			if m.Time.After(last) {
				last = m.Time
			}
			return err == nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ImportMessages(t.Context(), locomo.Agent, chat, msgs); err != nil {
			t.Fatal(err)
		}
	}
	var fill []mynah.Message
	for j := range bigChatFiller {
		tr := other[j%len(other)]
		last = last.Add(time.Minute)
		fill = append(fill, mynah.Message{ID: mynah.MessageID(50*bigChatConv + j), Time: last,
			Sender: mynah.UserNamed(mynah.UserID(9000+j%7), tr.Speaker), Text: tr.Text})
		if len(fill) == 5000 || j == bigChatFiller-1 {
			if _, err := db.ImportMessages(t.Context(), locomo.Agent, chat, fill); err != nil {
				t.Fatal(err)
			}
			fill = fill[:0]
		}
	}
	return db, chat, last
}
