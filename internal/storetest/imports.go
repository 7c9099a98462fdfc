package storetest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

func importMessages(t *testing.T, s mynah.HistoryImport, agent string, chat mynah.Chat, msgs ...mynah.Message) int {
	t.Helper()
	n, err := s.ImportMessages(t.Context(), agent, chat, msgs)
	if err != nil {
		t.Fatalf("ImportMessages(%s, %d, %d messages): %v", agent, chat.ID, len(msgs), err)
	}
	return n
}

func testImportLikeLive(t *testing.T, b Backend) {
	s := b.Open(t)
	in := []mynah.Message{
		{ID: 10, Sender: alice, Time: at(10), Text: "first", Entities: []mynah.Entity{{Type: "bold", Offset: 0, Length: 5}}},
		{ID: 11, Sender: carol, Time: at(11), Text: "second", ReplyTo: &mynah.ReplyRef{ID: 10}},
		{ID: 12, Sender: bot, Time: at(12), Text: "third", Outgoing: true},
	}
	if n := importMessages(t, s, agentA, group, in...); n != 3 {
		t.Errorf("ImportMessages added %d, want 3", n)
	}
	var want []mynah.Message
	for _, m := range in {
		m.Chat = group
		want = append(want, stored(agentA, &m))
	}
	if diff := cmp.Diff(history(t, s, agentA, group.ID, 0, 0, 10), want, cmpOpts); diff != "" {
		t.Errorf("imported history (-got +want):\n%s", diff)
	}
}

func testImportIdempotent(t *testing.T, b Backend) {
	s := b.Open(t)
	msgs := []mynah.Message{{ID: 1, Sender: alice, Time: at(1), Text: "a"}, {ID: 2, Sender: alice, Time: at(2), Text: "b"}}
	importMessages(t, s, agentA, dm, msgs...)
	if n := importMessages(t, s, agentA, dm, msgs...); n != 0 {
		t.Errorf("second import added %d, want 0", n)
	}
	more := append(msgs, mynah.Message{ID: 3, Sender: alice, Time: at(3), Text: "c"})
	if n := importMessages(t, s, agentA, dm, more...); n != 1 {
		t.Errorf("import with one new message added %d, want 1", n)
	}
	if got := ids(history(t, s, agentA, dm.ID, 0, 0, 10)); !cmp.Equal(got, []mynah.MessageID{1, 2, 3}) {
		t.Errorf("history after imports = %v, want [1 2 3]", got)
	}
	if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: []string{"a", "b", "c"}}); len(got) != 3 {
		t.Errorf("each message indexed once: search found %v", got)
	}
}

func testImportKeepsKnown(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(group, 5, "live text"))
	archived := mynah.Message{ID: 5, Sender: carol, Time: at(1), Text: "archived text"}
	bare := mynah.Chat{ID: group.ID, Type: mynah.ChatGroup}
	renamed := alice
	renamed.FirstName = "Old name"
	if n := importMessages(t, s, agentA, bare, archived, mynah.Message{ID: 6, Sender: renamed, Time: at(6), Text: "new"}); n != 1 {
		t.Errorf("import added %d, want 1 (message 5 is stored)", n)
	}
	got := getMessage(t, s, agentA, group.ID, 5)
	if got.Text != "live text" || got.Chat != group {
		t.Errorf("a stored message or its chat was overwritten by an import: %+v", got)
	}
	if c, err := s.Chat(t.Context(), agentA, group.ID); err != nil || c != group {
		t.Errorf("Chat after import = %+v, %v; want %+v", c, err, group)
	}
}

func testImportInvalid(t *testing.T, b Backend) {
	s := b.Open(t)
	good := mynah.Message{ID: 1, Sender: alice, Time: at(1), Text: "good"}
	for name, bad := range map[string]mynah.Message{
		"zero id":      {ID: 0, Sender: alice, Time: at(2), Text: "x"},
		"negative id":  {ID: -4, Sender: alice, Time: at(2), Text: "x"},
		"another chat": {ID: 2, Chat: dm, Sender: alice, Time: at(2), Text: "x"},
	} {
		if _, err := s.ImportMessages(t.Context(), agentA, group, []mynah.Message{good, bad}); err == nil {
			t.Errorf("%s: ImportMessages succeeded, want an error", name)
		}
	}
	if _, err := s.ImportMessages(t.Context(), agentA, mynah.Chat{}, []mynah.Message{good}); err == nil {
		t.Errorf("import without a chat succeeded")
	}
	if _, err := s.ImportMessages(t.Context(), "", group, []mynah.Message{good}); err == nil {
		t.Errorf("import without an agent succeeded")
	}
	if got := history(t, s, agentA, group.ID, 0, 0, 10); len(got) != 0 {
		t.Errorf("a refused import stored %v", ids(got))
	}
}

func testImportSearchable(t *testing.T, b Backend) {
	s := b.Open(t)
	var msgs []mynah.Message
	for i := 1; i <= 300; i++ {
		text := "ordinary chatter"
		if i%100 == 0 {
			text = "the password hint is a blue heron"
		}
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(i), Sender: alice, Time: at(i), Text: text})
	}
	importMessages(t, s, agentA, group, msgs...)
	if got := sorted(search(t, s, mynah.SearchQuery{Agent: agentA, Chat: group.ID, Terms: []string{"heron"}})); !cmp.Equal(got, []mynah.MessageID{100, 200, 300}) {
		t.Errorf("search of imported history for heron = %v, want [100 200 300]", got)
	}
}
