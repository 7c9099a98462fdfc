package tgexport_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/telegram/tgexport"
)

// decoded is what Decode yields for one message.
type decoded struct {
	Pos string
	Msg mynah.Message
	Err string
}

// decodeAll decodes the export in s, collecting every yielded message.
func decodeAll(t *testing.T, s string) ([]decoded, error) {
	t.Helper()
	var got []decoded
	err := tgexport.Decode(strings.NewReader(s), func(pos string, m mynah.Message, err error) bool {
		d := decoded{Pos: pos, Msg: m}
		if err != nil {
			d.Err = err.Error()
		}
		got = append(got, d)
		return true
	})
	return got, err
}

func TestDecodeFile(t *testing.T) {
	f, err := os.Open("testdata/supergroup.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chat, err := tgexport.ReadChat(f)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(chat, mynah.Chat{ID: -1001234567890, Type: mynah.ChatSupergroup, Title: "Birders"}); diff != "" {
		t.Errorf("ReadChat (-got +want):\n%s", diff)
	}

	b, err := os.ReadFile("testdata/supergroup.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeAll(t, string(b))
	if err != nil {
		t.Fatal(err)
	}
	carol := mynah.User{ID: 2001, FirstName: "Carol", LastName: "Reed"}
	dan := mynah.User{ID: 2002, FirstName: "Dan"}
	want := []decoded{
		{Pos: "messages[1] (id 11)", Msg: mynah.Message{ID: 11, Time: time.Unix(1714557660, 0).UTC(), Edited: time.Unix(1714557900, 0).UTC(),
			Sender: carol, Text: "look: a kingfisher by the river"}},
		{Pos: "messages[2] (id 12)", Msg: mynah.Message{ID: 12, Time: time.Unix(1714557720, 0).UTC(), Sender: dan, Text: "mine",
			ReplyTo: &mynah.ReplyRef{ID: 11}, Media: []mynah.Media{{Kind: mynah.MediaPhoto, Width: 800, Height: 600}}}},
		{Pos: "messages[3] (id 13)", Msg: mynah.Message{ID: 13, Time: time.Unix(1714557780, 0).UTC(), Sender: dan,
			Media: []mynah.Media{{Kind: mynah.MediaSticker, Emoji: "🐦", Width: 512, Height: 512}}}},
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Decode (-got +want):\n%s", diff)
	}
}

func TestReadChat(t *testing.T) {
	for _, tc := range []struct {
		name, export string
		want         mynah.Chat
	}{
		{"personal", `{"name": "Alice", "type": "personal_chat", "id": 1001, "messages": []}`,
			mynah.Chat{ID: 1001, Type: mynah.ChatPrivate}},
		{"bot chat", `{"name": "Mynah", "type": "bot_chat", "id": 555, "messages": []}`,
			mynah.Chat{ID: 555, Type: mynah.ChatPrivate}},
		{"basic group", `{"name": "Family", "type": "private_group", "id": 4242, "messages": []}`,
			mynah.Chat{ID: -4242, Type: mynah.ChatGroup, Title: "Family"}},
		{"private supergroup", `{"name": "Birders", "type": "private_supergroup", "id": 1234567890, "messages": []}`,
			mynah.Chat{ID: -1001234567890, Type: mynah.ChatSupergroup, Title: "Birders"}},
		{"public supergroup", `{"name": "Open", "type": "public_supergroup", "id": 77, "messages": []}`,
			mynah.Chat{ID: -1000000000077, Type: mynah.ChatSupergroup, Title: "Open"}},
		{"private channel", `{"name": "News", "type": "private_channel", "id": 88, "messages": []}`,
			mynah.Chat{ID: -1000000000088, Type: mynah.ChatChannel, Title: "News"}},
		{"public channel", `{"name": "Press", "type": "public_channel", "id": 99, "messages": []}`,
			mynah.Chat{ID: -1000000000099, Type: mynah.ChatChannel, Title: "Press"}},
		{"no id", `{"name": "Alice", "type": "personal_chat", "messages": []}`,
			mynah.Chat{Type: mynah.ChatPrivate}},
		// The head is read up to "messages"; what follows is not looked at, however bad.
		{"fields after messages", `{"messages": [], "name": "Late", "type": "private_group", "id": 5} trailing garbage`,
			mynah.Chat{Type: mynah.ChatPrivate}},
		{"messages not read", `{"type": "private_group", "id": 5, "messages": "not an array"}`,
			mynah.Chat{ID: -5, Type: mynah.ChatGroup}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tgexport.ReadChat(strings.NewReader(tc.export))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("ReadChat (-got +want):\n%s", diff)
			}
		})
	}
}

// TestFormatError: input that is not a single chat's export fails as a *FormatError
// saying why, from both ReadChat and Decode.
func TestFormatError(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		want        string // the reason
		decodeOnly  bool   // ReadChat stops before the problem
	}{
		{"empty", ``, "it does not hold a JSON object", false},
		{"array", `[{"id": 1}]`, "it does not hold a JSON object", false},
		{"JSON lines", `{"id": 1, "time": "2024-05-01T18:30:00Z"}` + "\n" + `{"id": 2}`, `it has no "messages"`, false},
		{"no messages", `{"name": "x", "type": "personal_chat", "id": 1}`, `it has no "messages"`, false},
		{"whole account", `{"about": "…", "chats": {"list": []}}`, "this is a whole-account export; export a single chat instead", false},
		{"truncated head", `{"name": "x", "type": `, "EOF", false},
		{"messages not an array", `{"messages": {"id": 1}}`, `"messages" is not an array`, true},
		{"truncated messages", `{"messages": [{"id": 1, "type": "message"}, {"id": 2, `, "messages[1]: unexpected EOF", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := "not a Telegram Desktop chat export (JSON): " + tc.want
			check := func(fn string, err error) {
				t.Helper()
				var fe *tgexport.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("%s: error %v, want a *FormatError", fn, err)
				}
				if fe.Reason != tc.want || err.Error() != want {
					t.Errorf("%s: error %q (reason %q), want %q", fn, err, fe.Reason, want)
				}
			}
			if !tc.decodeOnly {
				_, err := tgexport.ReadChat(strings.NewReader(tc.input))
				check("ReadChat", err)
			}
			_, err := decodeAll(t, tc.input)
			check("Decode", err)
		})
	}
}

// TestDecodeReportsEveryBadMessage: a bad message does not stop Decode; each is yielded
// with where it is and what is wrong, the good ones around it as usual.
func TestDecodeReportsEveryBadMessage(t *testing.T) {
	got, err := decodeAll(t, `{"messages": [
		{"id": 1, "type": "message", "date_unixtime": "1714557600", "from": "Alice", "from_id": "user1", "text": "one"},
		"just a string",
		{"id": 2, "type": "message", "date_unixtime": "1714557660", "from": "Alice", "from_id": "user1", "text": 42},
		{"id": 3, "type": "service", "date_unixtime": "1714557700", "actor": "Alice", "actor_id": "user1", "action": "pin_message", "text": ""},
		{"id": 4, "type": "message", "date_unixtime": "1714557720", "from": "Bob", "from_id": "chat7", "text": "four"},
		{"id": 5, "type": "message", "date_unixtime": "1714557780", "from": "Alice", "from_id": "user1", "text": "five"}
	]}`)
	if err != nil {
		t.Fatal(err)
	}
	alice := mynah.User{ID: 1, FirstName: "Alice"}
	want := []decoded{
		{Pos: "messages[0] (id 1)", Msg: mynah.Message{ID: 1, Time: time.Unix(1714557600, 0).UTC(), Sender: alice, Text: "one"}},
		{Pos: "messages[1]", Err: "not a message object: json: cannot unmarshal string into Go value of type tgexport.message"},
		{Pos: "messages[2] (id 2)", Err: `"text" is neither a string nor an array`},
		{Pos: "messages[4] (id 4)", Err: `"from_id" "chat7" is not like user123 or channel123`},
		{Pos: "messages[5] (id 5)", Msg: mynah.Message{ID: 5, Time: time.Unix(1714557780, 0).UTC(), Sender: alice, Text: "five"}},
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Decode (-got +want):\n%s", diff)
	}
}

// TestDecodeStops: Decode returns nil as soon as yield says stop, without reading on
// (the rest of the input here is not even JSON).
func TestDecodeStops(t *testing.T) {
	input := `{"messages": [
		{"id": 1, "type": "message", "date_unixtime": "1714557600", "from": "Alice", "from_id": "user1", "text": "one"},
		{"id": 2, "type": "message", "date_unixtime": "1714557660", "from": "Alice", "from_id": "user1", "text": "two"},
		not json at all`
	var ids []mynah.MessageID
	err := tgexport.Decode(strings.NewReader(input), func(_ string, m mynah.Message, err error) bool {
		if err != nil {
			t.Errorf("message %d: %v", m.ID, err)
		}
		ids = append(ids, m.ID)
		return len(ids) < 2
	})
	if err != nil {
		t.Fatalf("Decode: %v, want nil once yield stops", err)
	}
	if diff := cmp.Diff(ids, []mynah.MessageID{1, 2}); diff != "" {
		t.Errorf("yielded ids (-got +want):\n%s", diff)
	}
}

// TestDecodeForum: a supergroup whose export creates a topic is a forum; a message
// replying to the topic's creation, or to a message in the topic, is in the topic, and
// the first is no reply; messages of the General topic have ThreadID 0.
func TestDecodeForum(t *testing.T) {
	b, err := os.ReadFile("testdata/forum.json")
	if err != nil {
		t.Fatal(err)
	}
	chat, err := tgexport.ReadChat(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(chat, mynah.Chat{ID: -1000000000555, Type: mynah.ChatSupergroup, Title: "Birders Forum", IsForum: true}); diff != "" {
		t.Errorf("ReadChat (-got +want):\n%s", diff)
	}
	got, err := decodeAll(t, string(b))
	if err != nil {
		t.Fatal(err)
	}
	carol := mynah.User{ID: 2001, FirstName: "Carol", LastName: "Reed"}
	dan := mynah.User{ID: 2002, FirstName: "Dan"}
	at := func(min int64) time.Time { return time.Unix(1714557600+60*min, 0).UTC() }
	want := []decoded{
		{Pos: "messages[0] (id 1)", Msg: mynah.Message{ID: 1, Time: at(0), Sender: carol, Text: "welcome (General)"}},
		{Pos: "messages[2] (id 3)", Msg: mynah.Message{ID: 3, ThreadID: 2, Time: at(2), Sender: dan, Text: "a heron"}},
		{Pos: "messages[3] (id 4)", Msg: mynah.Message{ID: 4, ThreadID: 2, Time: at(3), Sender: carol, Text: "where?", ReplyTo: &mynah.ReplyRef{ID: 3}}},
		{Pos: "messages[4] (id 5)", Msg: mynah.Message{ID: 5, Time: at(4), Sender: dan, Text: "thanks", ReplyTo: &mynah.ReplyRef{ID: 1}}},
		{Pos: "messages[5] (id 6)", Msg: mynah.Message{ID: 6, Time: at(5), Sender: dan, Text: "to a deleted message", ReplyTo: &mynah.ReplyRef{ID: 99}}},
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Decode (-got +want):\n%s", diff)
	}
}

// TestReadChatForum: only a supergroup's messages are read for a topic's creation, and
// a supergroup without one is no forum.
func TestReadChatForum(t *testing.T) {
	topic := `{"id": 2, "type": "service", "date_unixtime": "1714557660", "actor_id": "user1", "action": "topic_created", "title": "T", "text": ""}`
	for _, tc := range []struct {
		name, export string
		want         bool
	}{
		{"supergroup with a topic", `{"type": "private_supergroup", "id": 1, "messages": [{"id": 1, "type": "message"}, ` + topic + `, not json]}`, true},
		{"supergroup without topics", `{"type": "private_supergroup", "id": 1, "messages": [{"id": 1, "type": "service", "action": "pin_message"}]}`, false},
		{"basic group not read", `{"type": "private_group", "id": 1, "messages": [` + topic + `]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chat, err := tgexport.ReadChat(strings.NewReader(tc.export))
			if err != nil {
				t.Fatal(err)
			}
			if chat.IsForum != tc.want {
				t.Errorf("IsForum = %v, want %v", chat.IsForum, tc.want)
			}
		})
	}
}
