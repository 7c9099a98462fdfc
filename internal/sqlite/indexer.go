package sqlite

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

const (
	queryIndexedThrough = `SELECT last_rowid FROM search_progress WHERE id = 1`
	queryLastRowid      = `SELECT coalesce(max(rowid), 0) FROM messages`
	queryUnindexed      = `SELECT rowid, agent, chat_id, message_id FROM messages WHERE rowid > ? ORDER BY rowid LIMIT +?`
	insertSearchAgent   = `INSERT OR IGNORE INTO search_agents (agent) VALUES (?)`
	// insertSearchChat numbers a chat on first sight: the next scope in its agent's range,
	// unless the agent or the chat numbers are used up (the message then stays unindexed).
	insertSearchChat = `INSERT OR IGNORE INTO search_chats (scope, agent, chat_id)
		SELECT next, ?1, ?2 FROM (
			SELECT a.agent_no, coalesce((SELECT max(scope) + 1 FROM search_chats
				WHERE scope BETWEEN a.agent_no << 22 AND ((a.agent_no + 1) << 22) - 1), a.agent_no << 22) AS next
			FROM search_agents a
			WHERE a.agent = ?1 AND a.agent_no < 1024
				AND NOT EXISTS (SELECT 1 FROM search_chats WHERE agent = ?1 AND chat_id = ?2))
		WHERE next < (agent_no + 1) << 22`
	insertSearchDoc = `INSERT INTO message_search (rowid, body, context, previous)
		SELECT key, body, context, previous FROM message_search_docs
		WHERE agent = ? AND chat_id = ? AND message_id = ?`
	setIndexedThrough = `UPDATE search_progress SET last_rowid = ? WHERE id = 1`
	// mergeSearch merges the index's segments, writing about -? pages; a negative
	// argument makes every segment eligible, so repeated it ends with one segment.
	mergeSearch       = `INSERT INTO message_search (message_search, rank) VALUES ('merge', ?)`
	queryTotalChanges = `SELECT total_changes()`
)

// indexBatch bounds the messages one IndexPending transaction indexes, so the writer is
// never held long; IndexPending loops until it has caught up.
const indexBatch = 2000

// IndexPending adds the messages stored since the last call to the history index, in
// batches of one transaction each, and returns how many it indexed. Searches call it
// first, so they see every stored message; calling it often (serve does, every second)
// keeps that catch-up small. It is safe to call concurrently.
func (db *DB) IndexPending(ctx context.Context) (int, error) {
	return db.IndexPendingFunc(ctx, nil)
}

// IndexPendingFunc is IndexPending reporting its progress after each batch: done
// messages indexed so far of total that were waiting when it started (progress may be
// nil). An import calls it, so that no search after it waits for the backlog.
func (db *DB) IndexPendingFunc(ctx context.Context, progress func(done, total int)) (int, error) {
	n, _, err := db.indexPending(ctx, progress)
	return n, err
}

// indexPending is IndexPendingFunc that also returns the rowid of messages the index
// holds through once it has caught up: a mark that grows by at least one for every
// message indexed since.
func (db *DB) indexPending(ctx context.Context, progress func(done, total int)) (int, int64, error) {
	total, waiting := 0, -1
	for {
		var through, last int64
		if err := db.stmts.indexedThrough.QueryRowContext(brief(ctx)).Scan(&through); err != nil {
			return total, 0, fail(ctx, err, "index progress")
		}
		if err := db.stmts.lastRowid.QueryRowContext(brief(ctx)).Scan(&last); err != nil {
			return total, 0, fail(ctx, err, "index progress")
		}
		if last <= through {
			if total >= indexBatch && waiting > int(through)/2 {
				if err := db.mergeIndex(ctx); err != nil {
					return total, 0, fail(ctx, err, "merge the history index")
				}
			}
			return total, through, nil
		}
		if waiting < 0 {
			waiting = int(last - through) // rowids: an upper bound of the messages waiting
		}
		n, err := db.indexBatch(ctx)
		total += n
		if progress != nil {
			progress(min(total, waiting), waiting)
		}
		if err != nil {
			return total, 0, fail(ctx, err, "index new messages")
		}
	}
}

// mergePages bounds the index pages one transaction of mergeIndex writes (~8 MB), so the
// writer is held for a fraction of a second at a time.
const mergePages = 2000

// mergeIndex merges the history index's segments into one, a transaction of mergePages at
// a time. FTS5 keeps an index as segments merged as they pile up (automerge), so after
// indexing 100,000 messages it holds ~10 of them, and every term a search reads is a
// doclist to seek and walk in each. indexPending calls it after a catch-up that was most
// of the index (an import, the rebuild after an upgrade), where it costs little next to the
// indexing (~1 s for 100,000 messages, which took ~15 s to index) and a history search
// then used ~10% less CPU (BenchmarkSearch); with messages arriving (BenchmarkSearchWrites)
// the difference was within the noise, every page being read again after each commit.
// Messages indexed later are merged in as usual; the merged segment stays until
// automerge takes it into a larger one.
func (db *DB) mergeIndex(ctx context.Context) error {
	for {
		worked := false
		err := db.inTx(ctx, func(tx *txn) error {
			var before, after int64
			if err := tx.queryRow(ctx, db.stmts.totalChanges).Scan(&before); err != nil {
				return err
			}
			if _, err := tx.exec(ctx, db.stmts.mergeSearch, -mergePages); err != nil {
				return err
			}
			if err := tx.queryRow(ctx, db.stmts.totalChanges).Scan(&after); err != nil {
				return err
			}
			worked = after-before >= 2 // as FTS5's documentation tells a merge that did work
			return nil
		})
		if err != nil || !worked {
			return err
		}
	}
}

// indexBatch indexes up to indexBatch messages after the indexed ones, in one transaction.
func (db *DB) indexBatch(ctx context.Context) (int, error) {
	n := 0
	err := db.inTx(ctx, func(tx *txn) error {
		n = 0
		var through int64
		// Read inside the transaction: a concurrent batch may have just committed.
		if err := tx.queryRow(ctx, db.stmts.indexedThroughW).Scan(&through); err != nil {
			return err
		}
		rows, err := tx.query(ctx, db.stmts.unindexed, through, indexBatch)
		if err != nil {
			return err
		}
		type pending struct {
			rowid, chat, id int64
			agent           string
		}
		var batch []pending
		for rows.Next() {
			var p pending
			if err := rows.Scan(&p.rowid, &p.agent, &p.chat, &p.id); err != nil {
				rows.Close()
				return err
			}
			batch = append(batch, p)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
		type chatKey struct {
			agent string
			chat  int64
		}
		seen := map[chatKey]bool{}
		for _, p := range batch {
			if !seen[chatKey{p.agent, p.chat}] {
				seen[chatKey{p.agent, p.chat}] = true
				if _, err := tx.exec(ctx, db.stmts.insertSearchAgent, p.agent); err != nil {
					return err
				}
				if _, err := tx.exec(ctx, db.stmts.insertSearchChat, p.agent, p.chat); err != nil {
					return err
				}
			}
			if p.id < 1 || p.id > 1<<31-1 {
				continue // outside the index's key space: stored, not indexed
			}
			if _, err := tx.exec(ctx, db.stmts.insertSearchDoc, p.agent, p.chat, p.id); err != nil {
				return err
			}
			n++
		}
		if len(batch) == 0 {
			return nil
		}
		_, err = tx.exec(ctx, db.stmts.setIndexedThrough, batch[len(batch)-1].rowid)
		return err
	})
	return n, err
}

// RunIndexer indexes new messages every second until ctx is done, then returns nil, so
// that a search rarely has more than a second's messages to catch up on. Failures are
// logged and retried on the next tick. It first indexes what waits, logging its progress
// when that is much (see catchUp).
func (db *DB) RunIndexer(ctx context.Context, log *slog.Logger) error {
	if err := db.catchUp(ctx, log); err != nil && ctx.Err() == nil {
		log.Error("indexing messages for search", "err", err)
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if _, err := db.IndexPending(ctx); err != nil && ctx.Err() == nil {
			log.Error("indexing new messages for search", "err", err)
		}
	}
}

// catchUpLog is the backlog from which the indexer logs its progress at start: the whole
// history after an upgrade that rebuilds the index (migration 0015 did), not the second's
// worth of messages a restart leaves.
const catchUpLog = indexBatch

// catchUp indexes the messages waiting at start. When they are catchUpLog or more, it
// logs when it starts, every 5 seconds and when it is done, so an operator sees why
// searches wait after an upgrade.
func (db *DB) catchUp(ctx context.Context, log *slog.Logger) error {
	start, last, logged := time.Now(), time.Now(), false
	n, err := db.IndexPendingFunc(ctx, func(done, total int) {
		switch {
		case total < catchUpLog:
		case !logged:
			logged, last = true, time.Now()
			log.Info("indexing messages for search", "done", done, "total", total)
		case time.Since(last) >= 5*time.Second:
			last = time.Now()
			log.Info("indexing messages for search", "done", done, "total", total)
		}
	})
	if logged {
		log.Info("indexed messages for search", "done", n, "took", time.Since(start).Round(time.Millisecond))
	}
	return err
}
