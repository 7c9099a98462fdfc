package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mynah-ai/mynah"
)

// testDedupe: Telegram redelivers an update whose acknowledgement was lost; the second
// delivery must change nothing, or the agent would answer twice.
func testDedupe(t *testing.T, b Backend) {
	s := b.Open(t)
	first := message(dm, 1, "hello")
	accept(t, s, agentA, 500, mynah.Intake{Chat: dm, Users: []mynah.User{alice}, Message: first,
		Turn: &mynah.Turn{Target: 1}})

	again := message(dm, 2, "a different message under the same update id")
	ok, err := s.Accept(t.Context(), agentA, 500, mynah.Intake{Chat: dm, Message: again, Turn: &mynah.Turn{Target: 2}})
	if err != nil || ok {
		t.Fatalf("second Accept of update 500 = %t, %v; want false, nil", ok, err)
	}
	if got, want := ids(history(t, s, agentA, dm.ID, 0, 0, 10)), []mynah.MessageID{1}; !cmp.Equal(got, want) {
		t.Errorf("history ids = %v, want %v (the duplicate changed nothing)", got, want)
	}
	if got := pendingTurns(t, s, agentA, 10); len(got) != 1 || got[0].Target != 1 {
		t.Errorf("pending turns = %+v, want the first update's turn only", got)
	}
	// Update ids are per bot: another agent's update 500 is a different update.
	accept(t, s, agentB, 500, mynah.Intake{Chat: dm, Message: message(dm, 1, "hello")})
}

// testDedupeSurvivesReopen: a restart must not forget which updates were handled.
func testDedupeSurvivesReopen(t *testing.T, b Backend) {
	if b.Reopen == nil {
		t.Skip("backend has no Reopen")
	}
	s := b.Open(t)
	accept(t, s, agentA, 77, mynah.Intake{Chat: dm, Message: message(dm, 1, "before the restart")})
	s = b.Reopen(t, s)
	ok, err := s.Accept(t.Context(), agentA, 77, mynah.Intake{Chat: dm, Message: message(dm, 2, "redelivered")})
	if err != nil || ok {
		t.Fatalf("Accept after reopen = %t, %v; want false, nil", ok, err)
	}
	if got := getMessage(t, s, agentA, dm.ID, 1); got.Text != "before the restart" {
		t.Errorf("message 1 after reopen: text %q", got.Text)
	}
}

// testDedupeConcurrent: two deliveries of one update racing each other are accepted once.
func testDedupeConcurrent(t *testing.T, b Backend) {
	s := b.Open(t)
	const updates, copies = 20, 4
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		accepted = map[int64]int{}
	)
	for c := range copies {
		wg.Go(func() {
			for u := range int64(updates) {
				msg := message(dm, int(u)+1, fmt.Sprintf("copy %d of %d", c, u))
				ok, err := s.Accept(t.Context(), agentA, u, mynah.Intake{Chat: dm, Message: msg, Turn: &mynah.Turn{Target: msg.ID}})
				if err != nil {
					t.Errorf("Accept(%d): %v", u, err)
					return
				}
				if ok {
					mu.Lock()
					accepted[u]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for u := range int64(updates) {
		if accepted[u] != 1 {
			t.Errorf("update %d accepted %d times, want 1", u, accepted[u])
		}
	}
	if got := len(pendingTurns(t, s, agentA, 100)); got != updates {
		t.Errorf("%d pending turns, want %d", got, updates)
	}
}

// testConcurrentAccepts: several chats writing at once (one goroutine each, as the poller
// and webhook do) must all succeed; a backend's lock contention must not surface.
func testConcurrentAccepts(t *testing.T, b Backend) {
	s := b.Open(t)
	const writers, each = 8, 40
	var wg sync.WaitGroup
	for w := range writers {
		chat := mynah.Chat{ID: mynah.ChatID(1000 + w), Type: mynah.ChatPrivate}
		wg.Go(func() {
			for i := range each {
				msg := message(chat, i+1, fmt.Sprintf("writer %d message %d", w, i))
				in := mynah.Intake{Chat: chat, Users: []mynah.User{alice, carol}, Message: msg}
				if i%10 == 0 {
					in.Turn = &mynah.Turn{Target: msg.ID}
				}
				ok, err := s.Accept(t.Context(), agentA, int64(w*each+i), in)
				if err != nil || !ok {
					t.Errorf("Accept(writer %d, %d) = %t, %v", w, i, ok, err)
					return
				}
			}
		})
	}
	// Readers run alongside the writers.
	for w := range writers {
		wg.Go(func() {
			for range each / 4 {
				if _, err := s.History(t.Context(), agentA, mynah.ChatID(1000+w), 0, 0, 20); err != nil {
					t.Errorf("History during writes: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	for w := range writers {
		if got := len(history(t, s, agentA, mynah.ChatID(1000+w), 0, 0, 1000)); got != each {
			t.Errorf("chat of writer %d holds %d messages, want %d", w, got, each)
		}
	}
	if got, want := len(pendingTurns(t, s, agentA, 1000)), writers*each/10; got != want {
		t.Errorf("%d pending turns, want %d", got, want)
	}
}

// testInvalidIntake: an intake that cannot be applied is an error and is not marked
// handled, so fixing the caller and retrying works.
func testInvalidIntake(t *testing.T, b Backend) {
	s := b.Open(t)
	for _, in := range []mynah.Intake{
		{Chat: dm, Reset: true},
		{Chat: dm, Edit: true},
		{Chat: dm, Message: message(group, 1, "chat mismatch")},
	} {
		if ok, err := s.Accept(t.Context(), agentA, 1, in); err == nil || ok {
			t.Errorf("Accept(%+v) = %t, %v; want an error", in, ok, err)
		}
	}
	accept(t, s, agentA, 1, mynah.Intake{Chat: dm, Message: message(dm, 1, "valid")})
}

// testResentMessage: a message delivered again under a new update id (after a crash)
// stays one message.
func testResentMessage(t *testing.T, b Backend) {
	s := b.Open(t)
	accept(t, s, agentA, 1, mynah.Intake{Chat: dm, Message: message(dm, 5, "once")})
	accept(t, s, agentA, 2, mynah.Intake{Chat: dm, Message: message(dm, 5, "once")})
	if got := ids(history(t, s, agentA, dm.ID, 0, 0, 10)); !cmp.Equal(got, []mynah.MessageID{5}) {
		t.Errorf("history ids = %v, want [5]", got)
	}
}

// testReplayedMessage: a message replayed under a new update id (a webhook replay) is
// accepted as an update but queues no second turn and no second reset; an edit of it is
// not a new message either.
func testReplayedMessage(t *testing.T, b Backend) {
	s := b.Open(t)
	msg := message(dm, 5, "/reset please")
	accept(t, s, agentA, 1, mynah.Intake{Chat: dm, Message: msg, Reset: true, Turn: &mynah.Turn{Target: 5, Static: "Reset."}})
	post(t, s, agentA, message(dm, 6, "later"))
	accept(t, s, agentA, 2, mynah.Intake{Chat: dm, Message: msg, Reset: true, Turn: &mynah.Turn{Target: 5, Static: "Reset."}})
	edit := *msg
	edit.Text, edit.Edited = "/reset please!", at(50)
	accept(t, s, agentA, 3, mynah.Intake{Chat: dm, Message: &edit, Edit: true})
	if got := pendingTurns(t, s, agentA, 10); len(got) != 1 || got[0].Target != 5 {
		t.Errorf("pending turns = %+v, want the first delivery's only", got)
	}
	if sess, err := s.Session(t.Context(), agentA, dm.ID, 0); err != nil || sess.Start != 5 {
		t.Errorf("session = %+v, %v; want the one reset at 5", sess, err)
	}
	// A later reset stays in force when the earlier one is replayed.
	reset := message(dm, 7, "/reset")
	accept(t, s, agentA, 4, mynah.Intake{Chat: dm, Message: reset, Reset: true})
	accept(t, s, agentA, 5, mynah.Intake{Chat: dm, Message: msg, Reset: true})
	if sess, err := s.Session(t.Context(), agentA, dm.ID, 0); err != nil || sess.Start != 7 {
		t.Errorf("session after a replayed older reset = %+v, %v; want the reset at 7", sess, err)
	}
}

// testEdit: an edit replaces what the message says and keeps its place in history.
func testEdit(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(dm, 1, "before"))
	orig := message(dm, 2, "teh cat")
	orig.ReplyTo = &mynah.ReplyRef{ID: 1, Sender: alice, Text: "before"}
	orig.Media = []mynah.Media{{Kind: mynah.MediaPhoto, FileID: "p1"}}
	post(t, s, agentA, orig)
	post(t, s, agentA, message(dm, 3, "after"))

	edit := *orig
	edit.Text = "the cat @bob"
	edit.Entities = []mynah.Entity{{Type: "mention", Offset: 8, Length: 4}}
	edit.Media = []mynah.Media{{Kind: mynah.MediaPhoto, FileID: "p2"}}
	edit.Edited = at(100)
	accept(t, s, agentA, 99, mynah.Intake{Chat: dm, Message: &edit, Edit: true})

	want := stored(agentA, &edit)
	if diff := cmp.Diff(getMessage(t, s, agentA, dm.ID, 2), want, cmpOpts); diff != "" {
		t.Errorf("edited message (-got +want):\n%s", diff)
	}
	h := history(t, s, agentA, dm.ID, 0, 0, 10)
	if got := ids(h); !cmp.Equal(got, []mynah.MessageID{1, 2, 3}) {
		t.Fatalf("history ids after edit = %v, want [1 2 3]", got)
	}
	if diff := cmp.Diff(h[1], want, cmpOpts); diff != "" {
		t.Errorf("edited message in history (-got +want):\n%s", diff)
	}
}

// testEditUnknown: an edit of a message the store never saw stores the edited message.
func testEditUnknown(t *testing.T, b Backend) {
	s := b.Open(t)
	edit := message(dm, 9, "edited before we saw it")
	edit.Edited = at(50)
	accept(t, s, agentA, 1, mynah.Intake{Chat: dm, Message: edit, Edit: true})
	if diff := cmp.Diff(getMessage(t, s, agentA, dm.ID, 9), stored(agentA, edit), cmpOpts); diff != "" {
		t.Errorf("message stored from an edit (-got +want):\n%s", diff)
	}
}

// testReset: /reset starts a new conversation for the prompt but deletes nothing.
func testReset(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	if got, err := s.Session(ctx, agentA, group.ID, 0); err != nil || got.Start != 0 {
		t.Fatalf("Session before any reset = %+v, %v; want Start 0", got, err)
	}
	for id := 1; id <= 4; id++ {
		post(t, s, agentA, message(group, id, "old"))
	}
	reset := message(group, 5, "/reset")
	accept(t, s, agentA, 5, mynah.Intake{Chat: group, Message: reset, Reset: true})
	for id := 6; id <= 7; id++ {
		post(t, s, agentA, message(group, id, "new"))
	}

	sess, err := s.Session(ctx, agentA, group.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := mynah.Session{Agent: agentA, Chat: group.ID, Start: 5, Started: reset.Time}
	if diff := cmp.Diff(sess, want, cmpOpts); diff != "" {
		t.Errorf("Session (-got +want):\n%s", diff)
	}
	if got := ids(history(t, s, agentA, group.ID, 0, sess.Start, 50)); !cmp.Equal(got, []mynah.MessageID{6, 7}) {
		t.Errorf("history after the reset = %v, want [6 7]", got)
	}
	if got := getMessage(t, s, agentA, group.ID, 1); got.Text != "old" {
		t.Errorf("message 1 after the reset: text %q, want it kept", got.Text)
	}
	if got := len(history(t, s, agentA, group.ID, 0, 0, 50)); got != 7 {
		t.Errorf("whole history after the reset holds %d messages, want 7", got)
	}
	// The current session is the latest reset; other chats are unaffected.
	accept(t, s, agentA, 8, mynah.Intake{Chat: group, Message: message(group, 8, "/reset"), Reset: true})
	if got, err := s.Session(ctx, agentA, group.ID, 0); err != nil || got.Start != 8 {
		t.Errorf("Session after a second reset = %+v, %v; want Start 8", got, err)
	}
	if got, err := s.Session(ctx, agentA, dm.ID, 0); err != nil || got.Start != 0 {
		t.Errorf("Session of another chat = %+v, %v; want Start 0", got, err)
	}
}

// testAcceptReturnsTurn: the turn an intake queues comes back filled in as stored, its id
// that of the pending turn, so the runtime can be told of it without reading the queue;
// a replayed message queues nothing and its turn keeps no id.
func testAcceptReturnsTurn(t *testing.T, b Backend) {
	s := b.Open(t)
	turn := &mynah.Turn{Target: 1, ReplyTo: 1}
	accept(t, s, agentA, 1, mynah.Intake{Chat: dm, Message: message(dm, 1, "hello"), Turn: turn})
	pending := pendingTurns(t, s, agentA, 10)
	if len(pending) != 1 {
		t.Fatalf("PendingTurns = %+v, want one", pending)
	}
	if diff := cmp.Diff(*turn, pending[0], cmpOpts, cmpopts.IgnoreFields(mynah.Turn{}, "Created")); diff != "" {
		t.Errorf("the accepted turn (-got +want):\n%s", diff)
	}
	if turn.ID == 0 || turn.Created.IsZero() {
		t.Errorf("the accepted turn has id %d and created %v, want both set", turn.ID, turn.Created)
	}
	replay := &mynah.Turn{Target: 1, ReplyTo: 1}
	accept(t, s, agentA, 2, mynah.Intake{Chat: dm, Message: message(dm, 1, "hello"), Turn: replay})
	if replay.ID != 0 {
		t.Errorf("a replayed message's turn got id %d; it queued nothing", replay.ID)
	}
}
