package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mynah-ai/mynah"

	modernc "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// translate maps a driver error to what callers may depend on: sql.ErrNoRows becomes
// mynah.ErrNotFound, a cancelled or expired ctx comes back as ctx.Err() (the driver reports
// an interrupted statement), and SQLite's own errors become plain text, so that no caller
// can come to depend on the driver's types.
func translate(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return mynah.ErrNotFound
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	var se *modernc.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("database locked by another connection: %s", se.Error())
	case sqlite3.SQLITE_CONSTRAINT:
		return fmt.Errorf("constraint violated: %s", se.Error())
	case sqlite3.SQLITE_FULL:
		return fmt.Errorf("disk full: %s", se.Error())
	case sqlite3.SQLITE_READONLY:
		return fmt.Errorf("database is read-only: %s", se.Error())
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return fmt.Errorf("database file is damaged: %s", se.Error())
	}
	return errors.New(se.Error())
}

// fail wraps err, translated, with the package prefix and what was being done.
func fail(ctx context.Context, err error, format string, args ...any) error {
	return fmt.Errorf("sqlite: "+format+": %w", append(args, translate(ctx, err))...)
}

// brief returns ctx without its cancellation, for an indexed read of a few rows that the
// prompt runs on every turn. With a cancelable context database/sql and the driver each
// start a goroutine per query to watch it: 3 µs and 8 allocations of a 7 µs read, and
// nothing to interrupt, since a read in WAL mode neither waits for writers nor runs long.
// A ctx already done is returned as it is, so the read fails as before.
func brief(ctx context.Context) context.Context {
	if ctx.Err() != nil {
		return ctx
	}
	return context.WithoutCancel(ctx)
}
