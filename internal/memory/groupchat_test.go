package memory_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
)

// groupChat is a year of a Telegram group (testdata/group): its messages, as people
// write in a group (short, in bursts, replying to each other), and questions about it,
// each with the messages that answer it. Written for these tests without sight of the
// search code: held out from everything the ranking was tuned on.
type groupChat struct {
	Messages []struct {
		ID      mynah.MessageID `json:"id"`
		Time    time.Time       `json:"time"`
		Sender  string          `json:"sender"`
		Text    string          `json:"text"`
		ReplyTo mynah.MessageID `json:"reply_to"`
	} `json:"messages"`
	Questions []struct {
		Type     string            `json:"type"`
		Date     time.Time         `json:"date"`
		Text     string            `json:"text"`
		Evidence []mynah.MessageID `json:"evidence"`
	} `json:"questions"`
}

// groupChats are the files of the groups: six climbing friends in Bristol (English), a
// Ukrainian family in Poltava, Kyiv, Lviv and Kraków.
var groupChats = []string{"group_en.json", "group_uk.json"}

// readGroupChat returns the group in file name as a chat's messages, each sender a user
// of their own and each reply with the message it replies to, and its questions, in the
// form beatPlain asks them (evidence keyed by message id).
func readGroupChat(tb testing.TB, name string) ([]mynah.Message, []assistantQuestion, map[string]mynah.MessageID) {
	tb.Helper()
	b, err := os.ReadFile("testdata/group/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	var g groupChat
	if err := json.Unmarshal(b, &g); err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	users := map[string]mynah.User{}
	byID := map[mynah.MessageID]mynah.Message{}
	var msgs []mynah.Message
	for _, gm := range g.Messages {
		u, ok := users[gm.Sender]
		if !ok {
			u = mynah.UserNamed(mynah.UserID(len(users)+1), gm.Sender)
			users[gm.Sender] = u
		}
		m := mynah.Message{ID: gm.ID, Time: gm.Time, Sender: u, Text: gm.Text}
		if r, ok := byID[gm.ReplyTo]; ok {
			m.ReplyTo = &mynah.ReplyRef{ID: r.ID, Sender: r.Sender, Text: r.Text}
		}
		byID[m.ID] = m
		msgs = append(msgs, m)
	}
	ids := map[string]mynah.MessageID{}
	var questions []assistantQuestion
	for _, q := range g.Questions {
		aq := assistantQuestion{Type: q.Type, Date: q.Date, Text: q.Text}
		for _, e := range q.Evidence {
			if _, ok := byID[e]; !ok {
				tb.Fatalf("%s: question %q: no message %d", name, q.Text, e)
			}
			key := strconv.Itoa(int(e))
			ids[key] = e
			aq.Evidence = append(aq.Evidence, key)
		}
		questions = append(questions, aq)
	}
	return msgs, questions, ids
}

// TestGroupChat holds the default ranking to beating plain BM25 on each group, asked
// each question at its own time, in either store: turn recall@10 above, all-evidence
// recall@10 not below. Like TestAssistantHistory, it runs without -race.
func TestGroupChat(t *testing.T) {
	skipUnderRace(t)
	for _, store := range recallStores {
		t.Run(store.name, func(t *testing.T) {
			for _, name := range groupChats {
				msgs, questions, ids := readGroupChat(t, name)
				db := store.open(t)
				chat := mynah.Chat{ID: -100777, Type: mynah.ChatSupergroup, Title: "friends"}
				if _, err := db.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
					t.Fatal(err)
				}
				beatPlain(t, fmt.Sprintf("%s, %d messages", name, len(msgs)), db, chat.ID, questions, ids)
			}
		})
	}
}
