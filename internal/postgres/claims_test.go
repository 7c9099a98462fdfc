package postgres

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
)

// instances opens n serving instances on one fresh schema, as n mynah processes sharing
// a database would.
func instances(t *testing.T, n int) []*DB {
	t.Helper()
	dsn := tempSchema(t)
	out := make([]*DB, n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range out {
		wg.Go(func() { // at once: the migration must run once, under its lock
			out[i], errs[i] = Open(t.Context(), dsn, Options{MaxConns: 4, Serve: true})
		})
	}
	wg.Wait()
	for i, db := range out {
		if errs[i] != nil {
			t.Fatalf("instance %d: %v", i, errs[i])
		}
		t.Cleanup(func() { db.Close() })
	}
	return out
}

func queue(t *testing.T, db *DB, chat mynah.ChatID, id int) {
	t.Helper()
	msg := &mynah.Message{Chat: mynah.ChatFromID(chat), ID: mynah.MessageID(id), Sender: mynah.User{ID: 5, FirstName: "U"}, Time: time.Now(), Text: "hi"}
	if _, err := db.Accept(t.Context(), "ada", int64(chat)*1000+int64(id), mynah.Intake{Message: msg, Turn: &mynah.Turn{Target: msg.ID}}); err != nil {
		t.Fatal(err)
	}
}

func chatsOf(ts []mynah.Turn) map[mynah.ChatID]int {
	out := map[mynah.ChatID]int{}
	for _, t := range ts {
		out[t.Chat]++
	}
	return out
}

// TestClaimsReleasedOnClose: an instance that closes (a mynah stopped or restarted) gives
// up its chats, so that the next takes them over at once, not after their leases.
func TestClaimsReleasedOnClose(t *testing.T) {
	dbs := instances(t, 2)
	a, b := dbs[0], dbs[1]
	queue(t, a, 1, 1)
	if ta, err := a.PendingTurns(t.Context(), "ada", time.Now(), 10); err != nil || len(ta) != 1 {
		t.Fatalf("first instance sees turns %v, %v; want chat 1's", ta, err)
	}
	a.Close()
	queue(t, b, 1, 2)
	tb, err := b.PendingTurns(t.Context(), "ada", time.Now(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := chatsOf(tb); got[1] != 2 {
		t.Errorf("after the first instance closed the second sees turns of %v, want chat 1's 2 at once (lease %v)", got, b.claims.lease)
	}
}

// TestClaimsCrewTurn: a crew member's turn, which the instance that queues it runs
// itself, comes with the member's chat claimed, so that its answer goes out at once
// instead of being left, unheld, to the next scan of the outbox.
func TestClaimsCrewTurn(t *testing.T) {
	db := instances(t, 1)[0]
	const chat = mynah.ChatID(-100777)
	st := mynah.CrewState{Crew: "team", Chat: chat, Members: []mynah.CrewMember{{Agent: "ada"}, {Agent: "bob"}}}
	saved, err := db.SaveCrew(t.Context(), st, &mynah.Turn{Agent: "bob", Chat: chat, Static: "hi"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := db.FinishTurn(t.Context(), saved.Turn, []mynah.OutPart{{Key: "k1", Plain: "bob's answer"}})
	if err != nil || len(parts) != 1 {
		t.Fatalf("FinishTurn: %v, %v", parts, err)
	}
	db.claims.holding(parts[0].ID) // as after the first send's window: Hold asks the database
	if err := db.Hold(t.Context(), parts[0].ID); err != nil {
		t.Errorf("Hold of the crew member's answer: %v", err)
	}
}

// TestClaimsCrewTurnElsewhere: a crew member's turn queued by one instance where another
// serves the member's chat is the other's alone. The queuing instance gets no ID, so its
// crew engine does not run the turn too: two model calls, the second answer refused.
func TestClaimsCrewTurnElsewhere(t *testing.T) {
	dbs := instances(t, 2)
	a, b := dbs[0], dbs[1]
	const chat = mynah.ChatID(-100778)
	st := mynah.CrewState{Crew: "team", Chat: chat, Members: []mynah.CrewMember{{Agent: "ada"}, {Agent: "bob"}}}
	first := &mynah.Turn{Agent: "ada", Chat: chat, Static: "hi"}
	saved, err := a.SaveCrew(t.Context(), st, first, 0)
	if err != nil {
		t.Fatal(err)
	}
	if first.ID == 0 || first.ID != saved.Turn {
		t.Fatalf("turn queued where nobody served the chat: ID %d, want the crew's turn %d", first.ID, saved.Turn)
	}
	next := &mynah.Turn{Agent: "ada", Chat: chat, Static: "again"}
	saved, err = b.SaveCrew(t.Context(), saved, next, 0)
	if err != nil {
		t.Fatal(err)
	}
	if next.ID != 0 {
		t.Errorf("turn queued by the second instance in the first's chat: ID %d, want 0 (the first runs it)", next.ID)
	}
	if tb, err := b.PendingTurns(t.Context(), "ada", time.Now(), 10); err != nil || len(tb) != 0 {
		t.Errorf("second instance sees turns %v, %v; want none of the first's chat", tb, err)
	}
	ta, err := a.PendingTurns(t.Context(), "ada", time.Now(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ta, func(x mynah.Turn) bool { return x.ID == saved.Turn }) {
		t.Errorf("first instance sees turns %v, want the second's queued turn %d among them", ta, saved.Turn)
	}
}

// TestClaimsOneInstancePerChat: of two instances, each chat's turns go to one, and when
// that one dies the other takes them over at once; the dead one's late answer is refused.
func TestClaimsOneInstancePerChat(t *testing.T) {
	dbs := instances(t, 2)
	a, b := dbs[0], dbs[1]
	b.claims.lease = 0 // no lease delays the takeover (TestClaimsHoldFences checks it)
	queue(t, a, 1, 1)
	queue(t, a, 2, 1)
	ta, err := a.PendingTurns(t.Context(), "ada", time.Now(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ta) != 2 {
		t.Fatalf("first instance sees %d turns, want both chats' 2", len(ta))
	}
	queue(t, b, 3, 1)
	queue(t, b, 1, 2) // a holds chat 1: its new turn is a's too
	tb, err := b.PendingTurns(t.Context(), "ada", time.Now(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := chatsOf(tb); len(got) != 1 || got[3] != 1 {
		t.Errorf("second instance sees turns of %v, want chat 3's only", got)
	}
	ta, _ = a.PendingTurns(t.Context(), "ada", time.Now(), 10)
	if got := chatsOf(ta); got[1] != 2 || got[2] != 1 || got[3] != 0 {
		t.Errorf("first instance sees turns of %v, want chats 1 (2 turns) and 2", got)
	}
	parts, err := a.FinishTurn(t.Context(), ta[0].ID, []mynah.OutPart{{Key: "k1", Plain: "one"}})
	if err != nil || len(parts) != 1 {
		t.Fatalf("FinishTurn by the holder: %v, %v", parts, err)
	}
	if pb, err := b.PendingParts(t.Context(), "ada", 10); err != nil || len(pb) != 0 {
		t.Errorf("second instance sees parts %v, %v; want none of the first's chat", pb, err)
	}

	// a's presence ends (its connection is cut, as by a network partition or its
	// death): b takes chats 1 and 2 at its next scan, the part a did not send included.
	stale := ta[1]
	cutOff(t, a, b)
	// b reads who is alive at most every liveEvery: it takes over within that.
	for start := time.Now(); time.Since(start) < 5*liveEvery; time.Sleep(50 * time.Millisecond) {
		if tb, err = b.PendingTurns(t.Context(), "ada", time.Now(), 10); err != nil {
			t.Fatal(err)
		}
		if len(tb) == 2 {
			break
		}
	}
	// Chat 1 has a part a did not send: a scan of the turns leaves it to one of the
	// outbox, which takes it over with its part, so that the part goes out first.
	if got := chatsOf(tb); got[1] != 0 || got[2] != 1 || got[3] != 1 {
		t.Errorf("after the first instance died the second sees turns of %v, want chats 2 and 3", got)
	}
	if pb, err := b.PendingParts(t.Context(), "ada", 10); err != nil || len(pb) != 1 {
		t.Errorf("after the first instance died the second sees parts %v, %v; want its unsent one", pb, err)
	}
	if tb, err = b.PendingTurns(t.Context(), "ada", time.Now(), 10); err != nil || len(tb) != 3 {
		t.Errorf("once it read the outbox the second sees turns %v, %v; want every chat's", chatsOf(tb), err)
	}
	// a comes back (Coordinate reconnects it): the turn it was running now belongs to
	// b, and a's answer is refused.
	a.claims.close()
	conn, err := a.presenceConn(t.Context(), a.claims.owner)
	if err != nil {
		t.Fatal(err)
	}
	a.claims.presence = conn
	if _, err := a.FinishTurn(t.Context(), stale.ID, []mynah.OutPart{{Key: "stale", Plain: "late"}}); !errors.Is(err, errClaimLost) || !errors.Is(err, mynah.ErrNotHeld) {
		t.Errorf("FinishTurn by the instance that lost the chat = %v, want %v", err, errClaimLost)
	}
	if _, err := b.FinishTurn(t.Context(), stale.ID, []mynah.OutPart{{Key: "fresh", Plain: "answer"}}); err != nil {
		t.Errorf("FinishTurn by the new holder: %v", err)
	}
}

// cutOff ends a's presence, as a network partition or its death would, and waits until
// b sees it gone.
func cutOff(t *testing.T, a, b *DB) {
	t.Helper()
	if _, err := b.pool.Exec(t.Context(), `SELECT pg_terminate_backend($1)`, a.claims.conn().PgConn().PID()); err != nil {
		t.Fatal(err)
	}
	for range 100 { // the server ends the backend, and its lock, a moment later
		var held bool
		if err := b.pool.QueryRow(t.Context(), `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND ((classid::bigint << 32) | objid::bigint) = $1)`, a.claims.owner).Scan(&held); err != nil || !held {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.claims.mu.Lock()
	b.claims.liveRead = time.Time{} // b's next scan reads who is alive
	b.claims.mu.Unlock()
}

// TestClaimsHoldFences: an instance about to send a part holds its chat's lease, which
// keeps the chat from being taken over even when the instance is cut off; once the lease
// ran out another instance takes the chat, and the first may no longer send the part.
// A part already sent may be sent by nobody.
func TestClaimsHoldFences(t *testing.T) {
	dbs := instances(t, 2)
	a, b := dbs[0], dbs[1]
	queue(t, a, 1, 1)
	ta, err := a.PendingTurns(t.Context(), "ada", time.Now(), 10)
	if err != nil || len(ta) != 1 {
		t.Fatalf("PendingTurns = %v, %v; want the turn", ta, err)
	}
	parts, err := a.FinishTurn(t.Context(), ta[0].ID, []mynah.OutPart{{Key: "k1", Plain: "one"}})
	if err != nil || len(parts) != 1 {
		t.Fatalf("FinishTurn: %v, %v", parts, err)
	}
	p := parts[0]
	if err := a.Hold(t.Context(), p.ID); err != nil {
		t.Fatalf("Hold by the chat's holder: %v", err)
	}
	if err := b.Hold(t.Context(), p.ID); !errors.Is(err, mynah.ErrNotHeld) {
		t.Errorf("Hold by another instance = %v, want ErrNotHeld", err)
	}

	cutOff(t, a, b)
	b.claims.lease = time.Hour // a's Hold is recent: its lease runs
	if pb, err := b.PendingParts(t.Context(), "ada", 10); err != nil || len(pb) != 0 {
		t.Errorf("within the lease of a cut-off instance, another sees parts %v, %v; want none", pb, err)
	}
	if err := a.Hold(t.Context(), p.ID); err != nil {
		t.Errorf("Hold by the cut-off holder within its lease: %v", err)
	}
	b.claims.lease = 0 // the lease ran out
	b.claims.liveRead = time.Time{}
	if pb, err := b.PendingParts(t.Context(), "ada", 10); err != nil || len(pb) != 1 {
		t.Fatalf("once the lease ran out, another instance sees parts %v, %v; want the unsent one", pb, err)
	}
	if err := a.Hold(t.Context(), p.ID); !errors.Is(err, mynah.ErrNotHeld) {
		t.Errorf("Hold by the instance that lost the chat = %v, want ErrNotHeld", err)
	}
	if err := b.Hold(t.Context(), p.ID); err != nil {
		t.Errorf("Hold by the new holder: %v", err)
	}
	if err := b.MarkSent(t.Context(), p.ID, mynah.Message{ID: 900, Text: "one"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Hold(t.Context(), p.ID); !errors.Is(err, mynah.ErrNotHeld) {
		t.Errorf("Hold of a part already sent = %v, want ErrNotHeld", err)
	}
}

// TestClaimsConcurrentScans: three instances scanning at once while turns arrive never
// both return a chat's turn, and every turn is returned to someone.
func TestClaimsConcurrentScans(t *testing.T) {
	dbs := instances(t, 3)
	const chats, each = 12, 5
	var (
		mu    sync.Mutex
		owner = map[mynah.ChatID]int{}
		seen  = map[int64]bool{}
	)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i, db := range dbs {
		wg.Go(func() {
			for {
				ts, err := db.PendingTurns(t.Context(), "ada", time.Now(), 100)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, tr := range ts {
					if o, ok := owner[tr.Chat]; ok && o != i {
						t.Errorf("chat %d returned to instances %d and %d", tr.Chat, o, i)
					}
					owner[tr.Chat] = i
					seen[tr.ID] = true
				}
				mu.Unlock()
				select {
				case <-stop:
					return
				default:
				}
			}
		})
	}
	for c := range chats {
		for m := range each {
			queue(t, dbs[(c+m)%3], mynah.ChatID(c+1), m+1)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n == chats*each || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if len(seen) != chats*each {
		t.Errorf("%d turns were returned, want all %d", len(seen), chats*each)
	}
}

// TestElect: of the instances running the same work under Elect, one runs it at a time,
// and another takes over when the holder is gone.
func TestElect(t *testing.T) {
	dbs := instances(t, 3)
	var running, most atomic.Int32
	var runs sync.Map
	ctx, cancel := context.WithCancel(t.Context())
	cancels := make([]context.CancelFunc, len(dbs))
	var wg sync.WaitGroup
	for i, db := range dbs {
		ictx, icancel := context.WithCancel(ctx)
		cancels[i] = icancel
		wg.Go(func() {
			_ = db.Elect(ictx, "poll ada", func(ctx context.Context) error {
				n := running.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				runs.Store(i, true)
				<-ctx.Done()
				running.Add(-1)
				return ctx.Err()
			})
		})
	}
	leader := func() int {
		t.Helper()
		for range 500 {
			found := -1
			runs.Range(func(k, _ any) bool { found = k.(int); return false })
			if found >= 0 && running.Load() == 1 {
				return found
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatal("nobody was elected")
		return -1
	}
	first := leader()
	runs.Delete(first)
	cancels[first]() // the leader stops: its lock goes with its connection
	second := leader()
	if second == first {
		t.Errorf("instance %d stopped but still leads", first)
	}
	cancel()
	wg.Wait()
	if m := most.Load(); m != 1 {
		t.Errorf("%d instances ran the elected work at once, want 1", m)
	}
}

// TestNotifyWakes: a turn queued by one instance in a chat another serves wakes that
// other's runner; a turn the queuing instance runs itself (in a chat it serves or takes
// now) wakes nobody, so that no instance scans the queue for it.
func TestNotifyWakes(t *testing.T) {
	dbs := instances(t, 2)
	queue(t, dbs[1], 7, 1) // dbs[1] serves chat 7 from now on
	woke := make(chan string, 100)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- dbs[1].Coordinate(ctx, func(agent string) { woke <- agent }) }()
	defer func() { cancel(); <-done }()
	// Coordinate listens once it runs; queue until the notification comes through.
	for i := 2; ; i++ {
		queue(t, dbs[0], 7, i)
		select {
		case agent := <-woke:
			if agent != "ada" {
				t.Errorf("woken for %q, want ada", agent)
			}
		case <-time.After(200 * time.Millisecond):
			if i == 50 {
				t.Fatal("no wake after 50 queued turns")
			}
			continue
		}
		break
	}
	// A late notification of the loop's is no wake of what follows.
	for quiet := false; !quiet; {
		select {
		case <-woke:
		case <-time.After(300 * time.Millisecond):
			quiet = true
		}
	}
	queue(t, dbs[0], 8, 1) // dbs[0] takes chat 8 and runs its turn itself
	queue(t, dbs[1], 7, 100)
	select {
	case agent := <-woke:
		t.Errorf("woken for %q by turns their queuing instances run themselves", agent)
	case <-time.After(500 * time.Millisecond):
	}
}

// TestOrphansWake: when an instance goes leaving a part undelivered, another instance's
// Coordinate wakes its runners (wake("")) once the lease ran out, so that they read the
// outbox and take the part over; nothing else would tell them.
func TestOrphansWake(t *testing.T) {
	dbs := instances(t, 2)
	a, b := dbs[0], dbs[1]
	b.claims.lease = 0
	queue(t, a, 1, 1)
	ta, err := a.PendingTurns(t.Context(), "ada", time.Now(), 10)
	if err != nil || len(ta) != 1 {
		t.Fatalf("PendingTurns = %v, %v; want the turn", ta, err)
	}
	if _, err := a.FinishTurn(t.Context(), ta[0].ID, []mynah.OutPart{{Key: "k1", Plain: "one"}}); err != nil {
		t.Fatal(err)
	}
	woke := make(chan string, 100)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- b.Coordinate(ctx, func(agent string) { woke <- agent }) }()
	defer func() { cancel(); <-done }()
	select {
	case <-woke:
		t.Fatal("woken while the part's instance is alive")
	case <-time.After(200 * time.Millisecond):
	}
	cutOff(t, a, b)
	a.claims.close() // a is gone for good
	select {
	case agent := <-woke:
		if agent != "" {
			t.Errorf("woken for %q, want every agent", agent)
		}
	case <-time.After(3 * checkEvery):
		t.Fatal("no wake for the part a gone instance left")
	}
	if pb, err := b.PendingParts(t.Context(), "ada", 10); err != nil || len(pb) != 1 {
		t.Errorf("after the wake the instance reads parts %v, %v; want the one left", pb, err)
	}
}
