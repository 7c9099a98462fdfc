package telegram_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/telegram"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// TestKeyboardsAndCallbacks: a message sent with buttons shows them; a press reaches the
// handler as a Callback in the message's chat; answering it stops the spinner; EditText
// turns the page in place, and pressing the page already shown is not an error.
func TestKeyboardsAndCallbacks(t *testing.T) {
	emu := telegramtest.Start(t, telegramtest.Options{Token: emuToken, SelfCheck: true})
	b, err := telegram.New(telegram.Config{Token: emuToken, APIURL: emu.URL()})
	if err != nil {
		t.Fatal(err)
	}
	telegram.NoWait(b)
	ctx := t.Context()
	anna := telegramtest.User{ID: 5551234, FirstName: "Anna", Username: "annap"}
	group := telegramtest.Supergroup(-100777, "Birders")
	emu.SendGroup(group, anna, "hello all")

	page1 := [][]mynah.Button{{{Text: "▶", Data: "mem:p:5551234:2"}}}
	m, err := b.Send(ctx, mynah.Outgoing{Chat: mynah.ChatID(group.ID), Text: "<b>1.</b> likes tea", HTML: true, Buttons: page1})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]telegramtest.InlineButton{{{Text: "▶", CallbackData: "mem:p:5551234:2"}}}
	if got := emu.Sent(group.ID)[0].Buttons(); !cmp.Equal(got, want) {
		t.Errorf("buttons sent = %v, want %v", got, want)
	}

	if _, err := emu.PressButton(anna, group.ID, int(m.ID), "mem:p:5551234:2"); err != nil {
		t.Fatal(err)
	}
	var got mynah.Update
	pollCtx, stop := context.WithCancel(ctx)
	defer stop()
	err = b.Poll(pollCtx, func(ctx context.Context, u mynah.Update) error {
		if u.Callback == nil {
			return nil // the group message
		}
		got = u
		defer stop()
		return b.AnswerCallback(ctx, u.Callback.ID, strings.Repeat("long ", 60))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Callback == nil {
		t.Fatal("no callback update")
	}
	wantCB := &mynah.Callback{ID: got.Callback.ID, From: mynah.User{ID: mynah.UserID(anna.ID), FirstName: "Anna", Username: "annap"}, Message: m.ID, Data: "mem:p:5551234:2"}
	if diff := cmp.Diff(got.Callback, wantCB); diff != "" || got.Chat.ID != mynah.ChatID(group.ID) || got.Kind != "callback_query" {
		t.Errorf("callback update in chat %d, kind %s (-got +want):\n%s", got.Chat.ID, got.Kind, diff)
	}
	answers := emu.CallbackAnswers()
	if len(answers) != 1 || answers[0].QueryID != got.Callback.ID || len([]rune(answers[0].Text)) != 200 {
		t.Errorf("answers = %+v, want one, cut to 200 characters", answers)
	}

	page2 := [][]mynah.Button{{{Text: "◀", Data: "mem:p:5551234:1"}, {Text: "▶", Data: "mem:p:5551234:3"}}}
	if err := b.EditText(ctx, m.Chat.ID, m.ID, "<b>11.</b> keeps bees", true, page2); err != nil {
		t.Fatal(err)
	}
	if err := b.EditText(ctx, m.Chat.ID, m.ID, "<b>11.</b> keeps bees", true, page2); err != nil {
		t.Errorf("EditText to the page shown = %v, want nil", err)
	}
	sent := emu.Sent(group.ID)[0]
	if sent.Text != "11. keeps bees" || len(sent.Buttons()) != 1 || len(sent.Buttons()[0]) != 2 || len(sent.Edits) != 1 {
		t.Errorf("after EditText: %q, buttons %v, %d edits", sent.Text, sent.Buttons(), len(sent.Edits))
	}
	if err := b.EditText(ctx, m.Chat.ID, m.ID, "all forgotten", false, nil); err != nil {
		t.Fatal(err)
	}
	if got := emu.Sent(group.ID)[0].Buttons(); got != nil {
		t.Errorf("EditText without buttons left %v", got)
	}
	if err := b.EditText(ctx, m.Chat.ID, 99999, "x", false, nil); err == nil {
		t.Error("EditText of a missing message succeeded")
	}

	calls := len(emu.Calls())
	for _, bad := range [][][]mynah.Button{
		{{{Text: "x", Data: strings.Repeat("d", 65)}}},
		{{{Text: "x", Data: ""}}},
		{{{Text: "", Data: "d"}}},
	} {
		if _, err := b.Send(ctx, mynah.Outgoing{Chat: m.Chat.ID, Text: "x", Buttons: bad}); err == nil {
			t.Errorf("Send with buttons %v succeeded", bad)
		}
		if err := b.EditText(ctx, m.Chat.ID, m.ID, "y", false, bad); err == nil {
			t.Errorf("EditText with buttons %v succeeded", bad)
		}
	}
	if n := len(emu.Calls()); n != calls {
		t.Errorf("invalid buttons reached Telegram: %d calls", n-calls)
	}
	if v := emu.Violations(); len(v) != 0 {
		t.Errorf("spec violations: %v", v)
	}
}
