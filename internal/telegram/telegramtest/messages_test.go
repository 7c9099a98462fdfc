package telegramtest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSendMessageHTMLErrors(t *testing.T) {
	tests := []struct {
		text, detail string
	}{
		{"<foo>x</foo>", `Unsupported start tag "foo" at byte offset 0`},
		{"<b>bold", `Can't find end tag corresponding to start tag "b"`},
		{"x <b", `Unclosed start tag at byte offset 2`},
		{"<b>x</i>", `Unmatched end tag at byte offset 4, expected "</b>", found "</i>"`},
		{"<i>a</b></i>", `Unmatched end tag at byte offset 4, expected "</i>", found "</b>"`},
		{"привет <br>", `Unsupported start tag "br" at byte offset 13`},
		{"a < b", `Unsupported start tag "" at byte offset 2`},
		{"x</b>", `Unexpected end tag at byte offset 1`},
		{"<b>x</b", `Unclosed end tag at byte offset 4`},
		{`<span class="x">y</span>`, `Tag "span" must have class "tg-spoiler" at byte offset 0`},
		{`<a href=x/>y</a>`, `Unexpected end of name token at byte offset 8`},
		{`<tg-emoji emoji-id="x">y</tg-emoji>`, `Invalid custom emoji identifier specified`},
	}
	srv := Start(t, Options{})
	srv.AddChat(PrivateChat(alice))
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			r := call(t, srv, srv.Token(), "sendMessage", map[string]any{"chat_id": alice.ID, "text": tt.text, "parse_mode": "HTML"})
			wantError(t, r, 400, "Bad Request: can't parse entities: "+tt.detail)
		})
	}
	if got := srv.Sent(alice.ID); len(got) != 0 {
		t.Errorf("sent %d messages despite errors", len(got))
	}
}

func TestSendMessageLimits(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]any
		desc   string // "" means success
	}{
		{"empty", map[string]any{"text": ""}, "Bad Request: message text is empty"},
		{"whitespace only", map[string]any{"text": " \n\t "}, "Bad Request: text must be non-empty"},
		{"empty after HTML", map[string]any{"text": "<b> </b>", "parse_mode": "HTML"}, "Bad Request: text must be non-empty"},
		{"4096 Cyrillic letters", map[string]any{"text": strings.Repeat("ж", 4096)}, ""},
		{"4096 emoji (8192 UTF-16 units)", map[string]any{"text": strings.Repeat("😀", 4096)}, ""},
		{"4097 letters", map[string]any{"text": strings.Repeat("ж", 4097)}, "Bad Request: message is too long"},
		{"tags do not count", map[string]any{"text": "<b>" + strings.Repeat("ж", 4096) + "</b>", "parse_mode": "html"}, ""},
		{"entities count as one", map[string]any{"text": strings.Repeat("&lt;", 4096), "parse_mode": "HTML"}, ""},
		{"surrounding spaces are trimmed", map[string]any{"text": "  " + strings.Repeat("a", 4096) + "\n"}, ""},
		{"raw text over 32768 bytes", map[string]any{"text": strings.Repeat("<b></b>", 5000), "parse_mode": "HTML"}, "Bad Request: text is too long"},
		{"unknown parse mode", map[string]any{"text": "x", "parse_mode": "BBCode"}, "Bad Request: unsupported parse_mode"},
	}
	srv := Start(t, Options{})
	srv.AddChat(PrivateChat(alice))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.params["chat_id"] = alice.ID
			r := call(t, srv, srv.Token(), "sendMessage", tt.params)
			if tt.desc == "" {
				if !r.OK {
					t.Errorf("failed: %s", r.Description)
				}
				return
			}
			wantError(t, r, 400, tt.desc)
		})
	}
}

func TestSendMessageResult(t *testing.T) {
	srv := Start(t, Options{})
	in := srv.SendPrivate(alice, "question")
	var got Message
	call(t, srv, srv.Token(), "sendMessage", map[string]any{
		"chat_id": alice.ID, "text": "<b>Hi</b> 😀 <i>@alice</i> /start", "parse_mode": "HTML",
		"reply_parameters": map[string]any{"message_id": in.MessageID},
	}).decode(t, &got)
	if got.MessageID != in.MessageID+1 || got.From == nil || !got.From.IsBot || got.Chat.ID != alice.ID {
		t.Errorf("header fields wrong: %+v", got)
	}
	if got.ReplyToMessage == nil || got.ReplyToMessage.Text != "question" {
		t.Errorf("reply_to_message = %+v", got.ReplyToMessage)
	}
	wantEntities := []MessageEntity{
		{Type: "bold", Offset: 0, Length: 2},
		{Type: "italic", Offset: 6, Length: 6},
		{Type: "mention", Offset: 6, Length: 6},
		{Type: "bot_command", Offset: 13, Length: 6},
	}
	if got.Text != "Hi 😀 @alice /start" {
		t.Errorf("text = %q", got.Text)
	}
	if diff := cmp.Diff(wantEntities, got.Entities); diff != "" {
		t.Errorf("entities (-want +got):\n%s", diff)
	}
	sent, err := srv.WaitSent(t.Context(), alice.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if s := sent[0]; s.Raw != "<b>Hi</b> 😀 <i>@alice</i> /start" || s.ParseMode != "HTML" || s.ReplyTo != in.MessageID {
		t.Errorf("sent record = %+v", s)
	}
}

func TestReplyTarget(t *testing.T) {
	srv := Start(t, Options{})
	srv.SendPrivate(alice, "hi")
	tests := []struct {
		name   string
		params map[string]any
		desc   string
	}{
		{"missing target", map[string]any{"reply_parameters": map[string]any{"message_id": 99}}, "Bad Request: message to be replied not found"},
		{"missing target allowed", map[string]any{"reply_parameters": map[string]any{"message_id": 99, "allow_sending_without_reply": true}}, ""},
		{"existing target", map[string]any{"reply_parameters": map[string]any{"message_id": 1}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.params["chat_id"], tt.params["text"] = alice.ID, "x"
			r := call(t, srv, srv.Token(), "sendMessage", tt.params)
			if r.Description != tt.desc {
				t.Errorf("description %q, want %q", r.Description, tt.desc)
			}
		})
	}
}

func TestEditMessageText(t *testing.T) {
	srv := Start(t, Options{})
	user := srv.SendPrivate(alice, "hi")
	var m Message
	call(t, srv, srv.Token(), "sendMessage", map[string]any{"chat_id": alice.ID, "text": "draft"}).decode(t, &m)
	edit := func(id int, text string) apiResponse {
		return call(t, srv, srv.Token(), "editMessageText", map[string]any{"chat_id": alice.ID, "message_id": id, "text": text})
	}
	var edited Message
	edit(m.MessageID, "final").decode(t, &edited)
	if edited.Text != "final" || edited.EditDate == 0 {
		t.Errorf("edited = %+v", edited)
	}
	wantError(t, edit(m.MessageID, "final"), 400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
	wantError(t, edit(999, "x"), 400, "Bad Request: message to edit not found")
	wantError(t, edit(user.MessageID, "x"), 400, "Bad Request: message can't be edited")
	wantError(t, edit(0, "x"), 400, "Bad Request: message identifier is not specified")

	if r := call(t, srv, srv.Token(), "deleteMessage", map[string]any{"chat_id": alice.ID, "message_id": m.MessageID}); !r.OK {
		t.Fatal(r.Description)
	}
	wantError(t, edit(m.MessageID, "again"), 400, "Bad Request: message to edit not found")
	wantError(t, call(t, srv, srv.Token(), "deleteMessage", map[string]any{"chat_id": alice.ID, "message_id": m.MessageID}),
		400, "Bad Request: message to delete not found")

	sent := srv.Sent(alice.ID)
	if len(sent) != 1 || !sent[0].Deleted || sent[0].Text != "final" || len(sent[0].Edits) != 1 || sent[0].Edits[0].Text != "final" {
		t.Errorf("sent = %+v", sent)
	}
}

func TestChatActionsDraftsReactionsCommands(t *testing.T) {
	srv := Start(t, Options{})
	in := srv.SendPrivate(alice, "hi")
	tok := srv.Token()
	wantError(t, call(t, srv, tok, "sendChatAction", map[string]any{"chat_id": alice.ID, "action": "dancing"}), 400, "Bad Request: wrong parameter action in request")
	for _, a := range []string{"typing", "record_audio"} {
		if r := call(t, srv, tok, "sendChatAction", map[string]any{"chat_id": alice.ID, "action": a}); !r.OK {
			t.Errorf("action %s: %s", a, r.Description)
		}
	}
	if got := srv.Actions(alice.ID); len(got) != 2 || got[1].Action != "record_audio" {
		t.Errorf("actions = %+v", got)
	}

	for _, text := range []string{"", "Thinking", "Thinking <b>hard</b>"} {
		if r := call(t, srv, tok, "sendMessageDraft", map[string]any{"chat_id": alice.ID, "draft_id": 7, "text": text, "parse_mode": "HTML"}); !r.OK {
			t.Fatalf("draft %q: %s", text, r.Description)
		}
	}
	wantError(t, call(t, srv, tok, "sendMessageDraft", map[string]any{"chat_id": alice.ID, "draft_id": 0, "text": "x"}), 400, "Bad Request: draft_id must be non-zero")
	drafts := srv.Drafts(alice.ID)
	if len(drafts) != 1 || drafts[0].Text != "Thinking hard" || drafts[0].Updates != 3 {
		t.Errorf("drafts = %+v", drafts)
	}
	call(t, srv, tok, "sendMessage", map[string]any{"chat_id": alice.ID, "text": "Done"})
	if got := srv.Drafts(alice.ID); len(got) != 0 {
		t.Errorf("drafts after sendMessage = %+v", got)
	}
	group := Group(-77, "G")
	srv.SendGroup(group, alice, "hi")
	wantError(t, call(t, srv, tok, "sendMessageDraft", map[string]any{"chat_id": group.ID, "draft_id": 1, "text": "x"}), 400, "Bad Request: TEXTDRAFT_PEER_INVALID")

	react := func(id int, reaction any) apiResponse {
		return call(t, srv, tok, "setMessageReaction", map[string]any{"chat_id": alice.ID, "message_id": id, "reaction": reaction})
	}
	if r := react(in.MessageID, []ReactionType{{Type: "emoji", Emoji: "👍"}}); !r.OK {
		t.Errorf("reaction: %s", r.Description)
	}
	wantError(t, react(99, []ReactionType{{Type: "emoji", Emoji: "👍"}}), 400, "Bad Request: message to react not found")
	wantError(t, react(in.MessageID, []ReactionType{{Type: "emoji", Emoji: "🦆"}}), 400, "Bad Request: REACTION_INVALID")
	if got := srv.Reactions(alice.ID); len(got) != 1 || got[0].Reaction[0].Emoji != "👍" {
		t.Errorf("reactions = %+v", got)
	}

	cmds := []BotCommand{{Command: "start", Description: "Start"}, {Command: "help", Description: "Help"}}
	if r := call(t, srv, tok, "setMyCommands", map[string]any{"commands": cmds}); !r.OK {
		t.Fatal(r.Description)
	}
	var got []BotCommand
	call(t, srv, tok, "getMyCommands", nil).decode(t, &got)
	if diff := cmp.Diff(cmds, got); diff != "" {
		t.Errorf("getMyCommands (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(cmds, srv.Commands(tok)); diff != "" {
		t.Errorf("Commands (-want +got):\n%s", diff)
	}
	many := make([]BotCommand, 101)
	for i := range many {
		many[i] = BotCommand{Command: "c", Description: "d"}
	}
	wantError(t, call(t, srv, tok, "setMyCommands", map[string]any{"commands": many}), 400, "Bad Request: BOT_COMMANDS_TOO_MUCH")
}

func TestInjectedMessages(t *testing.T) {
	srv := Start(t, Options{})
	forum := Forum(-100200, "Forum")
	first := srv.SendGroup(forum, alice, "topic start", InTopic(42))
	photoID, _ := srv.AddFile([]byte("jpeg"), KindPhoto)
	reply := srv.SendGroup(forum, bob, "👋🏽 @mynah_bot look, Alice", ReplyTo(first.MessageID), WithPhoto(photoID), TextMention(alice, "Alice"))
	if reply.MessageID != first.MessageID+1 || reply.MessageThreadID != 42 || !reply.IsTopicMessage {
		t.Errorf("reply header = %+v", reply)
	}
	if reply.ReplyToMessage == nil || reply.ReplyToMessage.Text != "topic start" {
		t.Errorf("reply_to_message = %+v", reply.ReplyToMessage)
	}
	if reply.Text != "" || reply.Caption == "" || len(reply.Photo) == 0 || reply.Photo[0].FileID != photoID {
		t.Errorf("photo message = %+v", reply)
	}
	wantEntities := []MessageEntity{
		{Type: "mention", Offset: 5, Length: 10},
		{Type: "text_mention", Offset: 22, Length: 5, User: &alice},
	}
	if diff := cmp.Diff(wantEntities, reply.CaptionEntities); diff != "" {
		t.Errorf("caption entities, UTF-16 offsets (-want +got):\n%s", diff)
	}
	sticker := srv.SendPrivate(alice, "", WithSticker("", "😀", "animals"))
	if sticker.Sticker == nil || sticker.Sticker.SetName != "animals" || sticker.Sticker.Emoji != "😀" {
		t.Errorf("sticker = %+v", sticker.Sticker)
	}
	fwd := srv.SendPrivate(alice, "look", Forwarded(MessageOrigin{Type: "user", Date: 1, SenderUser: &bob}))
	var us []Update
	call(t, srv, srv.Token(), "getUpdates", nil).decode(t, &us)
	if len(us) != 4 || us[3].Message.ForwardOrigin == nil || us[3].Message.MessageID != fwd.MessageID {
		t.Errorf("updates = %+v", us)
	}
}
