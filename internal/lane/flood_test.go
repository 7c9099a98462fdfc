package lane_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/lane"
)

// floodTelegram answers every send with flood control (retry after 1 s) until its
// storm ends, and chats in long with a wait of an hour, always.
type floodTelegram struct {
	*fakeTelegram
	until time.Time
	long  mynah.ChatID
	mu    sync.Mutex
	tries int
}

func (f *floodTelegram) Send(ctx context.Context, o mynah.Outgoing) (mynah.Message, error) {
	f.mu.Lock()
	f.tries++
	f.mu.Unlock()
	if o.Chat == f.long && f.long != 0 {
		return mynah.Message{}, &mynah.RetryAfterError{After: time.Hour}
	}
	if time.Now().Before(f.until) {
		return mynah.Message{}, &mynah.RetryAfterError{After: time.Second}
	}
	return f.fakeTelegram.Send(ctx, o)
}

// TestFloodStormLosesNothing: 200 s of flood control (retry after 1 s) on three chats
// loses no reply and sends none twice.
func TestFloodStormLosesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := openDB(t)
		tg := &floodTelegram{fakeTelegram: &fakeTelegram{}, until: time.Now().Add(200 * time.Second)}
		r := faultRunner(t, db, nil, tg, []lane.Model{{Model: &fakeModel{}, Name: "fake/m", ID: "m"}}, lane.Options{})
		for i := range 3 {
			user := mynah.User{ID: mynah.UserID(100 + i), FirstName: "User"}
			message(t, db, int64(i+1), mynah.Chat{ID: mynah.ChatID(user.ID), Type: mynah.ChatPrivate}, user, 1, "hi")
		}
		stop := start(t, r)
		settle(199 * time.Second)
		if n := len(tg.Sent()); n != 0 {
			t.Fatalf("%d replies sent during the storm", n)
		}
		settle(5 * time.Second)
		stop()
		var chats []mynah.ChatID
		for _, o := range tg.Sent() {
			chats = append(chats, o.Chat)
		}
		slices.Sort(chats)
		if !slices.Equal(chats, []mynah.ChatID{100, 101, 102}) {
			t.Errorf("replies went to chats %v, want one to each of 100, 101, 102", chats)
		}
		if left, _ := db.PendingParts(t.Context(), "Mynah", 10); len(left) != 0 {
			t.Errorf("parts left pending: %+v", left)
		}
	})
}

// TestFloodWaitHoldsOnlyItsChat: a chat told to wait an hour waits without holding the
// runner's only lane: another chat is answered meanwhile, shutdown does not wait for the
// hour, and the waiting reply is kept for later, not dropped.
func TestFloodWaitHoldsOnlyItsChat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := openDB(t)
		tg := &floodTelegram{fakeTelegram: &fakeTelegram{}, long: dm.ID}
		r := faultRunner(t, db, nil, tg, []lane.Model{{Model: &fakeModel{}, Name: "fake/m", ID: "m"}}, lane.Options{Parallel: 1})
		message(t, db, 1, dm, alice, 1, "hi")
		stop := start(t, r)
		settle(time.Second)
		bob := mynah.User{ID: 43, FirstName: "Bob"}
		message(t, db, 2, mynah.Chat{ID: 43, Type: mynah.ChatPrivate}, bob, 1, "hello")
		r.Wake()
		settle(time.Second)
		if sent := tg.Sent(); len(sent) != 1 || sent[0].Chat != 43 {
			t.Errorf("sent %+v, want Bob's answer while Alice's chat waits", sent)
		}
		began := time.Now()
		stop()
		if took := time.Since(began); took != 0 {
			t.Errorf("shutdown took %v with only an hour's flood wait left, want no wait", took)
		}
		left, _ := db.PendingParts(t.Context(), "Mynah", 10)
		if len(left) != 1 || left[0].Chat != dm.ID || left[0].Attempts != 0 {
			t.Errorf("pending parts %+v, want Alice's reply, no try counted", left)
		}
	})
}
