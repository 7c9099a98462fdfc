package postgres

import (
	"context"
	"database/sql"
	"time"

	"github.com/mynah-ai/mynah"
)

// queryModelTurns walks agent's turn queue backwards from the newest turn and names, for
// each model turn, the sender of the message it answers; the caller stops reading once
// the turns are older than it needs.
const queryModelTurns = `SELECT t.created,
		CASE WHEN t.static = '' THEN (SELECT m.sender_id FROM messages AS m
			WHERE m.agent = t.agent AND m.chat_id = t.chat_id AND m.message_id = t.target) END
	FROM turns AS t WHERE t.agent = $1 ORDER BY t.id DESC`

// turnSkew is how far out of id order a turn's created time may be: turns are created by
// concurrent intakes (of several instances), each stamping its own clock reading.
const turnSkew = time.Minute

// ModelTurnsSince calls fn with the sender of the message and the time of every model turn
// (not a static reply) queued for agent after since, newest first: what a rate limit
// counts, restored at start. A turn without a stored message is skipped; a turn whose
// created time lies more than a minute before the turns queued ahead of it may be missed,
// which errs on the side of answering.
func (db *DB) ModelTurnsSince(ctx context.Context, agent string, since time.Time, fn func(user mynah.UserID, at time.Time)) error {
	rows, err := db.pool.Query(ctx, queryModelTurns, agent)
	if err != nil {
		return fail(ctx, err, "model turns of %s", agent)
	}
	defer rows.Close()
	cut, stop := since.UnixMilli(), since.Add(-turnSkew).UnixMilli()
	for rows.Next() {
		var created int64
		var sender sql.NullInt64
		if err := rows.Scan(&created, &sender); err != nil {
			return fail(ctx, err, "model turns of %s", agent)
		}
		if created < stop {
			break
		}
		if sender.Valid && created > cut {
			fn(mynah.UserID(sender.Int64), time.UnixMilli(created).UTC())
		}
	}
	if err := rows.Err(); err != nil {
		return fail(ctx, err, "model turns of %s", agent)
	}
	return nil
}
