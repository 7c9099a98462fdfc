package sqlite

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mynah-ai/mynah"
)

// holdWriter runs a write transaction that keeps the writer busy until the returned
// release is called, so the writers queued meanwhile share the next transaction.
func holdWriter(t *testing.T, db *DB) (release func()) {
	t.Helper()
	held, free := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- db.inTx(t.Context(), func(*txn) error { close(held); <-free; return nil })
	}()
	<-held
	return func() {
		close(free)
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// waitQueued yields until n writers wait in the committer's queue.
func waitQueued(db *DB, n int) {
	for len(db.commits.queue) < n {
		runtime.Gosched()
	}
}

// usageCount counts agent's usage rows.
func usageCount(t *testing.T, db *DB, agent string) int {
	t.Helper()
	var n int
	if err := db.read.QueryRowContext(t.Context(), `SELECT count(*) FROM usage WHERE agent = ?`, agent).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGroupCommitKeepsWritersApart: writers queued together share a transaction, yet each
// is all or nothing on its own: those whose function fails leave nothing, the others all
// their rows, and each is told its own outcome.
func TestGroupCommitKeepsWritersApart(t *testing.T) {
	db := openTemp(t)
	release := holdWriter(t, db)
	const writers = 20
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			errs[i] = db.inTx(t.Context(), func(tx *txn) error {
				for range 3 {
					if _, err := tx.exec(t.Context(), db.stmts.insertUsage, fmt.Sprint("w", i), 0, "m", 1, 1, 0, 0); err != nil {
						return err
					}
				}
				if i%3 == 0 {
					return fmt.Errorf("writer %d gives up", i)
				}
				return nil
			})
		})
	}
	waitQueued(db, writers)
	release()
	wg.Wait()
	for i := range writers {
		n := usageCount(t, db, fmt.Sprint("w", i))
		switch {
		case i%3 == 0 && (errs[i] == nil || n != 0):
			t.Errorf("writer %d failed: err %v, %d rows kept; want its error and none", i, errs[i], n)
		case i%3 != 0 && (errs[i] != nil || n != 3):
			t.Errorf("writer %d succeeded: err %v, %d rows; want nil and all 3", i, errs[i], n)
		}
	}
}

// TestGroupCommitCancelledWriter: a writer whose context ends while it waits is told so
// and its function never runs; the others are unaffected.
func TestGroupCommitCancelledWriter(t *testing.T) {
	db := openTemp(t)
	release := holdWriter(t, db)
	ctx, cancel := context.WithCancel(t.Context())
	var ran atomic.Bool
	cancelled := make(chan error, 1)
	go func() {
		cancelled <- db.inTx(ctx, func(*txn) error { ran.Store(true); return nil })
	}()
	other := make(chan error, 1)
	waitQueued(db, 1)
	go func() {
		other <- db.inTx(t.Context(), func(tx *txn) error {
			_, err := tx.exec(t.Context(), db.stmts.insertUsage, "other", 0, "m", 1, 1, 0, 0)
			return err
		})
	}()
	waitQueued(db, 2)
	cancel()
	release()
	if err := <-cancelled; !errors.Is(err, context.Canceled) || ran.Load() {
		t.Errorf("the cancelled writer: err %v, ran %t; want context.Canceled, not run", err, ran.Load())
	}
	if err := <-other; err != nil || usageCount(t, db, "other") != 1 {
		t.Errorf("the other writer: err %v; want its row committed", err)
	}
}

// TestGroupCommitAfterClose: a write after Close fails cleanly.
func TestGroupCommitAfterClose(t *testing.T) {
	db, err := Open(t.Context(), t.TempDir()+"/m.db")
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = db.Accept(t.Context(), "a", 1, mynah.Intake{Chat: mynah.Chat{ID: 1}})
	if !errors.Is(err, errClosed) {
		t.Errorf("Accept after Close: %v, want errClosed", err)
	}
}
