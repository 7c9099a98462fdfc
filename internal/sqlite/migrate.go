package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
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

// migrate applies the migrations the database lacks, each in its own transaction with its
// schema_migrations row, so a crash leaves the schema at a whole version. Running it again,
// or from two processes at once, applies nothing twice: the version is checked inside the
// IMMEDIATE transaction. A database newer than this binary is refused.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	if len(ms) == 0 {
		return fmt.Errorf("migrate: no migrations embedded")
	}
	_, err = db.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_at INTEGER NOT NULL
	) STRICT`)
	if err != nil {
		return fmt.Errorf("migrate: %w", translate(ctx, err))
	}
	var newest sql.NullInt64
	if err := db.write.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&newest); err != nil {
		return fmt.Errorf("migrate: %w", translate(ctx, err))
	}
	if known := ms[len(ms)-1].version; newest.Int64 > int64(known) {
		return fmt.Errorf("migrate: database schema version %d is newer than this binary's %d", newest.Int64, known)
	}
	for _, m := range ms {
		if int64(m.version) <= newest.Int64 {
			continue
		}
		err := db.inTx(ctx, func(tx *txn) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil || n > 0 {
				return err
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.version, m.name, db.now().UnixMilli())
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate %04d_%s: %w", m.version, m.name, translate(ctx, err))
		}
	}
	return nil
}
