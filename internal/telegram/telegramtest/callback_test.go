package telegramtest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func keyboardParam(rows ...[]InlineButton) map[string]any {
	return map[string]any{"inline_keyboard": rows}
}

// TestInlineKeyboards: a keyboard sent with a message is kept, replaced by an edit that
// names another, removed by an edit that names none, and only its buttons can be pressed.
func TestInlineKeyboards(t *testing.T) {
	srv := Start(t, Options{SelfCheck: true})
	tok := srv.Token()
	srv.AddChat(PrivateChat(alice))
	page1 := []InlineButton{{Text: "▶", CallbackData: "mem:2"}}
	var sent Message
	call(t, srv, tok, "sendMessage", map[string]any{"chat_id": alice.ID, "text": "page 1", "reply_markup": keyboardParam(page1)}).decode(t, &sent)
	if got := srv.Sent(alice.ID)[0].Buttons(); !cmp.Equal(got, [][]InlineButton{page1}) {
		t.Errorf("Buttons after send = %v", got)
	}
	if _, err := srv.PressButton(alice, alice.ID, sent.MessageID, "mem:9"); err == nil {
		t.Error("PressButton with data no button carries succeeded")
	}
	if _, err := srv.PressButton(alice, alice.ID, sent.MessageID, "mem:2"); err != nil {
		t.Fatal(err)
	}

	// Same text, other keyboard: an edit, not "not modified".
	page2 := []InlineButton{{Text: "◀", CallbackData: "mem:1"}, {Text: "▶", CallbackData: "mem:3"}}
	if r := call(t, srv, tok, "editMessageText", map[string]any{"chat_id": alice.ID, "message_id": sent.MessageID, "text": "page 1", "reply_markup": keyboardParam(page2)}); !r.OK {
		t.Fatalf("edit with a new keyboard: %s", r.Description)
	}
	if got := srv.Sent(alice.ID)[0].Buttons(); !cmp.Equal(got, [][]InlineButton{page2}) {
		t.Errorf("Buttons after edit = %v", got)
	}
	r := call(t, srv, tok, "editMessageText", map[string]any{"chat_id": alice.ID, "message_id": sent.MessageID, "text": "page 1", "reply_markup": keyboardParam(page2)})
	wantError(t, r, 400, "Bad Request: "+msgNotModified)
	if r := call(t, srv, tok, "editMessageText", map[string]any{"chat_id": alice.ID, "message_id": sent.MessageID, "text": "done"}); !r.OK {
		t.Fatal(r.Description)
	}
	if got := srv.Sent(alice.ID)[0].Buttons(); got != nil {
		t.Errorf("Buttons after an edit without reply_markup = %v, want none", got)
	}
	if _, err := srv.PressButton(alice, alice.ID, sent.MessageID, "mem:1"); err == nil {
		t.Error("pressed a button of a removed keyboard")
	}
	if v := srv.Violations(); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}
}

func TestInlineKeyboardDataLimit(t *testing.T) {
	srv := Start(t, Options{})
	srv.AddChat(PrivateChat(alice))
	long := []InlineButton{{Text: "x", CallbackData: strings.Repeat("é", 33)}} // 66 bytes
	r := call(t, srv, srv.Token(), "sendMessage", map[string]any{"chat_id": alice.ID, "text": "hi", "reply_markup": keyboardParam(long)})
	wantError(t, r, 400, "Bad Request: BUTTON_DATA_INVALID")
	if got := srv.Sent(alice.ID); len(got) != 0 {
		t.Errorf("sent %d messages with invalid buttons", len(got))
	}
	ok := []InlineButton{{Text: "x", CallbackData: strings.Repeat("é", 32)}} // 64 bytes
	if r := call(t, srv, srv.Token(), "sendMessage", map[string]any{"chat_id": alice.ID, "text": "hi", "reply_markup": keyboardParam(ok)}); !r.OK {
		t.Errorf("64 bytes of data refused: %s", r.Description)
	}
}

// TestAnswerCallbackQuery: a press is answered once, by the bot it was delivered to.
func TestAnswerCallbackQuery(t *testing.T) {
	srv := Start(t, Options{})
	tok := srv.Token()
	const other = "999:OTHER-TOKEN-AAAAAAAAAAAAAAAAAAAAAAAAAA"
	srv.AddBot(other, BotUser{ID: 999, FirstName: "Other", Username: "other_bot"})
	srv.AddChat(PrivateChat(alice))
	var sent Message
	call(t, srv, tok, "sendMessage", map[string]any{"chat_id": alice.ID, "text": "sure?",
		"reply_markup": keyboardParam([]InlineButton{{Text: "Yes", CallbackData: "yes"}})}).decode(t, &sent)
	u, err := srv.PressButton(bob, alice.ID, sent.MessageID, "yes")
	if err != nil {
		t.Fatal(err)
	}
	id := u.CallbackQuery.ID
	wantError(t, call(t, srv, tok, "answerCallbackQuery", map[string]any{"callback_query_id": "nope"}), 400, "Bad Request: "+msgQueryInvalid)
	wantError(t, call(t, srv, other, "answerCallbackQuery", map[string]any{"callback_query_id": id}), 400, "Bad Request: "+msgQueryInvalid)
	wantError(t, call(t, srv, tok, "answerCallbackQuery", map[string]any{"callback_query_id": id, "text": strings.Repeat("x", 201)}), 400, "Bad Request: MESSAGE_TOO_LONG")
	if r := call(t, srv, tok, "answerCallbackQuery", map[string]any{"callback_query_id": id, "text": "not yours", "show_alert": true}); !r.OK {
		t.Fatal(r.Description)
	}
	wantError(t, call(t, srv, tok, "answerCallbackQuery", map[string]any{"callback_query_id": id}), 400, "Bad Request: "+msgQueryInvalid)
	got := srv.CallbackAnswers()
	want := []CallbackAnswer{{BotID: 1000001, QueryID: id, From: bob.ID, ChatID: alice.ID, MessageID: sent.MessageID, Data: "yes", Text: "not yours", ShowAlert: true}}
	if diff := cmp.Diff(got, want, cmpopts.IgnoreFields(CallbackAnswer{}, "Time")); diff != "" {
		t.Errorf("CallbackAnswers (-got +want):\n%s", diff)
	}
}
