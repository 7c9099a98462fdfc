package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
)

// identities are the tables whose ids PostgreSQL draws from a sequence; rows copied in
// with their ids leave the sequence behind them.
var identities = [...]struct{ table, column string }{
	{"messages", "seq"}, {"sessions", "id"}, {"turns", "id"}, {"outbox", "id"}, {"usage", "id"},
	{"facts", "id"}, {"summaries", "id"}, {"note_chunks", "id"}, {"vectors", "id"},
	{"vector_items", "seq"}, {"media_queue", "id"},
}

const (
	countUnindexed = `SELECT count(*) FROM messages m WHERE m.message_id BETWEEN 1 AND $1
		AND NOT EXISTS (SELECT 1 FROM message_search s WHERE s.agent = m.agent AND s.chat_id = m.chat_id AND s.message_id = m.message_id)`
	queryUnindexed = `SELECT m.seq, m.agent, m.chat_id, m.message_id FROM messages m WHERE m.seq > $1 AND m.message_id BETWEEN 1 AND $2
		AND NOT EXISTS (SELECT 1 FROM message_search s WHERE s.agent = m.agent AND s.chat_id = m.chat_id AND s.message_id = m.message_id)
		ORDER BY m.seq LIMIT $3`
)

// recountSearch sets each chat's counts of entries and tokens from the entries.
const recountSearch = `INSERT INTO search_chats AS c (agent, chat_id, docs, tokens)
	SELECT agent, chat_id, count(*), coalesce(sum(len), 0) FROM message_search GROUP BY agent, chat_id
	ON CONFLICT (agent, chat_id) DO UPDATE SET docs = excluded.docs, tokens = excluded.tokens
	WHERE c.docs <> excluded.docs OR c.tokens <> excluded.tokens`

// rebuildBatch is how many messages one transaction of Rebuild indexes.
const rebuildBatch = 500

// Rebuild makes whole what rows written around the store leave out (`mynah store copy`
// inserts rows as they are): it moves every identity sequence past the ids copied in,
// indexes for search every message that has no entry, in batches of one transaction,
// reporting progress (done of total; progress may be nil), counts each chat's entries
// again and gathers the planner's statistics. It is safe to run again.
func (db *DB) Rebuild(ctx context.Context, progress func(done, total int)) error {
	for _, id := range identities {
		q := fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%[1]s', '%[2]s'), greatest((SELECT max(%[2]s) FROM %[1]s), 1))`, id.table, id.column)
		if _, err := db.pool.Exec(ctx, q); err != nil {
			return fail(ctx, err, "move the sequence of %s past its rows", id.table)
		}
	}
	if err := db.indexUnindexed(ctx, progress); err != nil {
		return err
	}
	// Entries dropped around the store (a message the copy changed) left the counts
	// behind: count again.
	if _, err := db.pool.Exec(ctx, recountSearch); err != nil {
		return fail(ctx, err, "count the search entries")
	}
	return db.analyze(ctx, messageTables+", turns, outbox")
}

// messageTables are the tables an import of messages fills.
const messageTables = `messages, message_search, search_chats, chats, users`

// Analyze gathers the planner's statistics of the tables an import of messages fills
// (messageTables), now rather than when autovacuum comes round: a search planned without
// them may read a big chat row by row. Right after importing 100,000 messages, 80
// questions through mynah memory search took p50 384 ms, p95 871 ms without them and
// p50 219 ms, p95 316 ms with them (as the README records); gathering them took 0.7 s.
func (db *DB) Analyze(ctx context.Context) error { return db.analyze(ctx, messageTables) }

// analyze gathers the planner's statistics of tables, a list of the schema's table names.
func (db *DB) analyze(ctx context.Context, tables string) error {
	if _, err := db.pool.Exec(ctx, `ANALYZE `+tables); err != nil {
		return fail(ctx, err, "gather the planner's statistics")
	}
	return nil
}

// indexUnindexed indexes for search every message that has no entry, in batches of one
// transaction, reporting progress (done of total; progress may be nil).
func (db *DB) indexUnindexed(ctx context.Context, progress func(done, total int)) error {
	var total int
	if err := db.pool.QueryRow(ctx, countUnindexed, mynah.MaxMessageID).Scan(&total); err != nil {
		return fail(ctx, err, "count unindexed messages")
	}
	done, after := 0, int64(0)
	if progress != nil {
		progress(0, total)
	}
	for {
		type key struct {
			seq   int64
			agent string
			chat  mynah.ChatID
			id    mynah.MessageID
		}
		rows, err := db.pool.Query(ctx, queryUnindexed, after, mynah.MaxMessageID, rebuildBatch)
		if err != nil {
			return fail(ctx, err, "find unindexed messages")
		}
		batch, err := scanAll(rows, func(s scanner) (key, error) {
			var k key
			var chat, id int64
			err := s.Scan(&k.seq, &k.agent, &chat, &id)
			k.chat, k.id = mynah.ChatID(chat), mynah.MessageID(id)
			return k, err
		})
		if err != nil {
			return fail(ctx, err, "find unindexed messages")
		}
		if len(batch) == 0 {
			break
		}
		err = db.inTx(ctx, func(tx pgx.Tx) error {
			// A chat's messages of the batch in one indexMessages: a few statements a chat.
			type chatKey struct {
				agent string
				chat  mynah.ChatID
			}
			ids := map[chatKey][]int64{}
			var order []chatKey
			for _, k := range batch {
				c := chatKey{k.agent, k.chat}
				if ids[c] == nil {
					order = append(order, c)
				}
				ids[c] = append(ids[c], int64(k.id))
			}
			for _, c := range order {
				if err := db.indexMessages(ctx, tx, c.agent, c.chat, ids[c]); err != nil {
					return fmt.Errorf("chat %d of %s: %w", c.chat, c.agent, err)
				}
			}
			return nil
		})
		if err != nil {
			return fail(ctx, err, "index messages for search")
		}
		after = batch[len(batch)-1].seq
		done += len(batch)
		if progress != nil {
			progress(min(done, total), total)
		}
	}
	return nil
}

// finishRebuild completes a rebuild of the search index that a migration asked for
// (search_rebuild holds a row): it indexes every message without an entry, counts each
// chat's entries again, writes every note chunk's entry anew (reindexNotes) and clears
// the request. Instances starting together may both do it: the entries are upserts, the
// counts are counted from them and a chunk's entry is a function of its text.
func (db *DB) finishRebuild(ctx context.Context) error {
	var pending bool
	if err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM search_rebuild)`).Scan(&pending); err != nil || !pending {
		return err
	}
	if db.logger != nil {
		db.logger.Info("rebuilding the search index after an upgrade")
	}
	if err := db.indexUnindexed(ctx, nil); err != nil {
		return err
	}
	if _, err := db.pool.Exec(ctx, recountSearch); err != nil {
		return fail(ctx, err, "count the search entries")
	}
	if err := db.reindexNotes(ctx); err != nil {
		return err
	}
	_, err := db.pool.Exec(ctx, `DELETE FROM search_rebuild`)
	return err
}

// reindexNotes writes every note chunk's index entry anew from its text, as PutNote
// writes it: up to rebuildBatch chunks in a statement.
func (db *DB) reindexNotes(ctx context.Context) error {
	rows, err := db.pool.Query(ctx, `SELECT id, text FROM note_chunks`)
	if err != nil {
		return fail(ctx, err, "read the note chunks")
	}
	type entry struct {
		id  int64
		doc string
		len int32
	}
	entries, err := scanAll(rows, func(s scanner) (entry, error) {
		var e entry
		var text string
		err := s.Scan(&e.id, &text)
		doc, n := buildDoc(docPart{text, bodyPart})
		e.doc, e.len = doc, int32(n)
		return e, err
	})
	if err != nil {
		return fail(ctx, err, "read the note chunks")
	}
	for batch := range slices.Chunk(entries, rebuildBatch) {
		ids, docs, lens := make([]int64, len(batch)), make([]string, len(batch)), make([]int32, len(batch))
		for i, e := range batch {
			ids[i], docs[i], lens[i] = e.id, e.doc, e.len
		}
		if _, err := db.pool.Exec(ctx, `UPDATE note_chunks c SET doc = u.doc::tsvector, len = u.len
			FROM unnest($1::bigint[], $2::text[], $3::integer[]) AS u(id, doc, len) WHERE c.id = u.id`, ids, docs, lens); err != nil {
			return fail(ctx, err, "index the note chunks")
		}
	}
	return nil
}
