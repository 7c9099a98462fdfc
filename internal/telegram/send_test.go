package telegram

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"empty token", Config{}},
		{"no colon", Config{Token: "123456789AAF0-mynah-test-token_forunit-tests"}},
		{"short secret", Config{Token: "123456789:short"}},
		{"slash in token", Config{Token: "123456789:AAF0-mynah-test-token/forunit-tests"}},
		{"relative API URL", Config{Token: testToken, APIURL: "localhost:8081"}},
		{"ftp API URL", Config{Token: testToken, APIURL: "ftp://example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if err == nil {
				t.Fatalf("New(%s) succeeded, want an error", tt.name)
			}
			if tt.cfg.Token != "" && strings.Contains(err.Error(), tt.cfg.Token) {
				t.Errorf("New error %q contains the token", err)
			}
		})
	}
	if _, err := New(Config{Token: testToken}); err != nil {
		t.Errorf("New with a well-formed token: %v", err)
	}
}

func TestMeIsCached(t *testing.T) {
	f := newFakeAPI(t)
	f.on("getMe", errReply(http.StatusBadGateway, "Bad Gateway", 0))
	b, _ := f.bot(t)
	if _, err := b.Me(t.Context()); err == nil {
		t.Fatal("Me succeeded on a 502")
	}
	want := mynah.User{ID: 123456789, FirstName: "Mynah", Username: "mynah_bot", IsBot: true}
	for range 2 {
		got, err := b.Me(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(got, want); diff != "" {
			t.Errorf("Me (-got +want):\n%s", diff)
		}
	}
	if n := len(f.recorded("getMe")); n != 2 {
		t.Errorf("getMe called %d times, want 2 (one failure, then cached)", n)
	}
}

func TestSend(t *testing.T) {
	me := mynah.User{ID: 123456789, FirstName: "Mynah", Username: "mynah_bot", IsBot: true}
	anna := mynah.User{ID: 5551234, FirstName: "Anna"}
	tests := []struct {
		name       string
		in         mynah.Outgoing
		wantParams map[string]any
		want       mynah.Message
	}{
		{
			name:       "plain",
			in:         mynah.Outgoing{Chat: 5551234, Text: "hi"},
			wantParams: map[string]any{"chat_id": 5551234.0, "text": "hi"},
			want: mynah.Message{Chat: mynah.Chat{ID: 5551234, Type: mynah.ChatPrivate}, ID: 900, Sender: me,
				Time: at(1763690000), Text: "hi", Outgoing: true},
		},
		{
			name: "html reply in topic",
			in:   mynah.Outgoing{Chat: -100777, ThreadID: 12, Text: "<b>hi</b>", HTML: true, ReplyTo: 55},
			wantParams: map[string]any{"chat_id": -100777.0, "message_thread_id": 12.0, "text": "<b>hi</b>",
				"parse_mode": "HTML", "reply_parameters": map[string]any{"message_id": 55.0, "chat_id": -100777.0}},
			want: mynah.Message{Chat: mynah.Chat{ID: -100777, Type: mynah.ChatSupergroup, Title: "Lab", IsForum: true},
				ID: 900, ThreadID: 12, Sender: me, Time: at(1763690000), Text: "<b>hi</b>", Outgoing: true,
				ReplyTo: &mynah.ReplyRef{ID: 55, Sender: anna, Text: "question"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t)
			b, _ := f.bot(t)
			got, err := b.Send(t.Context(), tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("Send (-got +want):\n%s", diff)
			}
			calls := f.recorded("sendMessage")
			if len(calls) != 1 {
				t.Fatalf("sendMessage called %d times, want 1", len(calls))
			}
			if diff := cmp.Diff(calls[0].Params, tt.wantParams); diff != "" {
				t.Errorf("sendMessage parameters (-got +want):\n%s", diff)
			}
		})
	}
}

func TestEdit(t *testing.T) {
	tests := []struct {
		name    string
		reply   *reply
		wantErr bool
	}{
		{"edited", nil, false},
		{"not modified is success", ptr(errReply(400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message", 0)), false},
		{"missing message", ptr(errReply(400, "Bad Request: message to edit not found", 0)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t)
			if tt.reply != nil {
				f.on("editMessageText", *tt.reply)
			}
			b, _ := f.bot(t)
			err := b.EditText(t.Context(), 5551234, 900, "<i>new</i>", true, nil)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Edit error = %v, want error: %t", err, tt.wantErr)
			}
			want := []call{{"editMessageText", map[string]any{"chat_id": 5551234.0, "message_id": 900.0,
				"text": "<i>new</i>", "parse_mode": "HTML"}}}
			if diff := cmp.Diff(f.recorded("editMessageText"), want); diff != "" {
				t.Errorf("calls (-got +want):\n%s", diff)
			}
		})
	}
}

// TestSendEdit: Send with Edit set edits the message and returns it as now shown, with
// the text without markup and the time of the edit.
func TestSendEdit(t *testing.T) {
	f := newFakeAPI(t)
	b, _ := f.bot(t)
	clk := fakeClock(b)
	got, err := b.Send(t.Context(), mynah.Outgoing{Chat: 5551234, Edit: 900, Text: "<i>new</i> &amp; old", HTML: true, ReplyTo: 12})
	if err != nil {
		t.Fatal(err)
	}
	want := mynah.Message{Chat: mynah.Chat{ID: 5551234}, ID: 900, Text: "new & old", Edited: clk.Now()}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Send (-got +want):\n%s", diff)
	}
	calls := []call{{"editMessageText", map[string]any{"chat_id": 5551234.0, "message_id": 900.0,
		"text": "<i>new</i> &amp; old", "parse_mode": "HTML"}}}
	if diff := cmp.Diff(f.recorded(""), calls); diff != "" {
		t.Errorf("calls (-got +want):\n%s", diff)
	}
	f.on("editMessageText", errReply(400, "Bad Request: message to edit not found", 0))
	if _, err := b.Send(t.Context(), mynah.Outgoing{Chat: 5551234, Edit: 901, Text: "x"}); !errors.Is(err, mynah.ErrRejected) {
		t.Errorf("edit of a missing message: %v, want mynah.ErrRejected", err)
	}
}

func TestOtherMethods(t *testing.T) {
	f := newFakeAPI(t)
	b, _ := f.bot(t)
	ctx := t.Context()
	if err := b.Typing(ctx, -100777, 12); err != nil {
		t.Fatal(err)
	}
	if err := b.SetCommands(ctx, []Command{{"reset", "Start a new conversation"}}); err != nil {
		t.Fatal(err)
	}
	if err := b.SetWebhook(ctx, "https://example.com/tg", "s3cret"); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteWebhook(ctx); err != nil {
		t.Fatal(err)
	}
	want := []call{
		{"sendChatAction", map[string]any{"chat_id": -100777.0, "message_thread_id": 12.0, "action": "typing"}},
		{"setMyCommands", map[string]any{"commands": []any{map[string]any{"command": "reset", "description": "Start a new conversation"}}}},
		{"setWebhook", map[string]any{"url": "https://example.com/tg", "secret_token": "s3cret", "allowed_updates": allowedKinds()}},
		{"deleteWebhook", map[string]any{}},
	}
	if diff := cmp.Diff(f.recorded(""), want); diff != "" {
		t.Errorf("calls (-got +want):\n%s", diff)
	}
}

func TestErrorClassification(t *testing.T) {
	type class struct {
		BadMarkup, ReplyMissing, Blocked, Rejected, Flood bool
		RetryAfter                                        time.Duration
	}
	tests := []struct {
		name  string
		reply reply
		want  class
		code  int
	}{
		{"bad html", errReply(400, `Bad Request: can't parse entities: Unsupported start tag "foo" at byte offset 0`, 0), class{BadMarkup: true}, 400},
		{"reply target gone", errReply(400, "Bad Request: message to be replied not found", 0), class{ReplyMissing: true}, 400},
		{"blocked", errReply(403, "Forbidden: bot was blocked by the user", 0), class{Blocked: true}, 403},
		{"deactivated", errReply(403, "Forbidden: user is deactivated", 0), class{Blocked: true}, 403},
		{"never started", errReply(403, "Forbidden: bot can't initiate conversation with a user", 0), class{Blocked: true}, 403},
		{"flood", errReply(429, "Too Many Requests: retry after 15", 15), class{Flood: true, RetryAfter: 15 * time.Second}, 429},
		{"flood without parameters", errReply(429, "Too Many Requests: retry after 3", 0), class{Flood: true, RetryAfter: 3 * time.Second}, 429},
		{"chat not found", errReply(400, "Bad Request: chat not found", 0), class{Rejected: true}, 400},
		{"kicked is not blocked", errReply(403, "Forbidden: bot was kicked from the supergroup chat", 0), class{}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t)
			f.on("sendMessage", tt.reply)
			b, _ := f.bot(t)
			_, err := b.Send(t.Context(), mynah.Outgoing{Chat: 1, Text: "x"})
			if err == nil {
				t.Fatal("Send succeeded, want an error")
			}
			flood, isFlood := errors.AsType[*mynah.RetryAfterError](err)
			got := class{BadMarkup: errors.Is(err, mynah.ErrBadMarkup), ReplyMissing: errors.Is(err, mynah.ErrReplyMissing),
				Blocked: errors.Is(err, mynah.ErrBlocked), Rejected: errors.Is(err, mynah.ErrRejected), Flood: isFlood}
			if isFlood {
				got.RetryAfter = flood.After
			}
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("classification of %q (-got +want):\n%s", err, diff)
			}
			var apiErr *Error
			if !errors.As(err, &apiErr) || apiErr.Code != tt.code {
				t.Errorf("errors.As(%v) = %+v, want code %d", err, apiErr, tt.code)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// allowedKinds is AllowedUpdates as the wire carries it.
func allowedKinds() []any {
	var kinds []any
	for _, k := range AllowedUpdates() {
		kinds = append(kinds, k)
	}
	return kinds
}
