package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"
)

// TempSchema creates a schema with a fresh name starting with prefix in the database at
// dsn and returns the connection string that puts it first on the search path, so that a
// store opened on it keeps its tables there, and drop, which removes the schema and
// everything in it. It serves throwaway stores: benchmarks and tests that share one
// server without seeing each other's tables. dsn must be a postgres:// URL.
func TempSchema(ctx context.Context, dsn, prefix string) (string, func(context.Context) error, error) {
	u, err := url.Parse(dsn)
	if err != nil || !IsURL(dsn) {
		return "", nil, fmt.Errorf("postgres: %s: want a postgres:// URL", Redact(dsn))
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema := pgx.Identifier{prefix + hex.EncodeToString(b)}.Sanitize()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", nil, fmt.Errorf("postgres: connect to %s: %w", Redact(dsn), translate(ctx, err))
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		return "", nil, fmt.Errorf("postgres: create schema %s: %w", schema, translate(ctx, err))
	}
	drop := func(ctx context.Context) error {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return fmt.Errorf("postgres: drop schema %s: %w", schema, translate(ctx, err))
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			return fmt.Errorf("postgres: drop schema %s: %w", schema, translate(ctx, err))
		}
		return nil
	}
	v := u.Query()
	v.Set("search_path", prefix+hex.EncodeToString(b))
	u.RawQuery = v.Encode()
	return u.String(), drop, nil
}
