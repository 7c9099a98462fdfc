package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Group commit. Writers queue for the one writer connection anyway (see DB); instead of
// a transaction each, the ones waiting when the connection frees up share one, each in a
// savepoint of its own: a writer whose function fails is rolled back to its savepoint
// alone, and every writer returns only once the shared transaction is committed, so each
// sees the atomicity and durability of a transaction of its own. Under load — many chats
// answered at once — a handful of commits become one, which is most of what a commit
// costs; alone, a writer runs in a plain transaction as before.

// maxBatch bounds the writers that share a transaction.
const maxBatch = 64

const (
	savepoint        = `SAVEPOINT batch`
	releaseSavepoint = `RELEASE batch`
	rollbackToSave   = `ROLLBACK TO batch`
)

// write is one writer waiting for the connection.
type write struct {
	ctx  context.Context
	fn   func(tx *txn) error
	done chan error
}

// committer runs the writers' functions on the writer connection, batching those that
// wait. Start it with start; stop waits for it.
type committer struct {
	db     *DB
	queue  chan *write
	closed chan struct{}
	// sending is held (read) while a writer enqueues, and (write) while stop closes, so
	// that nothing is queued once the committer may have stopped answering.
	sending sync.RWMutex
	stopped bool
	once    sync.Once
	wg      sync.WaitGroup
}

func (c *committer) start() {
	c.queue = make(chan *write, maxBatch)
	c.closed = make(chan struct{})
	c.wg.Go(c.run)
}

// stop ends the committer after the batch under way; writers still queued get
// errClosed.
func (c *committer) stop() {
	c.once.Do(func() {
		c.sending.Lock()
		c.stopped = true
		close(c.closed)
		c.sending.Unlock()
	})
	c.wg.Wait()
}

// enqueue queues w unless the committer stopped or ctx is done.
func (c *committer) enqueue(ctx context.Context, w *write) error {
	c.sending.RLock()
	defer c.sending.RUnlock()
	if c.stopped {
		return errClosed
	}
	select {
	case c.queue <- w:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var errClosed = errors.New("sqlite: database is closed")

// inTx runs fn in a write transaction, shared with the writers waiting at the same time,
// and returns once it is committed, or fn's error (its writes undone), or the commit's.
func (db *DB) inTx(ctx context.Context, fn func(tx *txn) error) error {
	w := &write{ctx: ctx, fn: fn, done: make(chan error, 1)}
	if err := db.commits.enqueue(ctx, w); err != nil {
		return err
	}
	// Every queued writer is answered, also when the committer stops: the batch under way
	// is finished, those still queued are told errClosed.
	return <-w.done
}

func (c *committer) run() {
	batch := make([]*write, 0, maxBatch)
	for {
		select {
		case <-c.closed:
			for {
				select {
				case w := <-c.queue:
					w.done <- errClosed
				default:
					return
				}
			}
		case w := <-c.queue:
			batch = append(batch[:0], w)
		}
		for more := true; more && len(batch) < maxBatch; {
			select {
			case w := <-c.queue:
				batch = append(batch, w)
			default:
				more = false
			}
		}
		c.commit(batch)
		clear(batch)
	}
}

// commit runs a batch of writers in one transaction and tells each its result.
func (c *committer) commit(batch []*write) {
	live := batch[:0:0]
	for _, w := range batch {
		if err := w.ctx.Err(); err != nil {
			w.done <- err
			continue
		}
		live = append(live, w)
	}
	if len(live) == 0 {
		return
	}
	if len(live) == 1 {
		live[0].done <- c.db.commitOne(live[0])
		return
	}
	results, err := c.db.commitBatch(live)
	for i, w := range live {
		if results[i] != nil {
			w.done <- results[i]
		} else {
			w.done <- err
		}
	}
}

// commitOne runs a lone writer in a transaction of its own, as on an idle store.
func (db *DB) commitOne(w *write) error {
	// Not watched either (see txn.exec): the writer's function checks w.ctx between its
	// statements, and a statement of its own (a migration's) still watches it.
	tx, err := db.write.BeginTx(brief(w.ctx), nil)
	if err != nil {
		return err
	}
	if err := w.fn(&txn{Tx: tx}); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// commitBatch runs the writers in one transaction, each in a savepoint, and commits it.
// It returns each writer's own failure (nil when its function succeeded) and the
// transaction's: a failure to begin or commit, or a transaction SQLite rolled back by
// itself (a full disk, an I/O error), which fails every writer of the batch.
func (db *DB) commitBatch(batch []*write) ([]error, error) {
	results := make([]error, len(batch))
	// Not a writer's context: one writer giving up must not end the others' transaction.
	ctx := context.WithoutCancel(batch[0].ctx)
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return results, err
	}
	t := &txn{Tx: tx}
	for i, w := range batch {
		if err := w.ctx.Err(); err != nil {
			results[i] = err
			continue
		}
		if _, err := t.exec(ctx, db.stmts.savepoint); err != nil {
			_ = tx.Rollback()
			return results, err
		}
		err := w.fn(t)
		results[i] = err
		if err != nil {
			if _, uerr := t.exec(ctx, db.stmts.rollbackToSave); uerr != nil {
				// SQLite rolled the whole transaction back (SQLITE_FULL, an I/O error, an
				// interrupt): nothing of the batch holds.
				_ = tx.Rollback()
				return results, fmt.Errorf("transaction rolled back: %w", errors.Join(err, uerr))
			}
		}
		if _, uerr := t.exec(ctx, db.stmts.releaseSavepoint); uerr != nil {
			_ = tx.Rollback()
			return results, fmt.Errorf("transaction rolled back: %w", uerr)
		}
	}
	return results, tx.Commit()
}
