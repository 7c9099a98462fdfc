package lane_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/lane"
)

// takenOver is a store shared with another instance that has taken the chats over: it
// refuses every Hold until given back, and counts the Holds asked.
type takenOver struct {
	lane.Store
	mu    sync.Mutex
	mine  bool
	holds int
}

func (s *takenOver) Hold(ctx context.Context, partID int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holds++
	if !s.mine {
		return mynah.ErrNotHeld
	}
	return s.Store.Hold(ctx, partID)
}

func (s *takenOver) giveBack() {
	s.mu.Lock()
	s.mine = true
	s.mu.Unlock()
}

func (s *takenOver) asked() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.holds
}

// TestNotHeldSendsNothing: a runner whose chat another instance took over (its Hold
// refused) sends nothing of the reply it holds and does not keep trying; once the chat is
// its own again, the reply goes out once.
func TestNotHeldSendsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := openDB(t)
		store := &takenOver{Store: db}
		tg := &fakeTelegram{}
		r := faultRunner(t, db, store, tg, []lane.Model{{Model: &fakeModel{}, Name: "fake/m", ID: "m"}}, lane.Options{Poll: 2 * time.Second})
		stop := start(t, r)
		defer stop()
		message(t, db, 1, dm, alice, 1, "hello")
		r.Wake()
		settle(time.Minute)
		if sent := tg.Sent(); len(sent) != 0 {
			t.Fatalf("a runner whose chat was taken over sent %d messages, want none", len(sent))
		}
		if n := store.asked(); n == 0 || n > 31 {
			t.Errorf("the runner asked to hold the chat %d times in a minute, want at most one per poll (2 s)", n)
		}
		store.giveBack()
		settle(time.Minute)
		if sent := tg.Sent(); len(sent) != 1 {
			t.Errorf("once the chat was given back the reply was sent %d times, want once", len(sent))
		}
	})
}
