package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
)

// TestRedirectNotFollowed points the bot at a server that redirects every request, path
// and token included, to a second server: the second server must never be asked.
func TestRedirectNotFollowed(t *testing.T) {
	for _, status := range []int{
		http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect,
	} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			var reached atomic.Int32
			second := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reached.Add(1)
				writeReply(w, reply{200, `{"ok":true,"result":{"id":123456789,"is_bot":true,"first_name":"Evil"}}`})
			}))
			defer second.Close()
			first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, second.URL+r.URL.Path, status)
			}))
			defer first.Close()

			hc := &http.Client{}
			b, err := New(Config{Token: testToken, APIURL: first.URL, HTTPClient: hc})
			if err != nil {
				t.Fatal(err)
			}
			_, meErr := b.Me(t.Context())                                      // through telego
			_, rawErr := b.call(t.Context(), "getUpdates", getUpdatesParams{}) // through call
			for _, err := range []error{meErr, rawErr} {
				if err == nil {
					t.Fatal("a redirected call succeeded")
				}
				secret := strings.Split(testToken, ":")[1]
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error leaks the token: %v", err)
				}
				u, _ := url.Parse(second.URL)
				want := fmt.Sprintf("answered %d, a redirect to %s, which is not followed", status, u.Host)
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error = %v, want it to say %q", err, want)
				}
			}
			if n := reached.Load(); n != 0 {
				t.Errorf("the redirect target received %d requests carrying the token", n)
			}
			if hc.CheckRedirect != nil {
				t.Error("New changed the caller's http.Client")
			}
		})
	}
}

// TestScrubEverySpelling checks that no spelling of the token survives in an error's text.
func TestScrubEverySpelling(t *testing.T) {
	id, secret, _ := strings.Cut(testToken, ":")
	spellings := map[string]string{
		"raw":             testToken,
		"escaped %3A":     id + "%3A" + secret,
		"escaped %3a":     id + "%3a" + secret,
		"secret alone":    secret,
		"double-escaped":  id + "%253A" + secret,
		"query parameter": url.QueryEscape(testToken),
	}
	for name, s := range spellings {
		t.Run(name, func(t *testing.T) {
			ue := &url.Error{Op: "Post", URL: "http://h/bot" + s + "/getMe", Err: context.DeadlineExceeded}
			for _, err := range []error{
				errors.New("no such thing as /bot" + s + "/sendMessage"),
				ue,
				fmt.Errorf("telego: getMe: %w", ue),
			} {
				got := redact(err, testToken)
				if strings.Contains(got.Error(), secret) {
					t.Errorf("redact(%q) = %q, leaks the token", err, got)
				}
				if _, ok := errors.AsType[*url.Error](got); ok {
					t.Errorf("redact(%q) still unwraps to a *url.Error", err)
				}
			}
			if !errors.Is(redact(ue, testToken), context.DeadlineExceeded) {
				t.Error("redact lost the cause of a *url.Error")
			}

			// Through the Bot: an API error quoting the URL, and Poll's log of it.
			f := newFakeAPI(t)
			f.on("sendMessage", errReply(400, "Bad Request: no such thing as /bot"+s+"/sendMessage", 0))
			f.on("getUpdates", errReply(409, "Conflict: terminated by other getUpdates request /bot"+s+"/getUpdates", 0))
			b, rec := f.bot(t)
			_, err := b.Send(t.Context(), mynah.Outgoing{Chat: 1, Text: "x"})
			if err == nil || strings.Contains(err.Error(), secret) {
				t.Errorf("Send = %v, want an error without the token", err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			b.wait = func(context.Context, time.Duration) error { cancel(); return ctx.Err() }
			if err := b.Poll(ctx, func(context.Context, mynah.Update) error { return nil }); err != nil {
				t.Fatal(err)
			}
			logs := rec.Logs()
			if !strings.Contains(logs, "getUpdates failed") {
				t.Fatalf("the 409 was not logged:\n%s", logs)
			}
			if strings.Contains(logs, secret) {
				t.Errorf("logs leak the token:\n%s", logs)
			}
		})
	}
}
