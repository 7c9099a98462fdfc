package telegramtest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mymmrac/telego"
	ta "github.com/mymmrac/telego/telegoapi"
	tu "github.com/mymmrac/telego/telegoutil"
)

// telegoToken satisfies telego's token format check.
const telegoToken = "123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

func newTelego(t *testing.T, srv *Server, opts ...telego.BotOption) *telego.Bot {
	t.Helper()
	opts = append([]telego.BotOption{telego.WithAPIServer(srv.URL()), telego.WithDiscardLogger()}, opts...)
	b, err := telego.NewBot(telegoToken, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTelego(t *testing.T) {
	for _, client := range []struct {
		name string
		opt  []telego.BotOption
	}{
		{"fasthttp", nil},
		{"net/http", []telego.BotOption{telego.WithHTTPClient(&http.Client{})}},
	} {
		t.Run(client.name, func(t *testing.T) {
			srv := Start(t, Options{Token: telegoToken})
			bot := newTelego(t, srv, client.opt...)
			ctx := t.Context()

			me, err := bot.GetMe(ctx)
			if err != nil || me.Username != "mynah_bot" || !me.IsBot {
				t.Fatalf("GetMe = %+v, %v", me, err)
			}

			in := srv.SendPrivate(alice, "hello @mynah_bot")
			updates, err := bot.GetUpdates(ctx, &telego.GetUpdatesParams{Timeout: 1})
			if err != nil || len(updates) != 1 || updates[0].Message.Text != in.Text {
				t.Fatalf("GetUpdates = %+v, %v", updates, err)
			}
			if e := updates[0].Message.Entities; len(e) != 1 || e[0].Type != "mention" || e[0].Offset != 6 {
				t.Errorf("entities = %+v", e)
			}

			msg, err := bot.SendMessage(ctx, tu.Message(tu.ID(alice.ID), "<b>hi</b>").
				WithParseMode(telego.ModeHTML).
				WithReplyParameters(&telego.ReplyParameters{MessageID: in.MessageID}))
			if err != nil || msg.Text != "hi" || msg.ReplyToMessage == nil {
				t.Fatalf("SendMessage = %+v, %v", msg, err)
			}
			if _, err := bot.EditMessageText(ctx, &telego.EditMessageTextParams{ChatID: tu.ID(alice.ID), MessageID: msg.MessageID, Text: "hi"}); err != nil {
				t.Errorf("EditMessageText: %v", err)
			}
			_, err = bot.EditMessageText(ctx, &telego.EditMessageTextParams{ChatID: tu.ID(alice.ID), MessageID: msg.MessageID, Text: "hi"})
			var apiErr *ta.Error
			if !errors.As(err, &apiErr) || apiErr.ErrorCode != 400 || !strings.HasPrefix(apiErr.Description, "Bad Request: message is not modified") {
				t.Errorf("identical edit error = %v", err)
			}

			photo, err := bot.SendPhoto(ctx, tu.Photo(tu.ID(alice.ID), tu.FileFromBytes([]byte("img"), "cat.jpg")).WithCaption("cat"))
			if err != nil || len(photo.Photo) == 0 || photo.Caption != "cat" {
				t.Fatalf("SendPhoto = %+v, %v", photo, err)
			}
			file, err := bot.GetFile(ctx, &telego.GetFileParams{FileID: photo.Photo[0].FileID})
			if err != nil || file.FileSize != 3 {
				t.Errorf("GetFile = %+v, %v", file, err)
			}
			if err := bot.SendChatAction(ctx, tu.ChatAction(tu.ID(alice.ID), telego.ChatActionTyping)); err != nil {
				t.Errorf("SendChatAction: %v", err)
			}
			if err := bot.SendMessageDraft(ctx, &telego.SendMessageDraftParams{ChatID: alice.ID, DraftID: 1, Text: "thinking"}); err != nil {
				t.Errorf("SendMessageDraft: %v", err)
			}

			srv.Block(alice.ID)
			_, err = bot.SendMessage(ctx, tu.Message(tu.ID(alice.ID), "still there?"))
			if !errors.As(err, &apiErr) || apiErr.ErrorCode != 403 || apiErr.Description != "Forbidden: bot was blocked by the user" {
				t.Errorf("blocked error = %v", err)
			}

			srv.FailNext("getMe", 1, 429, "", 3)
			_, err = bot.GetMe(ctx)
			if !errors.As(err, &apiErr) || apiErr.Parameters == nil || apiErr.Parameters.RetryAfter != 3 {
				t.Errorf("429 error = %v", err)
			}
		})
	}
}

func TestTelegoLongPolling(t *testing.T) {
	srv := Start(t, Options{Token: telegoToken})
	bot := newTelego(t, srv, telego.WithHTTPClient(&http.Client{}))
	ctx, cancel := context.WithCancel(t.Context())
	updates, err := bot.UpdatesViaLongPolling(ctx, &telego.GetUpdatesParams{Timeout: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"one", "two"} {
		srv.SendPrivate(alice, text)
		u := <-updates
		if u.Message == nil || u.Message.Text != text {
			t.Errorf("update = %+v, want %q", u, text)
		}
	}
	// The next poll's offset confirms the last update.
	if err := srv.WaitPoll(ctx, telegoToken); err != nil {
		t.Fatal(err)
	}
	if got := srv.Pending(telegoToken); len(got) != 0 {
		t.Errorf("pending = %d, want 0", len(got))
	}
	cancel()
	for range updates {
	}
}
