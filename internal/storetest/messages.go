package storetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

// testMessageRoundTrip: every field of a message reads back as stored.
func testMessageRoundTrip(t *testing.T, b Backend) {
	s := b.Open(t)
	carolRef := carol
	msg := &mynah.Message{
		Chat:     group,
		ID:       31,
		ThreadID: 7,
		Sender:   alice,
		Time:     at(31),
		Text:     "@carol look https://example.org",
		Entities: []mynah.Entity{
			{Type: "text_mention", Offset: 0, Length: 6, User: &carolRef},
			{Type: "url", Offset: 12, Length: 19, URL: "https://example.org"},
		},
		ReplyTo: &mynah.ReplyRef{ID: 30, Sender: carol, Text: "what is it?"},
		Forward: &mynah.Forward{Kind: "channel", Name: "Bird news", ChatID: -100777, MessageID: 12, Date: at(-3600)},
		Media: []mynah.Media{
			{Kind: mynah.MediaPhoto, FileID: "f1", FileUniqueID: "u1", Width: 1280, Height: 720},
			{Kind: mynah.MediaSticker, FileID: "f2", Emoji: "🐦", SetName: "birds", Description: "a bird waving"},
			{Kind: mynah.MediaVoice, FileID: "f3", MimeType: "audio/ogg", Duration: 4},
			{Kind: "dice", FileName: "kept by its Telegram name"},
		},
	}
	accept(t, s, agentA, 1, mynah.Intake{Chat: group, Users: []mynah.User{alice, carol}, Message: msg})
	if diff := cmp.Diff(getMessage(t, s, agentA, group.ID, 31), stored(agentA, msg), cmpOpts); diff != "" {
		t.Errorf("Message (-got +want):\n%s", diff)
	}
	h := history(t, s, agentA, group.ID, 0, 0, 1)
	if diff := cmp.Diff(h, []mynah.Message{stored(agentA, msg)}, cmpOpts); diff != "" {
		t.Errorf("History (-got +want):\n%s", diff)
	}

	// A forward from a user, with a hidden sender's name, and an empty reply text.
	msg2 := message(dm, 2, "")
	msg2.Forward = &mynah.Forward{Kind: "user", From: carol, Date: at(-10)}
	msg2.ReplyTo = &mynah.ReplyRef{ID: 1}
	msg2.Edited = at(90)
	post(t, s, agentA, msg2)
	if diff := cmp.Diff(getMessage(t, s, agentA, dm.ID, 2), stored(agentA, msg2), cmpOpts); diff != "" {
		t.Errorf("second Message (-got +want):\n%s", diff)
	}
}

// testHistory: the window the prompt reads: the newest messages selected, returned oldest
// first, bounded by limit, after and thread.
func testHistory(t *testing.T, b Backend) {
	s := b.Open(t)
	// Ids with gaps, stored newest first; forum topics 7 and 9 and the general topic 0.
	thread := map[int]int64{2: 7, 4: 0, 6: 9, 8: 0, 10: 7, 12: 0, 14: 9, 16: 0, 18: 7, 20: 0}
	for id := 20; id >= 2; id -= 2 {
		m := message(group, id, "m")
		m.ThreadID = thread[id]
		post(t, s, agentA, m)
	}
	post(t, s, agentA, message(dm, 3, "another chat"))
	post(t, s, agentA, message(mynah.Chat{ID: -100124, Type: mynah.ChatGroup}, 5, "a third chat"))

	tests := []struct {
		name   string
		thread int64
		after  mynah.MessageID
		limit  int
		want   []mynah.MessageID
	}{
		{"all", 0, 0, 100, []mynah.MessageID{2, 4, 6, 8, 10, 12, 14, 16, 18, 20}},
		{"newest three", 0, 0, 3, []mynah.MessageID{16, 18, 20}},
		{"limit equals count", 0, 0, 10, []mynah.MessageID{2, 4, 6, 8, 10, 12, 14, 16, 18, 20}},
		{"after an id", 0, 14, 100, []mynah.MessageID{16, 18, 20}},
		{"after a gap", 0, 13, 100, []mynah.MessageID{14, 16, 18, 20}},
		{"after and limit", 0, 4, 2, []mynah.MessageID{18, 20}},
		{"after the newest", 0, 20, 100, nil},
		{"zero limit", 0, 0, 0, nil},
		{"topic 7", 7, 0, 100, []mynah.MessageID{2, 10, 18}},
		{"topic 7 newest two", 7, 0, 2, []mynah.MessageID{10, 18}},
		{"topic 9 after", 9, 6, 100, []mynah.MessageID{14}},
		{"unknown topic", 11, 0, 100, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(history(t, s, agentA, group.ID, tt.thread, tt.after, tt.limit))
			if diff := cmp.Diff(got, tt.want, cmpOpts); diff != "" {
				t.Errorf("History(thread %d, after %d, limit %d) ids (-got +want):\n%s", tt.thread, tt.after, tt.limit, diff)
			}
		})
	}
	if got := ids(history(t, s, agentA, 123456, 0, 0, 10)); len(got) != 0 {
		t.Errorf("History of an unknown chat = %v, want none", got)
	}
}

// testHistoryLargeChat: a chat longer than the window still yields the newest messages,
// in order, and every message stays reachable.
func testHistoryLargeChat(t *testing.T, b Backend) {
	s := b.Open(t)
	const n = 300
	for id := 1; id <= n; id++ {
		post(t, s, agentA, message(dm, id, "m"))
	}
	span := func(from, to int) []mynah.MessageID {
		var out []mynah.MessageID
		for id := from; id <= to; id++ {
			out = append(out, mynah.MessageID(id))
		}
		return out
	}
	if diff := cmp.Diff(ids(history(t, s, agentA, dm.ID, 0, 0, 50)), span(n-49, n)); diff != "" {
		t.Errorf("newest 50 (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(ids(history(t, s, agentA, dm.ID, 0, n-10, 50)), span(n-9, n)); diff != "" {
		t.Errorf("after %d (-got +want):\n%s", n-10, diff)
	}
	if diff := cmp.Diff(ids(history(t, s, agentA, dm.ID, 0, 0, n+1)), span(1, n)); diff != "" {
		t.Errorf("whole chat (-got +want):\n%s", diff)
	}
}

// testUnicode: text reads back byte for byte: no normalization, no re-encoding.
func testUnicode(t *testing.T, b Backend) {
	s := b.Open(t)
	texts := []string{
		"плохо ли? 很好 こんにちは مرحبا שלום",
		"👨‍👩‍👧‍👦 family, 🏳️‍🌈 flag, 👍🏽 skin tone, 🇺🇦 regional",
		"NFD e\u0301 and NFC \u00e9 stay distinct",
		"zero\u200bwidth space, BOM \ufeff, RTL mark \u200f, replacement \ufffd, NBSP\u00a0",
		"𝔘𝔫𝔦𝔠𝔬𝔡𝔢 outside the BMP: 𝕏 𐍈 🜲",
		"quotes ' \" ` and SQL '); DROP TABLE messages;-- \\ %_ $1 ?",
		"line\nbreaks\r\nand\ttabs\n\n  trailing spaces  ",
		"<b>html</b> &amp; *markdown* _kept_ as typed",
	}
	for i, text := range texts {
		post(t, s, agentA, message(dm, i+1, text))
	}
	h := history(t, s, agentA, dm.ID, 0, 0, len(texts))
	if len(h) != len(texts) {
		t.Fatalf("history holds %d messages, want %d", len(h), len(texts))
	}
	for i, text := range texts {
		if got := getMessage(t, s, agentA, dm.ID, mynah.MessageID(i+1)).Text; got != text {
			t.Errorf("Message %d text = %q, want %q", i+1, got, text)
		}
		if got := h[i].Text; got != text {
			t.Errorf("History[%d] text = %q, want %q", i, got, text)
		}
	}
}

// testLargeMessage: long texts are stored whole; the prompt decides what to include.
func testLargeMessage(t *testing.T, b Backend) {
	s := b.Open(t)
	big := strings.Repeat("Long message — длинное сообщение 🐦. ", 2800) // over 100 KB
	if len(big) < 100_000 {
		t.Fatalf("fixture is %d bytes, want over 100 KB", len(big))
	}
	msg := message(group, 1, big)
	msg.Entities = []mynah.Entity{{Type: "bold", Offset: 0, Length: 40000}}
	post(t, s, agentA, msg)
	if got := getMessage(t, s, agentA, group.ID, 1).Text; got != big {
		t.Errorf("Message text is %d bytes, want %d, identical", len(got), len(big))
	}
	if h := history(t, s, agentA, group.ID, 0, 0, 1); len(h) != 1 || h[0].Text != big {
		t.Errorf("History did not return the whole text")
	}
}

// testNotFound: lookups of unknown records report mynah.ErrNotFound through errors.Is.
func testNotFound(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	post(t, s, agentA, message(dm, 1, "known"))
	if _, err := s.Message(ctx, agentA, dm.ID, 2); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("Message of an unknown id: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Message(ctx, agentB, dm.ID, 1); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("Message of another agent: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Chat(ctx, agentA, group.ID); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("Chat of an unknown chat: err = %v, want ErrNotFound", err)
	}
	if _, err := s.FinishTurn(ctx, 123456, nil); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("FinishTurn of an unknown turn: err = %v, want ErrNotFound", err)
	}
	if err := s.MarkSent(ctx, 123456, mynah.Message{ID: 1}); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("MarkSent of an unknown part: err = %v, want ErrNotFound", err)
	}
	if err := s.MarkFailed(ctx, 123456, "gone"); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("MarkFailed of an unknown part: err = %v, want ErrNotFound", err)
	}
}

// testChatLatestWins: a renamed group reads back with its new title.
func testChatLatestWins(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(group, 1, "hi"))
	renamed := group
	renamed.Title, renamed.Username = "Birds & Bees", "birdsbees"
	post(t, s, agentA, message(renamed, 2, "hi again"))
	got, err := s.Chat(t.Context(), agentA, group.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, renamed); diff != "" {
		t.Errorf("Chat (-got +want):\n%s", diff)
	}
	if got := getMessage(t, s, agentA, group.ID, 1).Chat; got != renamed {
		t.Errorf("an older message's Chat = %+v, want the chat as last seen %+v", got, renamed)
	}
}
