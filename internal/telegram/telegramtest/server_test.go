package telegramtest

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGetMe(t *testing.T) {
	srv := Start(t, Options{})
	var got map[string]any
	call(t, srv, srv.Token(), "getMe", nil).decode(t, &got)
	want := map[string]any{
		"id": float64(1000001), "is_bot": true, "first_name": "Mynah", "username": "mynah_bot",
		"can_join_groups": true, "can_read_all_group_messages": false, "supports_inline_queries": false,
		"can_connect_to_business": false, "has_main_web_app": false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("getMe (-want +got):\n%s", diff)
	}
}

func TestRouting(t *testing.T) {
	srv := Start(t, Options{})
	get := func(path string) apiResponse {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return do(t, req)
	}
	tests := []struct {
		name, path string
		code       int
		desc       string
	}{
		{"not a bot path", "/getMe", 404, "Not Found"},
		{"malformed token", "/botnocolon/getMe", 401, "Unauthorized: invalid token specified"},
		{"token starting with 0", "/bot0123:abc/getMe", 401, "Unauthorized: invalid token specified"},
		{"unknown token", "/bot42:unknown/getMe", 401, "Unauthorized"},
		{"unknown method", "/bot" + DefaultToken + "/getYou", 404, "Not Found: method not found"},
		{"case-insensitive method", "/bot" + DefaultToken + "/GETME", 200, ""},
		{"test environment path", "/bot" + DefaultToken + "/test/getMe", 200, ""},
		{"query string params", "/bot" + DefaultToken + "/getUpdates?limit=5&timeout=0", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := get(tt.path)
			if r.Status != tt.code || r.Description != tt.desc {
				t.Errorf("GET %s = %d %q, want %d %q", tt.path, r.Status, r.Description, tt.code, tt.desc)
			}
		})
	}
	if got := srv.CallsTo("getMe"); len(got) != 2 {
		t.Errorf("getMe calls = %d, want 2 (case-insensitive names logged by spec name)", len(got))
	}
}

func TestFailNext(t *testing.T) {
	srv := Start(t, Options{})
	srv.AddChat(PrivateChat(alice))
	srv.FailNext("sendmessage", 1, 429, "", 7)
	r := call(t, srv, srv.Token(), "sendMessage", map[string]any{"chat_id": alice.ID, "text": "hi"})
	want := `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}}`
	if r.Body != want {
		t.Errorf("body = %s, want %s", r.Body, want)
	}
	if got := r.Header.Get("Retry-After"); got != "7" || r.Status != 429 {
		t.Errorf("status %d Retry-After %q, want 429 and 7", r.Status, got)
	}
	if r := call(t, srv, srv.Token(), "sendMessage", map[string]any{"chat_id": alice.ID, "text": "hi"}); !r.OK {
		t.Errorf("second call failed: %s", r.Description)
	}
	if got := len(srv.Sent(alice.ID)); got != 1 {
		t.Errorf("sent %d messages, want 1 (the failed call sends nothing)", got)
	}
}

func TestBlocked(t *testing.T) {
	srv := Start(t, Options{})
	srv.SendPrivate(alice, "hi")
	srv.Block(alice.ID)
	r := call(t, srv, srv.Token(), "sendMessage", map[string]any{"chat_id": alice.ID, "text": "hello"})
	wantError(t, r, 403, "Forbidden: bot was blocked by the user")
	r = call(t, srv, srv.Token(), "sendChatAction", map[string]any{"chat_id": alice.ID, "action": "typing"})
	wantError(t, r, 403, "Forbidden: bot was blocked by the user")
	srv.Unblock(alice.ID)
	if r := call(t, srv, srv.Token(), "sendMessage", map[string]any{"chat_id": alice.ID, "text": "hello"}); !r.OK {
		t.Errorf("after Unblock: %s", r.Description)
	}
}

func TestChatResolution(t *testing.T) {
	srv := Start(t, Options{})
	srv.AddUser(bob)
	srv.AddChat(Chat{ID: -100500, Type: ChatSupergroup, Title: "Room", Username: "room"})
	tests := []struct {
		name   string
		chatID any
		code   int
		desc   string
	}{
		{"missing", "", 400, "Bad Request: chat_id is empty"},
		{"unknown user", 999, 400, "Bad Request: chat not found"},
		{"user who never wrote", bob.ID, 403, "Forbidden: bot can't initiate conversation with a user"},
		{"unknown group", -42, 400, "Bad Request: chat not found"},
		{"group by username", "@room", 200, ""},
		{"group by id as string", "-100500", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, srv, srv.Token(), "sendMessage", map[string]any{"chat_id": tt.chatID, "text": "hi"})
			if r.Status != tt.code || r.Description != tt.desc {
				t.Errorf("got %d %q, want %d %q", r.Status, r.Description, tt.code, tt.desc)
			}
		})
	}
}

func TestViolationsReported(t *testing.T) {
	tests := []struct {
		name   string
		method string
		params url.Values
		want   []string
		desc   string // the Telegram error, "" for success
	}{
		{
			name:   "missing required parameter",
			method: "sendMessage",
			params: url.Values{"chat_id": {"501"}},
			want:   []string{"sendMessage: required parameter text missing"},
			desc:   "Bad Request: message text is empty",
		},
		{
			name:   "unknown parameter",
			method: "sendMessage",
			params: url.Values{"chat_id": {"501"}, "text": {"hi"}, "colour": {"red"}},
			want:   []string{"sendMessage: unknown parameter colour"},
		},
		{
			name:   "wrong type",
			method: "sendMessage",
			params: url.Values{"chat_id": {"501"}, "text": {"hi"}, "disable_notification": {"maybe"}},
			want:   []string{"sendMessage: disable_notification: expected Boolean, got string"},
		},
		{
			name:   "wrong nested object",
			method: "setMessageReaction",
			params: url.Values{"chat_id": {"501"}, "message_id": {"1"}, "reaction": {`[{"type":"emoji"}]`}},
			want:   []string{"setMessageReaction: reaction[0].emoji: required field missing (ReactionTypeEmoji)"},
			desc:   "Bad Request: REACTION_INVALID",
		},
		{
			name:   "conditionally required",
			method: "editMessageText",
			params: url.Values{"text": {"x"}},
			want: []string{
				"editMessageText: required parameter chat_id missing (inline_message_id is not specified)",
				"editMessageText: required parameter message_id missing (inline_message_id is not specified)",
			},
			desc: "Bad Request: chat_id is empty",
		},
		{
			name:   "lenient strings for integers and JSON strings for objects",
			method: "sendMessage",
			params: url.Values{"chat_id": {"501"}, "text": {"hi"}, "reply_parameters": {`{"message_id":1}`}, "protect_content": {"1"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log violationLog
			srv := Start(t, Options{OnViolation: log.add})
			srv.SendPrivate(alice, "hi")
			r := callForm(t, srv, tt.method, tt.params)
			if r.Description != tt.desc {
				t.Errorf("description = %q, want %q", r.Description, tt.desc)
			}
			if diff := cmp.Diff(tt.want, log.list()); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			if got := len(srv.Violations()); got != len(tt.want) {
				t.Errorf("Violations() has %d, want %d", got, len(tt.want))
			}
		})
	}
}

func TestLegacyParamIsWarning(t *testing.T) {
	srv := Start(t, Options{})
	m := srv.SendPrivate(alice, "question")
	var got Message
	call(t, srv, srv.Token(), "sendMessage", map[string]any{"chat_id": alice.ID, "text": "answer", "reply_to_message_id": m.MessageID}).decode(t, &got)
	if got.ReplyToMessage == nil || got.ReplyToMessage.Text != "question" {
		t.Errorf("reply_to_message = %+v, want the question", got.ReplyToMessage)
	}
	if diff := cmp.Diff([]string{"sendMessage: legacy parameter reply_to_message_id is not in the spec"}, srv.Warnings()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestRunAndSubscribe(t *testing.T) {
	srv := New(Options{SelfCheck: true, OnViolation: func(err error) { t.Errorf("violation: %v", err) }})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Run sets the URL itself, but only once its goroutine runs.
	srv.setURL("http://" + ln.Addr().String())
	ctx, cancel := context.WithCancel(t.Context())
	runErr := make(chan error, 1)
	go func() { runErr <- srv.Run(ctx, ln) }()
	events := srv.Subscribe(ctx)

	srv.SendPrivate(alice, "hi")
	call(t, srv, srv.Token(), "sendMessageDraft", map[string]any{"chat_id": alice.ID, "draft_id": 3, "text": "typing..."})
	call(t, srv, srv.Token(), "sendMessage", map[string]any{"chat_id": alice.ID, "text": "answer"})
	var kinds []EventKind
	for len(kinds) < 2 {
		ev := <-events
		kinds = append(kinds, ev.Kind)
		if ev.Kind == EventSent && ev.Message.Text != "answer" {
			t.Errorf("sent event = %+v", ev.Message)
		}
	}
	if diff := cmp.Diff([]EventKind{EventDraft, EventSent}, kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	cancel()
	if err := <-runErr; err != nil {
		t.Errorf("Run = %v", err)
	}
	for range events {
	}
}
