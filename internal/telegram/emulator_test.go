package telegram_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/telegram"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

const emuToken = "424242:AAF0-mynah-test-token_for-emulators"

// TestAgainstEmulator runs the adapter against the Bot API emulator over real HTTP.
func TestAgainstEmulator(t *testing.T) {
	emu := telegramtest.Start(t, telegramtest.Options{Token: emuToken})
	b, err := telegram.New(telegram.Config{Token: emuToken, APIURL: emu.URL()})
	if err != nil {
		t.Fatal(err)
	}
	telegram.NoWait(b)
	ctx := t.Context()
	anna := telegramtest.User{ID: 5551234, FirstName: "Anna", Username: "annap"}

	me, err := b.Me(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(me, mynah.User{ID: 1000001, FirstName: "Mynah", Username: "mynah_bot", IsBot: true}); diff != "" {
		t.Errorf("Me (-got +want):\n%s", diff)
	}

	t.Run("poll redelivers, then answer", func(t *testing.T) {
		in := emu.SendPrivate(anna, "hello")
		pollCtx, stop := context.WithCancel(ctx)
		defer stop()
		attempts := 0
		err := b.Poll(pollCtx, func(ctx context.Context, u mynah.Update) error {
			if attempts++; attempts == 1 {
				return errors.New("not stored yet")
			}
			if u.Message == nil || u.Message.Text != "hello" || u.Message.ID != mynah.MessageID(in.MessageID) {
				t.Errorf("update %+v, want the message %q", u, "hello")
			}
			_, err := b.Send(ctx, mynah.Outgoing{Chat: u.Chat.ID, Text: "<b>hi</b> Anna", HTML: true, ReplyTo: u.Message.ID})
			stop()
			return err
		})
		if err != nil {
			t.Fatalf("Poll = %v", err)
		}
		if attempts != 2 {
			t.Errorf("handler ran %d times, want 2", attempts)
		}
		sent := emu.Sent(anna.ID)
		if len(sent) != 1 || sent[0].Text != "hi Anna" || sent[0].ReplyTo != in.MessageID {
			t.Errorf("sent %+v, want one reply %q to %d", sent, "hi Anna", in.MessageID)
		}
		if p := emu.Pending(emuToken); len(p) != 0 {
			t.Errorf("pending after stop = %+v, want the handled update confirmed", p)
		}
	})

	t.Run("errors", func(t *testing.T) {
		m, err := b.Send(ctx, mynah.Outgoing{Chat: mynah.ChatID(anna.ID), Text: "plain"})
		if err != nil {
			t.Fatal(err)
		}
		if !m.Outgoing || m.Sender.ID != me.ID || m.Text != "plain" {
			t.Errorf("Send returned %+v", m)
		}
		if err := b.EditText(ctx, m.Chat.ID, m.ID, "plain", false, nil); err != nil {
			t.Errorf("Edit to the same text = %v, want nil", err)
		}
		if err := b.EditText(ctx, m.Chat.ID, m.ID, "changed", false, nil); err != nil {
			t.Errorf("Edit = %v", err)
		}
		if err := b.Typing(ctx, m.Chat.ID, 0); err != nil {
			t.Errorf("Typing = %v", err)
		}
		_, err = b.Send(ctx, mynah.Outgoing{Chat: m.Chat.ID, Text: "<foo>x</foo>", HTML: true})
		if !errors.Is(err, mynah.ErrBadMarkup) {
			t.Errorf("bad HTML: %v, want a parse error", err)
		}
		_, err = b.Send(ctx, mynah.Outgoing{Chat: m.Chat.ID, Text: "x", ReplyTo: 99999})
		if !errors.Is(err, mynah.ErrReplyMissing) {
			t.Errorf("reply to a missing message: %v, want reply not found", err)
		}
		emu.FailNext("sendMessage", 1, 429, "", 3)
		_, err = b.Send(ctx, mynah.Outgoing{Chat: m.Chat.ID, Text: "x"})
		if flood, ok := errors.AsType[*mynah.RetryAfterError](err); !ok || flood.After != 3*time.Second {
			t.Errorf("flood: %v, want a *mynah.RetryAfterError of 3s", err)
		}
		emu.Block(anna.ID)
		defer emu.Unblock(anna.ID)
		_, err = b.Send(ctx, mynah.Outgoing{Chat: m.Chat.ID, Text: "x"})
		if !errors.Is(err, mynah.ErrBlocked) {
			t.Errorf("blocked: %v, want mynah.ErrBlocked", err)
		}
	})

	t.Run("webhook", func(t *testing.T) {
		got := make(chan mynah.Update, 1)
		srv := httptest.NewServer(b.WebhookHandler("hook_secret", func(_ context.Context, u mynah.Update) error {
			got <- u
			return nil
		}))
		defer srv.Close()
		if err := b.SetWebhook(ctx, srv.URL, "hook_secret"); err != nil {
			t.Fatal(err)
		}
		emu.SendPrivate(anna, "via webhook")
		if u := <-got; u.Message == nil || u.Message.Text != "via webhook" {
			t.Errorf("webhook delivered %+v", u)
		}
		if err := emu.WaitDelivered(ctx, emuToken); err != nil {
			t.Error(err)
		}
		if err := b.DeleteWebhook(ctx); err != nil {
			t.Error(err)
		}
	})
}
