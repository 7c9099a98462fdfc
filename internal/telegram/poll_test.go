package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

// textUpdate is a private text message update with the given id.
func textUpdate(id int64) string {
	return fmt.Sprintf(`{"update_id":%d,"message":{"message_id":%d,"date":1763683200,`+
		`"chat":{"id":5551234,"type":"private","first_name":"Anna"},`+
		`"from":{"id":5551234,"is_bot":false,"first_name":"Anna"},"text":"m%d"}}`, id, id, id)
}

// startPoll runs b.Poll(ctx, h) and returns a channel with its result.
func startPoll(ctx context.Context, b *Bot, h Handler) <-chan error {
	done := make(chan error, 1)
	go func() { done <- b.Poll(ctx, h) }()
	return done
}

// getUpdatesCalls returns the parameters of every getUpdates the fake received.
func getUpdatesCalls(f *fakeAPI) []map[string]any {
	var out []map[string]any
	for _, c := range f.recorded("getUpdates") {
		out = append(out, c.Params)
	}
	return out
}

// poll is a long poll as Poll sends it: asking by name for every kind mynah uses, so that
// reactions and member changes, which Telegram sends only when asked, arrive.
func poll(offset int64) map[string]any {
	p := map[string]any{"limit": 100.0, "timeout": 50.0, "allowed_updates": allowedKinds()}
	if offset > 0 {
		p["offset"] = float64(offset)
	}
	return p
}

func confirmation(offset int64) map[string]any {
	return map[string]any{"offset": float64(offset), "limit": 1.0, "timeout": 0.0}
}

func TestPollRedeliversUpdateWhoseHandlerFailed(t *testing.T) {
	f := newFakeAPI(t)
	f.push(textUpdate(1), textUpdate(2), textUpdate(3))
	b, rec := f.bot(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	var handled []string
	failed := false
	err := <-startPoll(ctx, b, func(ctx context.Context, u mynah.Update) error {
		if u.ID == 2 && !failed {
			failed = true
			handled = append(handled, "2 failed")
			return errors.New("store is down")
		}
		handled = append(handled, fmt.Sprintf("%d %s", u.ID, u.Message.Text))
		if u.ID == 3 {
			cancel()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Poll = %v, want nil after cancel", err)
	}
	if diff := cmp.Diff(handled, []string{"1 m1", "2 failed", "2 m2", "3 m3"}); diff != "" {
		t.Errorf("handled (-got +want):\n%s", diff)
	}
	// After the failure Poll asks again from 2: update 2 is not confirmed, it comes back.
	// On stop it confirms what it handled.
	if diff := cmp.Diff(getUpdatesCalls(f), []map[string]any{poll(0), poll(2), confirmation(4)}); diff != "" {
		t.Errorf("getUpdates calls (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(rec.Waits(), []time.Duration{minBackoff}); diff != "" {
		t.Errorf("waits (-got +want):\n%s", diff)
	}
	if !strings.Contains(rec.Logs(), "store is down") {
		t.Errorf("the handler's error was not logged:\n%s", rec.Logs())
	}
}

func TestPollStopsOnCancel(t *testing.T) {
	f := newFakeAPI(t)
	b, _ := f.bot(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := startPoll(ctx, b, func(context.Context, mynah.Update) error {
		t.Error("handler called without updates")
		return nil
	})
	if got := <-f.polled; got != 0 {
		t.Errorf("first long poll offset = %d, want 0", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Poll = %v, want nil", err)
	}
	if diff := cmp.Diff(getUpdatesCalls(f), []map[string]any{poll(0)}); diff != "" {
		t.Errorf("getUpdates calls (-got +want):\n%s", diff)
	}
}

func TestPollSkipsMalformedUpdate(t *testing.T) {
	f := newFakeAPI(t)
	f.push(textUpdate(1), `{"update_id":2,"message":"not a message"}`, textUpdate(3))
	b, rec := f.bot(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var handled []int64
	err := <-startPoll(ctx, b, func(_ context.Context, u mynah.Update) error {
		handled = append(handled, u.ID)
		if u.ID == 3 {
			cancel()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Poll = %v", err)
	}
	if diff := cmp.Diff(handled, []int64{1, 3}); diff != "" {
		t.Errorf("handled (-got +want):\n%s", diff)
	}
	if logs := rec.Logs(); !strings.Contains(logs, "skipping malformed update") || !strings.Contains(logs, "update_id=2") {
		t.Errorf("malformed update not logged with its id:\n%s", logs)
	}
	if diff := cmp.Diff(getUpdatesCalls(f), []map[string]any{poll(0), confirmation(4)}); diff != "" {
		t.Errorf("getUpdates calls (-got +want):\n%s", diff)
	}
}

func TestPollBacksOffOnAPIErrors(t *testing.T) {
	f := newFakeAPI(t)
	f.on("getUpdates",
		errReply(http.StatusConflict, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running", 0),
		errReply(http.StatusTooManyRequests, "Too Many Requests: retry after 7", 7),
		reply{http.StatusBadGateway, "<html>Bad Gateway</html>"},
	)
	f.push(textUpdate(10))
	b, rec := f.bot(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	err := <-startPoll(ctx, b, func(context.Context, mynah.Update) error {
		cancel()
		return nil
	})
	if err != nil {
		t.Fatalf("Poll = %v", err)
	}
	want := []time.Duration{minBackoff, 7 * time.Second, 4 * minBackoff}
	if diff := cmp.Diff(rec.Waits(), want); diff != "" {
		t.Errorf("waits (-got +want):\n%s", diff)
	}
	if logs := rec.Logs(); !strings.Contains(logs, "Conflict: terminated by other getUpdates request") {
		t.Errorf("conflict not logged:\n%s", logs)
	}
}

func TestPollStopsOnUnauthorized(t *testing.T) {
	f := newFakeAPI(t)
	f.on("getUpdates", errReply(http.StatusUnauthorized, "Unauthorized", 0))
	b, _ := f.bot(t)
	err := <-startPoll(t.Context(), b, func(context.Context, mynah.Update) error { return nil })
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.Code != http.StatusUnauthorized {
		t.Fatalf("Poll = %v, want a 401 *Error", err)
	}
}

func TestBackoffIsBounded(t *testing.T) {
	var got []time.Duration
	for n := range 9 {
		got = append(got, backoff(n))
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second,
		8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("backoff (-got +want):\n%s", diff)
	}
}
