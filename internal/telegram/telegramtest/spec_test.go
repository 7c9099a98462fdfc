package telegramtest

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSpecParses(t *testing.T) {
	s := New(Options{}).apiSpec()
	if s.Version != "Bot API 10.1" || len(s.methods) != 180 || len(s.types) != 359 {
		t.Errorf("spec %s with %d methods, %d types; want Bot API 10.1, 180, 359", s.Version, len(s.methods), len(s.types))
	}
	if got := s.types["ReactionTypeEmoji"]; got.discField != "type" || got.discValue != "emoji" {
		t.Errorf("ReactionTypeEmoji discriminator = %s=%s", got.discField, got.discValue)
	}
	if got := s.types["BotCommandScopeChat"]; got.discValue != "chat" {
		t.Errorf("BotCommandScopeChat discriminator = %q", got.discValue)
	}
}

func TestCheckJSON(t *testing.T) {
	s := New(Options{}).apiSpec()
	tests := []struct {
		name  string
		doc   string
		types []string
		errs  []string
		warns []string
	}{
		{
			name: "getMe result without is_bot", doc: `{"id":1,"first_name":"x"}`, types: []string{"User"},
			errs: []string{"result.is_bot: required field missing (User)"},
		},
		{
			name: "wrong scalar type", doc: `{"id":"1","is_bot":true,"first_name":"x"}`, types: []string{"User"},
			errs: []string{"result.id: expected Integer, got string"},
		},
		{
			name: "unknown field is a warning", doc: `{"id":1,"is_bot":false,"first_name":"x","thumb":1}`, types: []string{"User"},
			warns: []string{"result.thumb: unknown field (User)"},
		},
		{
			name: "abstract type dispatch", doc: `[{"type":"custom_emoji"}]`, types: []string{"Array of ReactionType"},
			errs: []string{"result[0].custom_emoji_id: required field missing (ReactionTypeCustomEmoji)"},
		},
		{
			name: "unknown discriminator", doc: `{"type":"stars"}`, types: []string{"ReactionType"},
			errs: []string{"result.type: unknown type stars (ReactionType)"},
		},
		{
			name: "union result", doc: `true`, types: []string{"Message", "Boolean"},
		},
		{
			name: "inaccessible message", doc: `{"chat":{"id":1,"type":"private"},"message_id":3,"date":0}`, types: []string{"MaybeInaccessibleMessage"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.checkJSON("result", json.RawMessage(tt.doc), tt.types...)
			if diff := cmp.Diff(tt.errs, got.errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warns, got.warns); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEmulatorOutputConforms drives every emulated method, with SelfCheck
// on, and also checks the updates it produces: any spec error fails the
// test through t.Errorf, and unknown fields show up as warnings.
func TestEmulatorOutputConforms(t *testing.T) {
	srv := Start(t, Options{})
	tok := srv.Token()
	forum := Forum(-100300, "Forum")
	photo, _ := srv.AddFile([]byte("jpeg"), KindPhoto)
	in := srv.SendPrivate(alice, "hi @mynah_bot /start https://example.com #tag")
	srv.SendGroup(forum, alice, "caption", InTopic(5), WithPhoto(photo), TextMention(bob, "cap"))
	srv.SendGroup(forum, bob, "", WithSticker("", "😀", "set"))
	srv.SendGroup(forum, bob, "doc", WithDocument("", "a.pdf"), ReplyTo(1))
	srv.SendGroup(forum, bob, "", WithVoice("", 3), Forwarded(MessageOrigin{Type: "hidden_user", Date: 1, SenderUserName: "Ghost"}))
	srv.EditMessage(alice.ID, in.MessageID, "edited")

	calls := []struct {
		method string
		params map[string]any
	}{
		{"getMe", nil},
		{"getUpdates", nil},
		{"getWebhookInfo", nil},
		{"sendMessage", map[string]any{"chat_id": alice.ID, "text": "<a href=\"https://x.y\">x</a> <pre><code class=\"language-go\">x</code></pre>", "parse_mode": "HTML",
			"reply_parameters": map[string]any{"message_id": in.MessageID},
			"reply_markup":     map[string]any{"inline_keyboard": [][]map[string]any{{{"text": "ok", "callback_data": "ok"}}}}}},
		{"editMessageText", map[string]any{"chat_id": alice.ID, "message_id": in.MessageID + 1, "text": "changed",
			"reply_markup": map[string]any{"inline_keyboard": [][]map[string]any{{{"text": "ok", "callback_data": "ok"}}}}}},
		{"sendChatAction", map[string]any{"chat_id": alice.ID, "action": "typing"}},
		{"sendMessageDraft", map[string]any{"chat_id": alice.ID, "draft_id": 1, "text": "..."}},
		{"setMessageReaction", map[string]any{"chat_id": alice.ID, "message_id": in.MessageID, "reaction": []map[string]any{{"type": "emoji", "emoji": "🔥"}}}},
		{"setMyCommands", map[string]any{"commands": []map[string]any{{"command": "start", "description": "Start"}}, "scope": map[string]any{"type": "all_private_chats"}}},
		{"getMyCommands", map[string]any{"scope": map[string]any{"type": "all_private_chats"}}},
		{"deleteMyCommands", nil},
		{"sendPhoto", map[string]any{"chat_id": forum.ID, "photo": photo, "caption": "<b>c</b>", "parse_mode": "HTML", "message_thread_id": 5}},
		{"sendSticker", map[string]any{"chat_id": forum.ID, "sticker": "https://example.com/s.webp", "emoji": "😀"}},
		{"sendDocument", map[string]any{"chat_id": forum.ID, "document": photo}},
		{"getFile", map[string]any{"file_id": photo}},
		{"deleteMessage", map[string]any{"chat_id": alice.ID, "message_id": in.MessageID}},
		{"setMyDescription", map[string]any{"description": "generic Boolean method"}},
		{"deleteWebhook", nil},
	}
	for _, c := range calls {
		if r := call(t, srv, tok, c.method, c.params); !r.OK {
			t.Errorf("%s: %s", c.method, r.Description)
		}
	}
	var us []Update
	call(t, srv, tok, "getUpdates", nil).decode(t, &us)
	if len(us) != 6 {
		t.Errorf("got %d updates, want 6", len(us))
	}
	if _, err := srv.PressButton(alice, alice.ID, in.MessageID+1, "ok"); err != nil {
		t.Fatal(err)
	}
	if got := srv.Pending(tok); len(got) != 7 || got[6].CallbackQuery == nil {
		t.Errorf("pending after PressButton = %d", len(got))
	}
	call(t, srv, tok, "getUpdates", nil)
	if diff := cmp.Diff([]string(nil), srv.Warnings()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
