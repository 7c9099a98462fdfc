package telegram

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

func TestWebhookHandler(t *testing.T) {
	const secret = "s3cret_Token-1"
	tests := []struct {
		name       string
		configured string // the secret the handler was built with
		method     string
		header     string // X-Telegram-Bot-Api-Secret-Token; "-" for none
		body       string
		handlerErr error
		wantStatus int
		wantBody   string
		wantIDs    []int64
	}{
		{name: "delivered", configured: secret, method: http.MethodPost, header: secret, body: textUpdate(7),
			wantStatus: http.StatusOK, wantIDs: []int64{7}},
		{name: "wrong secret", configured: secret, method: http.MethodPost, header: "guess", body: textUpdate(7),
			wantStatus: http.StatusUnauthorized, wantBody: "unauthorized\n"},
		{name: "secret prefix", configured: secret, method: http.MethodPost, header: secret[:4], body: textUpdate(7),
			wantStatus: http.StatusUnauthorized, wantBody: "unauthorized\n"},
		{name: "no secret", configured: secret, method: http.MethodPost, header: "-", body: textUpdate(7),
			wantStatus: http.StatusUnauthorized, wantBody: "unauthorized\n"},
		{name: "empty configured secret fails closed", configured: "", method: http.MethodPost, header: "-", body: textUpdate(7),
			wantStatus: http.StatusUnauthorized, wantBody: "unauthorized\n"},
		{name: "GET", configured: secret, method: http.MethodGet, header: secret,
			wantStatus: http.StatusMethodNotAllowed, wantBody: "method not allowed\n"},
		// Skipped with a log, as in Poll: a non-2xx answer would make Telegram redeliver it
		// forever and hold back the updates behind it.
		{name: "malformed JSON", configured: secret, method: http.MethodPost, header: secret, body: `{"update_id": 8, "message": [`,
			wantStatus: http.StatusOK},
		{name: "too large", configured: secret, method: http.MethodPost, header: secret,
			body:       `{"update_id": 9, "message": {"text": "` + strings.Repeat("a", maxWebhookBody) + `"}}`,
			wantStatus: http.StatusRequestEntityTooLarge, wantBody: "request body too large\n"},
		{name: "handler fails", configured: secret, method: http.MethodPost, header: secret, body: textUpdate(10),
			handlerErr: errors.New("disk full"), wantStatus: http.StatusInternalServerError,
			wantBody: "update not handled\n", wantIDs: []int64{10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t)
			b, rec := f.bot(t)
			var ids []int64
			h := b.WebhookHandler(tt.configured, func(_ context.Context, u mynah.Update) error {
				ids = append(ids, u.ID)
				return tt.handlerErr
			})
			req := httptest.NewRequest(tt.method, "/telegram/webhook", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			if tt.header != "-" {
				req.Header.Set(SecretHeader, tt.header)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != tt.wantStatus {
				t.Errorf("status = %d, want %d (logs: %s)", w.Code, tt.wantStatus, rec.Logs())
			}
			if got := w.Body.String(); got != tt.wantBody {
				t.Errorf("body = %q, want %q", got, tt.wantBody)
			}
			if diff := cmp.Diff(ids, tt.wantIDs); diff != "" {
				t.Errorf("handled update ids (-got +want):\n%s", diff)
			}
		})
	}
}

func TestWebhookPassesNormalizedUpdate(t *testing.T) {
	f := newFakeAPI(t)
	b, _ := f.bot(t)
	srv := httptest.NewServer(b.WebhookHandler("s3cret", func(_ context.Context, u mynah.Update) error {
		if u.Message == nil || u.Message.Text != "m5" || u.Chat.ID != 5551234 || u.Kind != "message" {
			t.Errorf("handler got %+v", u)
		}
		return nil
	}))
	defer srv.Close()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, strings.NewReader(textUpdate(5)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(SecretHeader, "s3cret")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status = %d, want 200", resp.StatusCode)
	}
}
