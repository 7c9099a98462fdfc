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
	"github.com/mynah-ai/mynah/internal/tokens"
)

// store is the store the commands hold: every contract of mynah.Store, and what serve and
// the operator commands call beyond them. Both backends are one.
type store interface {
	mynah.Store
	// Ping checks that the store answers (readiness).
	Ping(ctx context.Context) error
	// ModelTurnsSince restores the rate limits at start (access.TurnLog).
	ModelTurnsSince(ctx context.Context, agent string, since time.Time, fn func(mynah.UserID, time.Time)) error
	// tokens.Store keeps what each agent's models taught the token estimator.
	tokens.Store
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
func openServeStore(ctx context.Context, cfg *config, file string, log *slog.Logger) (store, error) {
	if cfg.Store != "" {
		return postgres.Open(ctx, string(cfg.Store), postgres.Options{Serve: true, Logger: log})
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

// Several instances may serve from one PostgreSQL database (see internal/postgres's
// claims.go). The helpers below are how serve takes part: each returns what it was given
// on SQLite, where one process serves a data dir.

// once runs work in one instance at a time of those sharing the database, under the lock
// named name: background work that must not run twice at once (describing media,
// memory upkeep).
func once(db store, name string, work func(context.Context) error) func(context.Context) error {
	pg, ok := db.(*postgres.DB)
	if !ok {
		return work
	}
	return func(ctx context.Context) error { return pg.Elect(ctx, name, work) }
}

// electPollers makes each bot's long poll run in one instance at a time: Telegram serves
// one getUpdates per bot. intake is intakeOf's, one poll per agent in procs' order; a
// webhook is left as it is, since any instance may take any update.
func electPollers(db store, cfg *config, procs []*agentProcess, intake []func(context.Context) error) []func(context.Context) error {
	if cfg.Telegram.Mode == "webhook" || len(intake) != len(procs) {
		return intake
	}
	out := make([]func(context.Context) error, len(intake))
	for i, run := range intake {
		out[i] = once(db, "poll "+procs[i].cfg.Name, run)
	}
	return out
}

// shared reports whether db is shared with other instances: then a bot this instance
// does not poll is polled by another (see electPollers), and readiness does not ask for it.
func shared(db store) bool {
	_, ok := db.(*postgres.DB)
	return ok
}

// coordinate keeps this instance present among those sharing the database and wakes an
// agent's runner when another instance queues a turn for it.
func coordinate(db store, procs []*agentProcess) []func(context.Context) error {
	pg, ok := db.(*postgres.DB)
	if !ok {
		return nil
	}
	return []func(context.Context) error{func(ctx context.Context) error {
		return pg.Coordinate(ctx, func(agent string) {
			for _, p := range procs {
				if agent == "" || p.cfg.Name == agent {
					p.runner.Wake()
				}
			}
		})
	}}
}
