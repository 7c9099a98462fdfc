package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/postgres"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// store is the store the commands hold: every contract of mynah.Store, and what serve and
// the operator commands call beyond them. Both backends are one.
type store interface {
	mynah.Store
	// Ping checks that the store answers (readiness).
	Ping(ctx context.Context) error
	// ModelTurnsSince restores the rate limits at start (access.TurnLog).
	ModelTurnsSince(ctx context.Context, agent string, since time.Time, fn func(mynah.UserID, time.Time)) error
}

var (
	_ store = (*sqlite.DB)(nil)
	_ store = (*postgres.DB)(nil)
)

// openStore opens the configured store for an operator command: the PostgreSQL database
// of `store:`, or the SQLite file in the data dir, read-write (SQLite's WAL and
// PostgreSQL alike let serve run meanwhile). A missing SQLite file is an error unless
// create is set (import and facts may come before the agent first runs).
func openStore(ctx context.Context, cfg *config, create bool) (store, error) {
	if cfg.Store != "" {
		return postgres.Open(ctx, string(cfg.Store), postgres.Options{})
	}
	path := filepath.Join(cfg.DataDir, "mynah.db")
	if _, err := os.Stat(path); err != nil && !create {
		return nil, fmt.Errorf("no database at %s: has mynah serve run with this configuration?", path)
	}
	return sqlite.Open(ctx, path)
}

// openServeStore opens the store serve runs on. On SQLite it creates the data dir and the
// file when needed and takes the data dir's lock: one serving process per data dir, since
// a second one would answer every message twice. On PostgreSQL several instances share
// the database and coordinate in it.
func openServeStore(ctx context.Context, cfg *config, file string) (store, error) {
	if cfg.Store != "" {
		return postgres.Open(ctx, string(cfg.Store), postgres.Options{})
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	return sqlite.OpenExclusive(ctx, filepath.Join(cfg.DataDir, file))
}

// storeName is how logs and messages name db: the SQLite file, or the PostgreSQL database
// without its password.
func storeName(db store) string {
	switch db := db.(type) {
	case *sqlite.DB:
		return db.Path()
	case *postgres.DB:
		return db.String()
	}
	return fmt.Sprintf("%T", db)
}

// storeWork is the background work db needs while serve runs: SQLite indexes new
// messages for search in batches; PostgreSQL indexes each message as it is stored.
func storeWork(db store, log *slog.Logger) []func(context.Context) error {
	if db, ok := db.(*sqlite.DB); ok {
		return []func(context.Context) error{func(ctx context.Context) error { return db.RunIndexer(ctx, log) }}
	}
	return nil
}
