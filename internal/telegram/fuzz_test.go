package telegram

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mymmrac/telego"

	"github.com/mynah-ai/mynah"
)

// hostileUpdates are malformed and hostile updates for the fuzz corpora, beside the
// fixtures in testdata/updates.
func hostileUpdates() []string {
	deep := func(n int, key string) string {
		return strings.Repeat(`{"message_id":1,"date":1,"chat":{"id":1,"type":"private"},"`+key+`":`, n) +
			`{"message_id":1,"date":1,"chat":{"id":1,"type":"private"},"text":"x"}` + strings.Repeat("}", n)
	}
	return []string{
		``, `null`, `[]`, `{}`, `"update"`, `{"update_id":1}`, `{"update_id":-5,"message":{}}`,
		`{"update_id":"7","message":{"message_id":1,"date":1,"chat":{"id":1,"type":"private"},"text":"hi"}}`,
		`{"update_id":1e400}`, `{"update_id":9223372036854775808}`, `{"update_id":1,"update_id":2}`,
		`{"update_id":1,"message":null}`, `{"update_id":1,"message":[]}`, `{"update_id":1,"message":"text"}`,
		// A message without a chat, or in chat 0; without a sender.
		`{"update_id":2,"message":{"message_id":5,"date":1,"text":"no chat"}}`,
		`{"update_id":3,"message":{"message_id":5,"date":1,"chat":{"id":0,"type":"private"},"text":"chat zero"}}`,
		`{"update_id":4,"edited_message":{"message_id":5,"date":1,"text":"no chat"}}`,
		`{"update_id":4,"message":{"message_id":5,"date":1,"chat":{"id":1,"type":"private"},"from":{"id":0},"text":"no sender"}}`,
		`{"update_id":4,"channel_post":{"message_id":5,"date":1,"chat":{"id":-1,"type":"channel"},"text":"no sender"}}`,
		// Wrong types.
		`{"update_id":5,"message":{"message_id":"5","date":1,"chat":{"id":1,"type":"private"},"text":"x"}}`,
		`{"update_id":6,"message":{"message_id":5,"date":1,"chat":"x","text":"x"}}`,
		`{"update_id":7,"message":{"message_id":5,"date":1,"chat":{"id":1,"type":"private"},"text":5}}`,
		`{"update_id":8,"message":{"message_id":5,"date":1,"chat":{"id":1,"type":"private"},"text":"x","entities":{}}}`,
		`{"update_id":9,"message":{"message_id":5,"date":-1,"chat":{"id":-1,"type":"nonsense"},"text":"x","from":{"id":-3}}}`,
		// Entities out of range, negative, overlapping; a text_mention of user 0.
		`{"update_id":10,"message":{"message_id":5,"date":1,"chat":{"id":1,"type":"group"},"text":"hi @mynah_bot","entities":[` +
			`{"type":"mention","offset":-3,"length":100},{"type":"mention","offset":99999,"length":2147483647},` +
			`{"type":"bot_command","offset":0,"length":-1},{"type":"text_mention","offset":0,"length":2,"user":{"id":0}}]}}`,
		// Invalid UTF-8 and NUL in text, lone surrogates in escapes.
		"{\"update_id\":11,\"message\":{\"message_id\":5,\"date\":1,\"chat\":{\"id\":1,\"type\":\"private\"},\"text\":\"\xff\xfe\x00 \xc3\x28 \\ud800 \\u0000\"}}",
		// Forward origins of unknown or missing type; a reply in another chat.
		`{"update_id":12,"message":{"message_id":5,"date":1,"chat":{"id":1,"type":"private"},"text":"x","forward_origin":{"type":"alien"}}}`,
		`{"update_id":13,"message":{"message_id":5,"date":1,"chat":{"id":1,"type":"private"},"text":"x","forward_origin":{}}}`,
		`{"update_id":14,"message":{"message_id":5,"date":1,"chat":{"id":1,"type":"private"},"text":"x","external_reply":{"origin":{"type":"user","sender_user":{"id":9}},"chat":{"id":2,"type":"private"},"message_id":3}}}`,
		`{"update_id":15,"message":{"message_id":5,"date":1,"chat":{"id":1,"type":"private"},"photo":[]}}`,
		`{"update_id":16,"callback_query":{"id":"q","from":{"id":1},"message":{"message_id":1,"date":0,"chat":{"id":1}}}}`,
		`{"update_id":17,"my_chat_member":{"chat":{"id":1,"type":"private"},"from":{"id":1},"date":1,"old_chat_member":{"status":"weird"},"new_chat_member":{}}}`,
		`{"update_id":18,"message_reaction":{"chat":{"id":1,"type":"private"},"message_id":1,"date":1,"old_reaction":[{"type":"?"}],"new_reaction":[]}}`,
		// Keys in another case: telego's decoder once left an invalid interface behind
		// (found by this fuzz test); the long s and the Kelvin sign fold to s and k.
		`{"CAllBACk_querY":{"messAge":{"0000":{"":"0000"},"0000":0}}}`,
		`{"update_id":23,"callback_query":{"id":"q","from":{"id":1},"meſſage":{"date":1,"chat":{"id":1}}}}`,
		`{"update_id":24,"message":{"message_id":5,"date":1,"chat":{"id":1,"type":"private"},"Forward_Origin":{"type":"user"}}}`,
		`{"update_id":25,"message":{"message_id":5,"date":1,"chat":{"id":1,"type":"private"},"pinned_message":{"date":1},"PINNED_MESSAGE":{"date":0}}}`,
		// Deeply nested replies and JSON.
		`{"update_id":19,"message":` + deep(40, "reply_to_message") + `}`,
		`{"update_id":20,"message":` + deep(400, "pinned_message") + `}`,
		`{"update_id":21,"x":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`,
		// Huge text.
		`{"update_id":22,"message":{"message_id":5,"date":1,"chat":{"id":1,"type":"private"},"text":"` + strings.Repeat("я🦜", 5000) + `"}}`,
	}
}

// seedUpdates adds the fixtures and the hostile updates to f's corpus.
func seedUpdates(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "updates", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no update fixtures: %v", err)
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	for _, s := range hostileUpdates() {
		f.Add([]byte(s))
	}
}

// FuzzDecodeUpdate feeds arbitrary bytes to the decoder behind Poll and the webhook: it
// must not panic, and what it accepts must be an update the store can take whole. Large
// seeds make minimizing each new input slow, so fuzz with a short minimize time:
//
//	go test -run '^$' -fuzz '^FuzzDecodeUpdate$' -fuzztime 60s -fuzzminimizetime 1s ./internal/telegram
func FuzzDecodeUpdate(f *testing.F) {
	seedUpdates(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		u, err := decodeUpdate(raw)
		if err != nil {
			if u.Message != nil {
				t.Errorf("a malformed update comes with a message: %+v", u.Message)
			}
			return
		}
		checkUpdate(t, u)
	})
}

// FuzzWebhook posts arbitrary bodies to the webhook handler: it must not panic, must call
// the handler at most once, only with a decoded update, and answer 200 unless the handler
// failed.
func FuzzWebhook(f *testing.F) {
	seedUpdates(f)
	b, err := New(Config{Token: testToken, APIURL: "http://127.0.0.1:1"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var got []mynah.Update
		h := b.WebhookHandler("s3cret", func(_ context.Context, u mynah.Update) error {
			got = append(got, u)
			if u.ID%2 != 0 {
				return fmt.Errorf("store failed")
			}
			return nil
		})
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(raw))
		req.Header.Set(SecretHeader, "s3cret")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		want := http.StatusOK
		switch {
		case len(got) > 1:
			t.Fatalf("handler called %d times for one request", len(got))
		case len(got) == 1:
			checkUpdate(t, got[0])
			if got[0].ID%2 != 0 {
				want = http.StatusInternalServerError
			}
		case len(raw) > maxWebhookBody:
			want = http.StatusRequestEntityTooLarge
		}
		if rec.Code != want {
			t.Errorf("status %d, want %d", rec.Code, want)
		}
	})
}

// FuzzNormalize builds updates from fuzzed fields, including the combinations that JSON
// rarely reaches (replies, quotes, topics, origins, entities), and normalizes them.
func FuzzNormalize(f *testing.F) {
	f.Add(int64(1), uint8(0), int64(5551234), "private", 17, "hello", "", 0, 5, "bot_command", int64(5551234), int64(0), 0, false, uint8(0), "")
	f.Add(int64(2), uint8(1), int64(-100123), "supergroup", 2041, "Привет 👋 @mynah_bot", "cap", 10, 10, "mention", int64(7), int64(-100123), 2042, true, uint8(1), "quote")
	f.Add(int64(-3), uint8(2), int64(-100999), "channel", 0, "", "photo caption", -1, 1<<30, "text_mention", int64(0), int64(-100999), 5, true, uint8(2), "")
	f.Add(int64(4), uint8(3), int64(0), "", -7, "\xff\x00", "", 3, -3, "", int64(-1), int64(1), -1, false, uint8(3), "\xc3\x28")
	f.Add(int64(5), uint8(4), int64(42), "group", 9, "x", "", 0, 0, "url", int64(42), int64(0), 0, false, uint8(4), "q")
	f.Add(int64(6), uint8(7), int64(42), "group", 9, "x", "", 0, 0, "url", int64(42), int64(0), 0, false, uint8(5), "")
	f.Fuzz(func(t *testing.T, updateID int64, where uint8, chatID int64, chatType string, msgID int, text, caption string,
		entOffset, entLength int, entType string, fromID, senderChatID int64, replyID int, topic bool, origin uint8, quote string) {
		chat := telego.Chat{ID: chatID, Type: chatType, Title: text, IsForum: topic}
		from := &telego.User{ID: fromID, FirstName: caption}
		m := &telego.Message{
			MessageID: msgID, Chat: chat, From: from, Date: int64(msgID), Text: text, Caption: caption,
			Entities:        []telego.MessageEntity{{Type: entType, Offset: entOffset, Length: entLength, User: from}},
			CaptionEntities: []telego.MessageEntity{{Type: entType, Offset: entLength, Length: entOffset}},
			IsTopicMessage:  topic, MessageThreadID: replyID,
		}
		if senderChatID != 0 {
			m.SenderChat = &telego.Chat{ID: senderChatID, Title: quote}
		}
		if replyID != 0 {
			m.ReplyToMessage = &telego.Message{MessageID: replyID, Chat: chat, From: from, Caption: quote}
			if topic {
				m.ReplyToMessage.ForumTopicCreated = &telego.ForumTopicCreated{Name: quote}
			}
		} else if quote != "" {
			m.ExternalReply = &telego.ExternalReplyInfo{Chat: &telego.Chat{ID: senderChatID}, MessageID: msgID}
		}
		if quote != "" {
			m.Quote = &telego.TextQuote{Text: quote}
		}
		switch origin % 5 {
		case 1:
			m.ForwardOrigin = &telego.MessageOriginUser{Type: telego.OriginTypeUser, SenderUser: *from}
		case 2:
			m.ForwardOrigin = &telego.MessageOriginHiddenUser{Type: telego.OriginTypeHiddenUser, SenderUserName: quote}
		case 3:
			m.ForwardOrigin = &telego.MessageOriginChat{Type: telego.OriginTypeChat, SenderChat: chat}
		case 4:
			m.ForwardOrigin = &telego.MessageOriginChannel{Type: telego.OriginTypeChannel, Chat: chat, MessageID: replyID}
		}
		if m.ExternalReply != nil {
			m.ExternalReply.Origin = m.ForwardOrigin
		}
		if entLength%3 == 0 {
			m.NewChatMembers = []telego.User{*from, {ID: senderChatID}}
		}
		if entOffset%3 == 0 {
			m.Photo = []telego.PhotoSize{{FileID: quote, Width: entOffset, Height: entLength}}
		}

		tu := telego.Update{UpdateID: int(updateID)}
		switch where % 8 {
		case 0:
			tu.Message = m
		case 1:
			tu.EditedMessage = m
		case 2:
			tu.ChannelPost = m
		case 3:
			tu.EditedChannelPost = m
		case 4:
			tu.CallbackQuery = &telego.CallbackQuery{From: *from}
			if msgID%2 == 0 {
				tu.CallbackQuery.Message = m
			} else {
				tu.CallbackQuery.Message = &telego.InaccessibleMessage{Chat: chat, MessageID: msgID}
			}
		case 5:
			tu.MyChatMember = &telego.ChatMemberUpdated{Chat: chat, From: *from}
		case 6:
			tu.MessageReaction = &telego.MessageReactionUpdated{Chat: chat, MessageID: msgID}
			if fromID != 0 {
				tu.MessageReaction.User = from
			}
		}
		u := Normalize(tu)
		if u.ID != int64(int(updateID)) {
			t.Errorf("id %d, want %d", u.ID, updateID)
		}
		if where%8 == 7 && u.Kind != "unknown" {
			t.Errorf("an empty update has kind %q", u.Kind)
		}
		if where%8 < 4 {
			if u.Message == nil {
				t.Fatalf("a %s update lost its message", u.Kind)
			}
			if u.Edited != (where%2 == 1) {
				t.Errorf("%s: edited = %v", u.Kind, u.Edited)
			}
			if u.Message.ID != mynah.MessageID(msgID) || u.Message.Chat.ID != mynah.ChatID(chatID) {
				t.Errorf("message %d in chat %d, want %d in %d", u.Message.ID, u.Message.Chat.ID, msgID, chatID)
			}
			if want := cmp.Or(text, caption); u.Message.Text != want {
				t.Errorf("text %q, want %q", u.Message.Text, want)
			}
		} else if u.Message != nil {
			t.Errorf("a %s update has a message", u.Kind)
		}
		checkUsers(t, u.Users)
		// What Normalize returns must survive the store's JSON columns.
		if u.Message != nil {
			if _, err := json.Marshal(u.Message); err != nil {
				t.Errorf("message does not marshal: %v", err)
			}
		}
	})
}

// checkUpdate checks what every decoded update promises: a kind, a message only in a chat
// and, outside channels, with a sender, the update's chat being the message's, and users
// each once with an id.
func checkUpdate(t *testing.T, u mynah.Update) {
	t.Helper()
	if u.Kind == "" {
		t.Error("update without a kind")
	}
	if m := u.Message; m != nil {
		if m.Chat.ID == 0 {
			t.Errorf("a %s update carries a message without a chat", u.Kind)
		}
		if m.Sender.ID == 0 && m.Chat.Type != mynah.ChatChannel {
			t.Errorf("a %s update carries a message without a sender in a %q chat", u.Kind, m.Chat.Type)
		}
		if u.Chat != m.Chat {
			t.Errorf("update chat %+v, message chat %+v", u.Chat, m.Chat)
		}
	}
	checkUsers(t, u.Users)
}

func checkUsers(t *testing.T, us []mynah.User) {
	t.Helper()
	seen := map[mynah.UserID]bool{}
	for _, usr := range us {
		if usr.ID == 0 || seen[usr.ID] {
			t.Errorf("users %+v: ids must be non-zero and unique", us)
			return
		}
		seen[usr.ID] = true
	}
}
