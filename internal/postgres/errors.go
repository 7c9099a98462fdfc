package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mynah-ai/mynah"
)

// translate maps a driver error to what callers may depend on: pgx.ErrNoRows becomes
// mynah.ErrNotFound, a cancelled or expired ctx comes back as ctx.Err(), and PostgreSQL's
// own errors become plain text with their SQLSTATE, so that no caller can come to depend
// on the driver's types.
func translate(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pgx.ErrNoRows):
		return mynah.ErrNotFound
	case errors.Is(err, mynah.ErrNotFound), errors.Is(err, mynah.ErrPairingsFull):
		return err
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Code[:2] {
	case "23":
		return fmt.Errorf("constraint violated: %s (SQLSTATE %s)", pe.Message, pe.Code)
	case "53":
		return fmt.Errorf("database out of resources: %s (SQLSTATE %s)", pe.Message, pe.Code)
	case "57", "08":
		return fmt.Errorf("database unavailable: %s (SQLSTATE %s)", pe.Message, pe.Code)
	}
	return fmt.Errorf("%s (SQLSTATE %s)", pe.Message, pe.Code)
}

// fail wraps err, translated, with the package prefix and what was being done.
func fail(ctx context.Context, err error, format string, args ...any) error {
	return fmt.Errorf("postgres: "+format+": %w", append(args, translate(ctx, err))...)
}
