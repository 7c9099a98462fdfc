package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
)

// claims is set when several instances share the database.
type claims struct{}

func (db *DB) claimedTurns(ctx context.Context, agent string, now time.Time, limit int) (pgx.Rows, error) {
	return db.pool.Query(ctx, queryPendingTurns, agent, now.UnixMilli(), limit)
}

func (db *DB) claimedParts(ctx context.Context, agent string, limit int) (pgx.Rows, error) {
	return db.pool.Query(ctx, queryPendingParts, agent, limit)
}

func (db *DB) checkClaim(context.Context, pgx.Tx, string, mynah.ChatID) error { return nil }

func (db *DB) notifyWork(context.Context, string) {}
