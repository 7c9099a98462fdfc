package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
)

// TestTokenNeverLeaks drives every error path that could carry the request URL and checks
// that neither the errors nor the logs contain the token.
func TestTokenNeverLeaks(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close() // connections are now refused: the transport's error names the URL

	rec := &recorder{}
	b, err := New(Config{Token: testToken, APIURL: deadURL, Logger: newTestLogger(rec)})
	if err != nil {
		t.Fatal(err)
	}
	var errs []error
	_, err = b.Send(t.Context(), mynah.Outgoing{Chat: 1, Text: "x"})
	errs = append(errs, err)
	errs = append(errs, b.EditText(t.Context(), 1, 2, "x", false, nil))
	_, err = b.Me(t.Context())
	errs = append(errs, err)

	ctx, cancel := context.WithCancel(t.Context())
	n := 0
	b.wait = func(context.Context, time.Duration) error {
		if n++; n == 3 {
			cancel()
		}
		return ctx.Err()
	}
	if err := b.Poll(ctx, func(context.Context, mynah.Update) error { return nil }); err != nil {
		t.Errorf("Poll = %v, want nil after cancel", err)
	}

	// A server that quotes the URL back in its description.
	f := newFakeAPI(t)
	f.on("sendMessage", errReply(400, "Bad Request: no such thing as /bot"+testToken+"/sendMessage", 0))
	fb, frec := f.bot(t)
	_, err = fb.Send(t.Context(), mynah.Outgoing{Chat: 1, Text: "x"})
	errs = append(errs, err)

	for i, err := range errs {
		if err == nil {
			t.Errorf("error %d is nil", i)
			continue
		}
		for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			if strings.Contains(s, testToken) || strings.Contains(s, strings.Split(testToken, ":")[1]) {
				t.Errorf("error %d leaks the token: %s", i, s)
			}
		}
		if _, ok := errors.AsType[*url.Error](err); ok {
			t.Errorf("error %d unwraps to a *url.Error, which holds the URL: %v", i, err)
		}
	}
	logs := rec.Logs() + frec.Logs()
	if !strings.Contains(logs, "getUpdates failed") {
		t.Errorf("Poll's failures were not logged:\n%s", logs)
	}
	if strings.Contains(logs, strings.Split(testToken, ":")[1]) {
		t.Errorf("logs leak the token:\n%s", logs)
	}
}

func TestCancelledCallKeepsCause(t *testing.T) {
	f := newFakeAPI(t)
	b, _ := f.bot(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := b.Typing(ctx, 1, 0)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Typing with a cancelled context = %v, want context.Canceled in the chain", err)
	}
	if strings.Contains(err.Error(), testToken) {
		t.Errorf("error leaks the token: %v", err)
	}
}

func TestConfigAndBotPrintWithoutToken(t *testing.T) {
	cfg := Config{Token: testToken, APIURL: "http://127.0.0.1:1"}
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	newTestLogger(rec).Info("starting", "config", cfg, "bot", b)
	secret := strings.Split(testToken, ":")[1]
	for _, s := range []string{
		fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprintf("%v", &cfg),
		fmt.Sprint(b), fmt.Sprintf("%+v", b), fmt.Sprintf("%#v", b), rec.Logs(),
	} {
		if strings.Contains(s, secret) {
			t.Errorf("printed form leaks the token: %s", s)
		}
	}
}
