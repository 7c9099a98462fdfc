package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// migrationFiles holds the schema as numbered files, NNNN_name.sql, applied in order.
// A migration, once released, is never edited: changes go in a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in version order.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, name, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %q: want NNNN_name.sql", e.Name())
		}
		b, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migration %d: two files", ms[i].version)
		}
	}
	return ms, nil
}

// migrateLock takes the transaction-level advisory lock of schema changes in the current
// schema (migrations, the vector extension's column).
const migrateLock = `SELECT pg_advisory_xact_lock(hashtext('mynah migrate ' || current_schema()))`

// migrate applies the migrations the database lacks in one transaction that first takes
// a transaction-level advisory lock keyed by the schema: a second instance starting at
// the same moment waits for the first to commit, then finds nothing to apply. PostgreSQL's
// DDL is transactional, so a crash leaves the schema at the version it had. A database
// newer than this binary is refused.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	if len(ms) == 0 {
		return fmt.Errorf("migrate: no migrations embedded")
	}
	err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, migrateLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    integer PRIMARY KEY,
			name       text    NOT NULL,
			applied_at bigint  NOT NULL
		)`); err != nil {
			return err
		}
		var newest int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&newest); err != nil {
			return err
		}
		if known := ms[len(ms)-1].version; newest > known {
			return fmt.Errorf("database schema version %d is newer than this binary's %d", newest, known)
		}
		for _, m := range ms {
			if m.version <= newest {
				continue
			}
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("%04d_%s: %w", m.version, m.name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
				m.version, m.name, db.now().UnixMilli()); err != nil {
				return fmt.Errorf("%04d_%s: %w", m.version, m.name, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}
