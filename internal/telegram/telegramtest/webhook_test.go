package telegramtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// hookRecorder is a webhook endpoint that fails the first failures requests.
type hookRecorder struct {
	mu       sync.Mutex
	failures int
	secrets  []string
	texts    []string // texts of delivered messages, in order
	statuses []int
	got      chan struct{}
}

func (h *hookRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var u Update
	json.Unmarshal(body, &u)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.secrets = append(h.secrets, r.Header.Get(webhookSecretHeader))
	if h.failures > 0 {
		h.failures--
		h.statuses = append(h.statuses, 500)
		w.WriteHeader(500)
		return
	}
	h.statuses = append(h.statuses, 200)
	if u.Message != nil {
		h.texts = append(h.texts, u.Message.Text)
	}
	h.got <- struct{}{}
	if u.Message != nil && u.Message.Text == "ping" {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"method":"sendMessage","chat_id":501,"text":"pong"}`)
	}
}

func TestWebhook(t *testing.T) {
	srv := Start(t, Options{WebhookRetry: time.Millisecond})
	hook := &hookRecorder{failures: 2, got: make(chan struct{}, 10)}
	hs := httptest.NewServer(hook)
	t.Cleanup(hs.Close)

	srv.SendPrivate(alice, "queued before")
	r := call(t, srv, srv.Token(), "setWebhook", map[string]any{"url": hs.URL + "/hook", "secret_token": "s3cr3t_-"})
	if !r.OK || r.Description != "Webhook was set" {
		t.Fatalf("setWebhook = %s", r.Body)
	}
	r = call(t, srv, srv.Token(), "setWebhook", map[string]any{"url": hs.URL + "/hook", "secret_token": "s3cr3t_-"})
	if r.Description != "Webhook is already set" {
		t.Errorf("second setWebhook description = %q", r.Description)
	}
	wantError(t, call(t, srv, srv.Token(), "getUpdates", nil), 409,
		"Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first")

	<-hook.got
	srv.SendPrivate(alice, "ping")
	<-hook.got
	if _, err := srv.WaitSent(t.Context(), alice.ID, 1); err != nil {
		t.Fatalf("webhook reply was not executed: %v", err)
	}
	hook.mu.Lock()
	if got, want := strings.Join(hook.texts, ","), "queued before,ping"; got != want {
		t.Errorf("delivered %q, want %q in order", got, want)
	}
	if got, want := len(hook.statuses), 4; got != want {
		t.Errorf("%d deliveries, want %d (two failures retried)", got, want)
	}
	for _, s := range hook.secrets {
		if s != "s3cr3t_-" {
			t.Errorf("secret header = %q", s)
		}
	}
	hook.mu.Unlock()

	var info WebhookInfo
	call(t, srv, srv.Token(), "getWebhookInfo", nil).decode(t, &info)
	if info.URL != hs.URL+"/hook" || info.PendingUpdateCount != 0 || !strings.Contains(info.LastErrorMessage, "500") {
		t.Errorf("webhook info = %+v", info)
	}
	if r := call(t, srv, srv.Token(), "deleteWebhook", nil); r.Description != "Webhook was deleted" {
		t.Errorf("deleteWebhook = %q", r.Description)
	}
	if r := call(t, srv, srv.Token(), "deleteWebhook", nil); r.Description != "Webhook is already deleted" {
		t.Errorf("second deleteWebhook = %q", r.Description)
	}
	if r := call(t, srv, srv.Token(), "getUpdates", nil); !r.OK {
		t.Errorf("getUpdates after deleteWebhook: %s", r.Description)
	}
}

func TestSetWebhookTerminatesPoll(t *testing.T) {
	srv := Start(t, Options{})
	poll := make(chan apiResponse, 1)
	go func() { poll <- call(t, srv, srv.Token(), "getUpdates", map[string]any{"timeout": 50}) }()
	if err := srv.WaitPoll(t.Context(), srv.Token()); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(hs.Close)
	if r := call(t, srv, srv.Token(), "setWebhook", map[string]any{"url": hs.URL}); !r.OK {
		t.Fatal(r.Description)
	}
	wantError(t, <-poll, 409, "Conflict: terminated by setWebhook request")
}

func TestSetWebhookValidation(t *testing.T) {
	srv := Start(t, Options{})
	tests := []struct {
		name   string
		params map[string]any
		desc   string
	}{
		{"not a URL", map[string]any{"url": "::nope"}, "Bad Request: invalid webhook URL specified"},
		{"plain http on a public host", map[string]any{"url": "http://example.com/hook"}, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook"},
		{"odd port", map[string]any{"url": "https://example.com:8080/hook"}, "Bad Request: bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443"},
		{"secret too long", map[string]any{"url": "http://127.0.0.1:1/", "secret_token": strings.Repeat("a", 257)}, "Bad Request: secret token is too long"},
		{"secret characters", map[string]any{"url": "http://127.0.0.1:1/", "secret_token": "a b"}, "Bad Request: secret token contains unallowed characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, call(t, srv, srv.Token(), "setWebhook", tt.params), 400, tt.desc)
		})
	}
}
