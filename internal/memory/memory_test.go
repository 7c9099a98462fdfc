package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/tool"
)

func TestTerms(t *testing.T) {
	stop := stopWords()
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"What did Caroline's friend say about the mill?", []string{"caroline", "friend", "say", "mill"}},
		{`"NEAR" (owls*) AND col:umn -x`, []string{"near", "owls", "col", "umn"}},
		{"Що ти казав про вчорашню зустріч?", []string{"казав", "вчорашню", "зустріч"}},
		{"Когда мы обсуждали новую книгу?", []string{"обсуждали", "новую", "книгу"}},
		{"the and of is", nil},
		{"Café café CAFÉ 2024 7 x", []string{"café", "2024", "7"}},
		{"Пам'ятаєш пам’ять і памʼять? rock'n'roll 'квіти'", []string{"пам'ятаєш", "пам’ять", "памʼять", "rock", "roll", "квіти"}},
	} {
		if got := Terms(c.in, stop); !cmp.Equal(got, c.want, cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })) {
			t.Errorf("Terms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFuse(t *testing.T) {
	kw := []Scored{{"a", 10}, {"b", 5}, {"c", 1}}
	if got := Fuse(kw, nil, Weights{}); !slices.EqualFunc(got, []Scored{{"a", 1}, {"b", 0.5}, {"c", 0.1}}, func(x, y Scored) bool {
		return x.Key == y.Key && x.Score-y.Score < 1e-9 && y.Score-x.Score < 1e-9
	}) {
		t.Errorf("keyword only: %v, want the keyword order normalised", got)
	}
	// A keyword-only hit outranks a weak vector-only one and is never dropped.
	got := Fuse(kw, []Scored{{"d", 0.2}, {"b", 0.9}}, Weights{})
	var keys []string
	for _, s := range got {
		keys = append(keys, s.Key)
	}
	if want := []string{"b", "a", "d", "c"}; !slices.Equal(keys, want) {
		t.Errorf("fused order %v, want %v", keys, want)
	}
}

func TestRecency(t *testing.T) {
	now := time.Date(2025, 1, 31, 0, 0, 0, 0, time.UTC)
	r := Recency{Weight: 1, HalfLife: 24 * time.Hour}
	if got := r.apply(1, now, now); got != 2 {
		t.Errorf("fresh item: %v, want 2", got)
	}
	if got := r.apply(1, now.Add(-24*time.Hour), now); got != 1.5 {
		t.Errorf("one half-life old: %v, want 1.5", got)
	}
	if got := (Recency{}).apply(3, now, now); got != 3 {
		t.Errorf("zero prior changed the score: %v", got)
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("filler words here ", 30) + "the heron nests by the mill " + strings.Repeat("more filler ", 30)
	got := Snippet(long, []string{"heron"}, 60)
	if !strings.Contains(got, "heron") || !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || len([]rune(got)) > 62 {
		t.Errorf("Snippet = %q, want ~60 runes around heron", got)
	}
	if got := Snippet("short  text\nhere", nil, 60); got != "short text here" {
		t.Errorf("short Snippet = %q", got)
	}
}

// fakeHistory is a history index over a fixed list: every message containing a term
// scores the number of terms it contains.
type fakeHistory struct {
	msgs     []mynah.Message
	searches int
}

func (f *fakeHistory) SearchHistory(_ context.Context, q mynah.SearchQuery) ([]mynah.SearchHit, error) {
	f.searches++
	var hits []mynah.SearchHit
	for _, m := range f.msgs {
		if q.Chat != 0 && m.Chat.ID != q.Chat || q.Sender != 0 && m.Sender.ID != q.Sender || q.Later(m.Time) {
			continue
		}
		n := 0
		for _, term := range q.Terms {
			if strings.Contains(strings.ToLower(m.Text), term) {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, mynah.SearchHit{Message: m, Score: float64(n)})
		}
	}
	slices.SortStableFunc(hits, func(a, b mynah.SearchHit) int { return cmpDesc(a.Score, b.Score) })
	return q.KeepWithin(hits[:min(len(hits), q.Limit+q.WithinLimit)]), nil
}

func (f *fakeHistory) Around(_ context.Context, _ string, chat mynah.ChatID, id mynah.MessageID, before, after int) ([]mynah.Message, error) {
	var out []mynah.Message
	for i, m := range f.msgs {
		if m.Chat.ID == chat && m.ID == id {
			out = append(out, f.msgs[max(i-before, 0):min(i+after+1, len(f.msgs))]...)
		}
	}
	return out, nil
}

var (
	chat  = mynah.Chat{ID: -100, Type: mynah.ChatGroup}
	alice = mynah.User{ID: 1, FirstName: "Alice"}
	bob   = mynah.User{ID: 2, FirstName: "Bob"}
)

func conversation() *fakeHistory {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	texts := []struct {
		u    mynah.User
		text string
	}{
		{alice, "where is the spare key?"}, {bob, "under the blue pot"}, {alice, "thanks"},
		{bob, "the key to the shed is lost"}, {alice, "pot plants need water"},
	}
	h := &fakeHistory{}
	for i, x := range texts {
		h.msgs = append(h.msgs, mynah.Message{Agent: "a", Chat: chat, ID: mynah.MessageID(i + 1), Sender: x.u, Time: t0.Add(time.Duration(i) * time.Hour), Text: x.text})
	}
	return h
}

func resultIDs(rs []Result) []mynah.MessageID {
	var out []mynah.MessageID
	for _, r := range rs {
		out = append(out, r.MessageID)
	}
	return out
}

func TestSearcherFeatures(t *testing.T) {
	h := conversation()
	search := func(o Options, q Query) []mynah.MessageID {
		t.Helper()
		q.Agent, q.Chat = "a", chat.ID
		rs, err := NewSearcher(h, o, nil).Search(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		return resultIDs(rs)
	}
	if got := search(Options{}, Query{Text: "where is the key?"}); !slices.Equal(got, []mynah.MessageID{1, 4}) {
		t.Errorf("plain: %v, want [1 4]", got)
	}
	if got := search(Options{SpeakerBoost: 1}, Query{Text: "what did Bob say about the key?"}); got[0] != 4 {
		t.Errorf("speaker boost: %v, want Bob's message 4 first", got)
	}
	if got := search(Options{}, Query{Text: "key", Exclude: []mynah.MessageID{1}}); !slices.Equal(got, []mynah.MessageID{4}) {
		t.Errorf("excluding the window: %v, want [4]", got)
	}
	if got := search(Options{}, Query{Text: "key pot water", K: 2}); len(got) != 2 {
		t.Errorf("K 2 returned %v", got)
	}
	if got := search(Options{Expansion: 2, ExpansionDocs: 1, ExpansionWeight: 0.5}, Query{Text: "spare"}); !slices.Contains(got, 4) {
		t.Errorf("expansion from message 1 (spare key) should reach message 4 (key): %v", got)
	}
	if got := search(Options{}, Query{Text: "the of and"}); len(got) != 0 {
		t.Errorf("stop words only: %v", got)
	}
}

func TestRecallItems(t *testing.T) {
	h := conversation()
	r := NewRecall(NewSearcher(h, Options{}, nil), 3)
	target := mynah.Message{Chat: chat, ID: 9, Sender: alice, Text: "did anyone find the shed key?"}
	items, err := r.Items(t.Context(), prompt.Query{Agent: "a", Chat: chat, Target: target, Window: []mynah.Message{h.msgs[4], target}})
	if err != nil {
		t.Fatal(err)
	}
	// The query borrows the words of the message before the target ("pot"), so message 2
	// is recalled too; message 5 is in the window and left out.
	var got []string
	for _, it := range items {
		got = append(got, it.ID)
	}
	if want := []string{"message:4", "message:1", "message:2"}; !slices.Equal(got, want) {
		t.Fatalf("items = %v, want %v", got, want)
	}
	want := "[2025-01-01 02:00 UTC #3] Alice: thanks\n[2025-01-01 03:00 UTC #4] Bob: the key to the shed is lost"
	if items[0].Text != want {
		t.Errorf("item text =\n%s\nwant\n%s", items[0].Text, want)
	}
}

// TestRecallSkipsCommands: after /reset, recall brings back what was said, not the
// commands and the canned replies to them, and a hit's neighbour that is a hit too is
// listed once (issue 15).
func TestRecallSkipsCommands(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	bot := mynah.User{ID: 99, FirstName: "Mynah", IsBot: true}
	h := &fakeHistory{}
	for i, x := range []struct {
		u    mynah.User
		text string
	}{
		{alice, "/help"}, {bot, "I'm Mynah. Write to me and I'll answer; /help shows this help."},
		{alice, "my bike help: the chain needs oil"}, {bob, "help with the bike chain: use oil"},
		{alice, "/start"}, {bot, "Hi! I'm Mynah. Help yourself."},
	} {
		h.msgs = append(h.msgs, mynah.Message{Agent: "a", Chat: chat, ID: mynah.MessageID(i + 1), Sender: x.u, Outgoing: x.u.ID == bot.ID,
			Time: t0.Add(time.Duration(i) * time.Hour), Text: x.text})
	}
	r := NewRecall(NewSearcher(h, Options{}, nil), 5)
	target := mynah.Message{Chat: chat, ID: 9, Sender: alice, Text: "help, what about the bike chain?"}
	items, err := r.Items(t.Context(), prompt.Query{Agent: "a", Chat: chat, Target: target, Window: []mynah.Message{target}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	all := ""
	for _, it := range items {
		ids = append(ids, it.ID)
		all += it.Text + "\n"
	}
	if want := []string{"message:3", "message:4"}; !slices.Equal(slices.Sorted(slices.Values(ids)), want) {
		t.Errorf("recalled %v, want %v: no commands, no canned replies", ids, want)
	}
	if n := strings.Count(all, "the chain needs oil"); n != 1 {
		t.Errorf("message 3 is listed %d times:\n%s", n, all)
	}
}

// TestRecallNothingBeyondWindow: when the window starts at the chat's first message there
// is nothing to recall, and no search is made for it.
func TestRecallNothingBeyondWindow(t *testing.T) {
	h := conversation()
	r := NewRecall(NewSearcher(h, Options{}, nil), 3)
	target := mynah.Message{Chat: chat, ID: 9, Sender: alice, Text: "did anyone find the shed key?"}
	items, err := r.Items(t.Context(), prompt.Query{Agent: "a", Chat: chat, Target: target, Window: append(slices.Clone(h.msgs), target)})
	if err != nil || len(items) != 0 || h.searches != 0 {
		t.Errorf("items = %v, %v after %d searches; want none and no search: the whole chat is in the window", items, err, h.searches)
	}
}

func TestTools(t *testing.T) {
	h := conversation()
	call := func(tl tool.Tool, args string) (string, error) {
		return tl.Run(t.Context(), tool.Call{Agent: "a", Chat: chat, Args: json.RawMessage(args)})
	}
	for _, tl := range []tool.Tool{NewSearchTool(NewSearcher(h, Options{}, nil)), NewGetTool(h)} {
		if !json.Valid(tl.Spec().Parameters) {
			t.Errorf("%s: parameters are not JSON", tl.Spec().Name)
		}
	}
	out, err := call(NewSearchTool(NewSearcher(h, Options{}, nil)), `{"query":"shed key","k":1}`)
	if err != nil || !strings.Contains(out, "#4] Bob (score") || strings.Count(out, "\n") != 0 {
		t.Errorf("memory_search = %q, %v", out, err)
	}
	// The message the turn answers is not a result: the model has it.
	out, err = NewSearchTool(NewSearcher(h, Options{}, nil)).Run(t.Context(), tool.Call{Agent: "a", Chat: chat, Target: 4, Args: json.RawMessage(`{"query":"shed key","k":1}`)})
	if err != nil || strings.Contains(out, "#4]") || strings.Count(out, "\n") != 0 {
		t.Errorf("memory_search answering message 4 = %q, %v; want one other result", out, err)
	}
	if _, err := call(NewSearchTool(NewSearcher(h, Options{}, nil)), `{"query":"  "}`); err == nil {
		t.Error("memory_search with an empty query succeeded")
	}
	out, err = call(NewGetTool(h), `{"message_id":2,"around":1}`)
	want := "[2025-01-01 00:00 UTC #1] Alice: where is the spare key?\n> [2025-01-01 01:00 UTC #2] Bob: under the blue pot\n[2025-01-01 02:00 UTC #3] Alice: thanks"
	if err != nil || out != want {
		t.Errorf("memory_get = %q, %v; want %q", out, err, want)
	}
	if _, err := call(NewGetTool(h), `{"message_id":77}`); err == nil {
		t.Error("memory_get of a missing message succeeded")
	}
}

// TestSearchToolAboutUser: "about": "user" in the person's private chat finds what they
// wrote in other chats, and nobody else's words from there; in a group it stays in the
// group, so that nothing they said elsewhere reaches it; the default stays in this chat.
func TestSearchToolAboutUser(t *testing.T) {
	h := conversation()
	other := mynah.Chat{ID: -500, Type: mynah.ChatGroup}
	t0 := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	h.msgs = append(h.msgs,
		mynah.Message{Chat: other, ID: 1, Sender: alice, Time: t0, Text: "my bicycle lock code changed"},
		mynah.Message{Chat: other, ID: 2, Sender: bob, Time: t0, Text: "my bicycle is red"})
	search := NewSearchTool(NewSearcher(h, Options{}, nil))
	private := mynah.Chat{ID: mynah.ChatID(alice.ID), Type: mynah.ChatPrivate}
	run := func(in mynah.Chat, args string) string {
		t.Helper()
		out, err := search.Run(t.Context(), tool.Call{Agent: "a", Chat: in, Sender: alice, Args: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("memory_search %s: %v", args, err)
		}
		return out
	}
	if out := run(chat, `{"query":"bicycle"}`); out != "No messages found." {
		t.Errorf("memory_search in this chat = %q: other chats leaked", out)
	}
	if out := run(chat, `{"query":"bicycle","about":"user"}`); out != "No messages found." {
		t.Errorf("memory_search about the user in a group = %q: another chat leaked into the group", out)
	}
	// A query of nothing but everyday words: the model is told to search for what it was about.
	if out := run(chat, `{"query":"what did I do?"}`); !strings.Contains(out, "No messages found: every word of \"what did I do?\" is too common") {
		t.Errorf("memory_search of everyday words = %q, want it to say they are too common to search for", out)
	}
	out := run(private, `{"query":"bicycle","about":"user"}`)
	if !strings.Contains(out, "in chat -500] Alice") || !strings.Contains(out, "lock code") || strings.Contains(out, "red") {
		t.Errorf("memory_search about the user = %q: want Alice's own message from the other chat only", out)
	}
	if _, err := search.Run(t.Context(), tool.Call{Agent: "a", Chat: chat, Sender: alice, Args: json.RawMessage(`{"query":"x","about":"everyone"}`)}); err == nil {
		t.Error(`about "everyone" was accepted`)
	}
}

// TestSearchToolSaysWhenTimeMissed: asked about a time nothing matching was said in, the
// model is told that the results are of other times, so that it does not answer "yesterday
// you said…" with something said a month ago; when the time has a match, no such line.
func TestSearchToolSaysWhenTimeMissed(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC) // Monday 2 November
	h := chatOf(t0,
		"+0 Alice: the plumber fixed the boiler",
		"+10 Bob: great, the boiler works",
		"+4320 Bob: last Sunday the plumber came for the boiler",
		"+4400 Alice: what did the plumber say about the boiler yesterday?", // Thursday 5 November
		"+43200 Alice: we talked about the garden today",                    // Wednesday 2 December, 10:00
	)
	search := NewSearchTool(NewSearcher(h, DefaultOptions(), nil))
	ask := func(query string, now time.Time) string {
		t.Helper()
		out, err := search.Run(t.Context(), tool.Call{Agent: "a", Chat: chat, Now: now,
			Args: json.RawMessage(fmt.Sprintf(`{"query":%q}`, query))})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	thursday := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	out := ask("what did we say about the boiler yesterday?", thursday)
	if want := `Found nothing said on Wed 2 Dec 2026 for "what did we say about the boiler yesterday?"; the results below are from other times.`; !strings.HasPrefix(out, want+"\n") || !strings.Contains(out, "boiler") {
		t.Errorf("boiler yesterday:\n%s\nwant it to start with %q, then the boiler messages", out, want)
	}
	if out := ask("what did we say about the garden yesterday?", thursday); strings.Contains(out, "Found nothing") || !strings.Contains(out, "garden") {
		t.Errorf("garden yesterday:\n%s\nwant the garden message and no note", out)
	}
	if out := ask("what did we say about the boiler?", thursday); strings.Contains(out, "Found nothing") {
		t.Errorf("a question naming no time:\n%s\nwant no note", out)
	}
	// Said on Thursday 5 November of the Sunday before: the result tells of that time.
	if out := ask("what happened with the plumber on 1 November?", thursday); strings.Contains(out, "Found nothing") {
		t.Errorf("a result telling of the time (\"last Sunday the plumber came\", said on Thursday):\n%s\nwant no note", out)
	}
	// A question asked the day after names the time but tells nothing of it.
	if out := ask("what did the plumber say about the boiler on 4 November?", thursday); !strings.HasPrefix(out, "Found nothing said on Wed 4 Nov 2026") {
		t.Errorf("only a question of the day after (\"what did the plumber say … yesterday?\") names the time:\n%s\nwant the note", out)
	}
	// Nothing can have been said in a time still to come.
	if out := ask("what is the boiler plan for tomorrow?", thursday); strings.Contains(out, "Found nothing") {
		t.Errorf("a time to come:\n%s\nwant no note", out)
	}
}

// TestSearchUntil: a search with Until is the search as it would have run then: what was
// said after it is not found, however well it matches.
func TestSearchUntil(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	h := chatOf(t0,
		"+0 Alice: the boiler is making a noise",
		"+60 Bob: call the plumber",
		"+2880 Alice: the plumber fixed the boiler, the boiler is quiet now",
	)
	q := Query{Text: "boiler", K: 5}
	if got := searchIDs(t, h, DefaultOptions(), q); !slices.Contains(got, 3) {
		t.Fatalf("boiler: %v, want message 3 among them", got)
	}
	q.Until = t0.Add(24 * time.Hour)
	if got := searchIDs(t, h, DefaultOptions(), q); slices.Contains(got, 3) || !slices.Contains(got, 1) {
		t.Errorf("boiler until the next day: %v, want message 1 and not 3, said two days later", got)
	}
}

// TestRecalledTimesInChatZone: recall and memory_get show when a message was said in the
// chat's time zone, named, as the prompt's window does: a message of 23:30 in Kyiv is not
// shown as 21:30, which the model would read as Kyiv's time too.
func TestRecalledTimesInChatZone(t *testing.T) {
	kyiv, err := time.LoadLocation("Europe/Kyiv")
	if err != nil {
		t.Skip(err)
	}
	h := conversation() // message 4 at 03:00 UTC: 05:00 in Kyiv, in winter
	r := NewRecall(NewSearcher(h, Options{}, nil).WithLocation(kyiv), 3)
	target := mynah.Message{Chat: chat, ID: 9, Sender: alice, Text: "did anyone find the shed key?"}
	items, err := r.Items(t.Context(), prompt.Query{Agent: "a", Chat: chat, Target: target, Window: []mynah.Message{h.msgs[4], target}})
	if err != nil || len(items) == 0 {
		t.Fatalf("items %v, %v", items, err)
	}
	if want := "[2025-01-01 05:00 EET #4] Bob: the key to the shed is lost"; !strings.Contains(items[0].Text, want) {
		t.Errorf("recall item:\n%s\nwant %q", items[0].Text, want)
	}
	out, err := NewGetTool(h).WithLocation(kyiv).Run(t.Context(), tool.Call{Agent: "a", Chat: chat, Args: json.RawMessage(`{"message_id":4,"around":0}`)})
	if want := "> [2025-01-01 05:00 EET #4] Bob: the key to the shed is lost"; err != nil || out != want {
		t.Errorf("memory_get = %q, %v; want %q", out, err, want)
	}
}
