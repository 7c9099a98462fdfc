package memory_test

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
)

// TestUkRuRecall measures search in Ukrainian and Russian chats on a set of our own
// (testdata/ukru): 141 messages in a Ukrainian, a Russian and a mixed chat, and 83
// questions whose answers use other forms of their words («Що за машина тепер в Олі?» for
// «Нарешті купила машину»). Each question is asked in its answer's chat with the default
// ranking; recall@k is the share of answer messages in the first k results, averaged
// over the questions.
//
// Before stemming (schema 14: FTS5's porter tokenizer alone) this set measured recall@5
// and @10 0.452 (Ukrainian chat 0.537, Russian 0.382, mixed 0.300); with it, 0.952;
// since a query looks up the forms with and without a fleeting vowel («угли», уголь;
// «гаманці», гаманець), 0.988. The test asks for at least 0.80 at 10. It logs the
// questions it misses.
func TestUkRuRecall(t *testing.T) {
	msgs, chats := readUkRuMessages(t)
	questions := readUkRuQuestions(t)
	db := openStore(t)
	for _, chat := range chats {
		if _, err := db.ImportMessages(t.Context(), "a", chat, msgs[chat.ID]); err != nil {
			t.Fatal(err)
		}
	}
	chatOf := map[mynah.MessageID]mynah.ChatID{}
	for chat, ms := range msgs {
		for _, m := range ms {
			chatOf[m.ID] = chat
		}
	}
	s := memory.NewSearcher(db, memory.DefaultOptions(), nil)
	type recall struct {
		n         int
		at5, at10 float64
	}
	byChat := map[mynah.ChatID]*recall{}
	all := &recall{}
	for _, q := range questions {
		chat := chatOf[q.answers[0]]
		res, err := s.Search(t.Context(), memory.Query{Agent: "a", Chat: chat, Text: q.text, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		var found5, found10 int
		for i, r := range res {
			if slices.Contains(q.answers, r.MessageID) {
				found10++
				if i < 5 {
					found5++
				}
			}
		}
		if found10 == 0 {
			t.Logf("missed: %s %v", q.text, q.answers)
		}
		if byChat[chat] == nil {
			byChat[chat] = &recall{}
		}
		for _, r := range []*recall{all, byChat[chat]} {
			r.n++
			r.at5 += float64(found5) / float64(len(q.answers))
			r.at10 += float64(found10) / float64(len(q.answers))
		}
	}
	var b strings.Builder
	for _, c := range []struct {
		name string
		r    *recall
	}{{"all", all}, {"Ukrainian chat", byChat[-1001]}, {"Russian chat", byChat[-1002]}, {"mixed chat", byChat[-1003]}} {
		fmt.Fprintf(&b, "%-15s %3d questions  recall@5 %.3f  @10 %.3f\n", c.name, c.r.n, c.r.at5/float64(c.r.n), c.r.at10/float64(c.r.n))
	}
	t.Logf("Ukrainian and Russian recall:\n%s", b.String())
	if got := all.at10 / float64(all.n); got < 0.80 {
		t.Errorf("recall@10 = %.3f, want >= 0.80", got)
	}
}

type ukruQuestion struct {
	text    string
	answers []mynah.MessageID
}

// readUkRuMessages reads testdata/ukru/messages.txt: chat|id|sender|text lines.
func readUkRuMessages(t *testing.T) (map[mynah.ChatID][]mynah.Message, []mynah.Chat) {
	t.Helper()
	msgs := map[mynah.ChatID][]mynah.Message{}
	var chats []mynah.Chat
	senders := map[string]mynah.UserID{}
	t0 := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	readLines(t, "testdata/ukru/messages.txt", func(line string) {
		f := strings.SplitN(line, "|", 4)
		if len(f) != 4 {
			t.Fatalf("bad message line %q", line)
		}
		chat, err1 := strconv.ParseInt(f[0], 10, 64)
		id, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad message line %q", line)
		}
		if _, ok := msgs[mynah.ChatID(chat)]; !ok {
			chats = append(chats, mynah.Chat{ID: mynah.ChatID(chat), Type: mynah.ChatSupergroup, Title: f[0]})
		}
		if senders[f[2]] == 0 {
			senders[f[2]] = mynah.UserID(len(senders) + 1)
		}
		msgs[mynah.ChatID(chat)] = append(msgs[mynah.ChatID(chat)], mynah.Message{ID: mynah.MessageID(id),
			Time: t0.Add(time.Duration(id) * 7 * time.Minute), Sender: mynah.User{ID: senders[f[2]], FirstName: f[2]}, Text: f[3]})
	})
	return msgs, chats
}

// readUkRuQuestions reads testdata/ukru/questions.txt: ids|question lines.
func readUkRuQuestions(t *testing.T) []ukruQuestion {
	t.Helper()
	var out []ukruQuestion
	readLines(t, "testdata/ukru/questions.txt", func(line string) {
		ids, text, ok := strings.Cut(line, "|")
		if !ok {
			t.Fatalf("bad question line %q", line)
		}
		q := ukruQuestion{text: text}
		for _, s := range strings.Split(ids, ",") {
			id, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("bad question line %q", line)
			}
			q.answers = append(q.answers, mynah.MessageID(id))
		}
		out = append(out, q)
	})
	return out
}

// readLines calls fn with each line of the file that is neither empty nor a # comment.
func readLines(t *testing.T, path string, fn func(string)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			fn(line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestShortNames: a name of three letters asked in another form than a chat says it
// («що нового в Олі?» of «Оля») finds the messages that name her and those she wrote, and
// hers first; in Ukrainian such a word keeps its ending in the index (see stem.Query).
func TestShortNames(t *testing.T) {
	db := openStore(t)
	chat := mynah.Chat{ID: -500, Type: mynah.ChatGroup}
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	petro, olya := mynah.UserNamed(1, "Петро"), mynah.UserNamed(2, "Оля")
	msgs := []mynah.Message{
		{ID: 1, Time: at, Sender: petro, Text: "Оля нарешті склала іспит з водіння"},
		{ID: 2, Time: at.Add(time.Minute), Sender: petro, Text: "Завтра йдемо в кіно, квитки вже є"},
		{ID: 3, Time: at.Add(48 * time.Hour), Sender: olya, Text: "Мені подарували велосипед, катаюся щодня"},
		{ID: 4, Time: at.Add(49 * time.Hour), Sender: petro, Text: "Чудова погода для прогулянки в парку"},
	}
	if _, err := db.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
		t.Fatal(err)
	}
	s := memory.NewSearcher(db, memory.DefaultOptions(), nil)
	for _, q := range []string{"Що нового в Олі?", "що робила Олю", "Що нового в Оли?"} {
		res, err := s.Search(t.Context(), memory.Query{Agent: "a", Chat: chat.ID, Text: q, K: 2})
		if err != nil {
			t.Fatal(err)
		}
		var ids []mynah.MessageID
		for _, r := range res {
			ids = append(ids, r.MessageID)
		}
		if !slices.Equal(ids, []mynah.MessageID{3, 1}) {
			t.Errorf("%s found %v, want hers (3), then the message naming her (1)", q, ids)
		}
	}
}
