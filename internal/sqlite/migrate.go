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

// schemaSnapshot is the schema (and seed rows) the migrations up to its version build,
// written as one script by TestSchemaSnapshot (go test ./internal/sqlite -run TestSchemaSnapshot
// -args -update after adding a migration). A new database runs it instead of every
// migration: SQLite re-parses the whole schema after each ALTER TABLE of the migrations,
// about half of what creating a database cost. Its first line is "-- version N".
//
//go:embed schema.sql
var schemaSnapshot string

// snapshotVersion is the migration version schemaSnapshot stands for, 0 if it has none.
func snapshotVersion(snapshot string) int {
	line, _, _ := strings.Cut(snapshot, "\n")
	v, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "-- version ")))
	if err != nil {
		return 0
	}
	return v
}

// migrateWith applies the migrations the database lacks, all in one transaction with
// their schema_migrations rows, so a crash leaves the schema where it was. A new database
// runs snapshot (schemaSnapshot; "" for none) instead of the migrations it covers, then
// those newer than it. Running it again, or from two processes at once, applies nothing
// twice: the version is read again inside the IMMEDIATE transaction. A database newer
// than this binary is refused.
func (db *DB) migrateWith(ctx context.Context, snapshot string) error {
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
	newest := func(q interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) (int64, error) {
		var v sql.NullInt64
		if err := q.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
			return 0, err
		}
		if known := ms[len(ms)-1].version; v.Int64 > int64(known) {
			return 0, fmt.Errorf("database schema version %d is newer than this binary's %d", v.Int64, known)
		}
		return v.Int64, nil
	}
	have, err := newest(db.write)
	if err != nil {
		return fmt.Errorf("migrate: %w", translate(ctx, err))
	}
	if have == int64(ms[len(ms)-1].version) {
		return nil
	}
	snapped := int64(min(snapshotVersion(snapshot), ms[len(ms)-1].version))
	var failed *migration
	err = db.inTx(ctx, func(tx *txn) error {
		have, err := newest(tx) // another process may have migrated meanwhile
		if err != nil {
			return err
		}
		if have == 0 && snapped > 0 {
			if _, err := tx.ExecContext(ctx, snapshot); err != nil {
				return fmt.Errorf("schema snapshot: %w", err)
			}
		}
		for i, m := range ms {
			if int64(m.version) <= have {
				continue
			}
			if have != 0 || int64(m.version) > snapped {
				failed = &ms[i]
				if _, err := tx.ExecContext(ctx, m.sql); err != nil {
					return err
				}
				failed = nil
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.version, m.name, db.now().UnixMilli()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if failed != nil {
			return fmt.Errorf("migrate %04d_%s: %w", failed.version, failed.name, translate(ctx, err))
		}
		return fmt.Errorf("migrate: %w", translate(ctx, err))
	}
	return nil
}
