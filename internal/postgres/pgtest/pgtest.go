// Package pgtest gives a test outside internal/postgres a PostgreSQL schema of its own on
// the test server, as the store's own tests have one (their helpers cannot import this
// package, which imports the store).
package pgtest

import (
	"cmp"
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah/internal/postgres"
)

// server is the PostgreSQL the tests use (MYNAH_TEST_POSTGRES, or the server these
// machines run: trust auth, database test), and whether it answers: asked once, so that
// an absent server costs one connection attempt, not one a test.
var server = sync.OnceValues(func() (string, error) {
	dsn := cmp.Or(os.Getenv("MYNAH_TEST_POSTGRES"), "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return dsn, err
	}
	return dsn, conn.Close(ctx)
})

// Schema returns the URL of a schema of its own for tb on the test server, dropped at
// cleanup. It skips tb when the server is unreachable, or fails it when
// MYNAH_REQUIRE_POSTGRES is set (CI sets it), so that a CI run never passes without it.
func Schema(tb testing.TB) string {
	tb.Helper()
	dsn, err := server()
	if err != nil {
		if os.Getenv("MYNAH_REQUIRE_POSTGRES") != "" {
			tb.Fatalf("PostgreSQL at %s is unreachable and MYNAH_REQUIRE_POSTGRES is set: %v", postgres.Redact(dsn), err)
		}
		tb.Skipf("PostgreSQL at %s is unreachable: %v", postgres.Redact(dsn), err)
	}
	url, drop, err := postgres.TempSchema(tb.Context(), dsn, "mynah_test_")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := drop(context.Background()); err != nil {
			tb.Error(err)
		}
	})
	return url
}
