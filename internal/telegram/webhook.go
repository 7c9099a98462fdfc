package telegram

import (
	"crypto/subtle"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// maxWebhookBody bounds one webhook request; a single update is far smaller.
const maxWebhookBody = 1 << 20

// SecretHeader is the header in which Telegram sends the webhook's secret token.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// wrongSecretLogEvery spaces the log lines about requests with a wrong secret: anyone
// who finds the URL can send thousands a second.
const wrongSecretLogEvery = time.Minute

// WebhookHandler returns the HTTP handler for the webhook set with SetWebhook(url, secret).
// It accepts only POST (else 405) carrying the secret in SecretHeader, compared in
// constant time (else 401, and the connection is closed; an empty secret rejects every
// request, so a webhook cannot be left open by mistake). Requests with a wrong secret are
// logged at most once a minute, with their count since the last line. The body is one JSON update of at most 1 MiB (else 413). An
// update that does not decode is logged with its raw JSON (so an operator can recover
// it) and answered 200, as Poll skips it: Telegram would otherwise redeliver it forever
// and hold back the updates queued behind it. h runs with the request's context: if
// it fails the answer is 500 and Telegram delivers the update again later (it retries any
// non-2xx answer with backoff); on success the answer is 200 with an empty body, which
// confirms the update.
func (b *Bot) WebhookHandler(secret string, h Handler) http.Handler {
	wrongSecret := &throttle{every: wrongSecretLogEvery}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		got := r.Header.Get(SecretHeader)
		if secret == "" || subtle.ConstantTimeCompare([]byte(got), []byte(secret)) != 1 {
			if n, ok := wrongSecret.add(b.now()); ok {
				b.log.Warn("telegram: webhook requests with a wrong secret token (logged at most once a minute)",
					"count", n, "remote", r.RemoteAddr)
			}
			// A stranger does not get to keep an idle connection open.
			w.Header().Set("Connection", "close")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBody))
		if err != nil {
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				b.log.Error("telegram: webhook body too large", "limit", maxWebhookBody)
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			b.log.Warn("telegram: reading webhook body", "err", err)
			http.Error(w, "cannot read body", http.StatusBadRequest)
			return
		}
		u, err := decodeUpdate(body)
		if err != nil {
			b.log.Error("telegram: skipping malformed webhook update", "update_id", u.ID, "err", err, "raw", string(body))
			w.WriteHeader(http.StatusOK)
			return
		}
		if err := h(r.Context(), u); err != nil {
			b.log.Error("telegram: webhook update not handled; Telegram will redeliver it",
				"update_id", u.ID, "kind", u.Kind, "err", err)
			http.Error(w, "update not handled", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
}

// throttle lets one event in every interval through and counts the others. It is safe
// for concurrent use.
type throttle struct {
	every time.Duration

	mu    sync.Mutex
	last  time.Time // when an event last went through
	count int       // events since then, held back
}

// add records an event at now. It reports whether the event goes through and, if so, n,
// the number of events since the last one that did, this one included.
func (t *throttle) add(now time.Time) (n int, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.count++
	if !t.last.IsZero() && now.Sub(t.last) < t.every {
		return 0, false
	}
	n, t.count, t.last = t.count, 0, now
	return n, true
}
