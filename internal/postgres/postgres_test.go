package postgres

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storetest"
)

// testServer is the PostgreSQL the tests use: MYNAH_TEST_POSTGRES, or the server these
// machines run (trust auth, database test).
func testServer() string {
	if s := os.Getenv("MYNAH_TEST_POSTGRES"); s != "" {
		return s
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

// reachable caches whether the server answers, so that an absent server costs one
// connection attempt, not one per test.
var reachable = sync.OnceValue(func() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, testServer())
	if err != nil {
		return err
	}
	return conn.Close(ctx)
})

// requireServer skips t when PostgreSQL is unreachable, unless MYNAH_REQUIRE_POSTGRES is
// set (CI sets it): then the test fails, so a CI run never passes without PostgreSQL.
func requireServer(t testing.TB) {
	t.Helper()
	if err := reachable(); err != nil {
		if os.Getenv("MYNAH_REQUIRE_POSTGRES") != "" {
			t.Fatalf("PostgreSQL at %s is unreachable and MYNAH_REQUIRE_POSTGRES is set: %v", Redact(testServer()), err)
		}
		t.Skipf("PostgreSQL at %s is unreachable (set MYNAH_TEST_POSTGRES, or MYNAH_REQUIRE_POSTGRES=1 to fail): %v", Redact(testServer()), err)
	}
}

// tempSchema creates a schema of its own for t, dropped at cleanup, and returns the
// connection string that puts it first on the search path: tests running at once, in
// this process or another, never see each other's tables.
func tempSchema(t testing.TB) string {
	t.Helper()
	requireServer(t)
	dsn, drop, err := TempSchema(t.Context(), testServer(), "mynah_test_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return dsn
}

// openTemp opens a store in a fresh schema; it is closed at cleanup, before the schema
// is dropped.
func openTemp(t testing.TB) (*DB, string) {
	t.Helper()
	dsn := tempSchema(t)
	db, err := Open(t.Context(), dsn, Options{MaxConns: 4, Serve: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dsn
}

// reopen closes db and opens the database at dsn again, as the next process would; the
// new store is closed at cleanup, before the schema is dropped.
func reopen(t testing.TB, db *DB, dsn string) *DB {
	t.Helper()
	db.Close()
	db, err := Open(t.Context(), dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestStore runs the conformance suite of every store contract against PostgreSQL.
func TestStore(t *testing.T) {
	requireServer(t)
	var (
		mu   sync.Mutex
		dsns = map[mynah.Store]string{}
	)
	storetest.Run(t, storetest.Backend{
		Open: func(t *testing.T) mynah.Store {
			db, dsn := openTemp(t)
			mu.Lock()
			dsns[db] = dsn
			mu.Unlock()
			return db
		},
		Reopen: func(t *testing.T, old mynah.Store) mynah.Store {
			mu.Lock()
			dsn := dsns[old]
			mu.Unlock()
			if err := old.Close(); err != nil {
				t.Fatal(err)
			}
			re, err := Open(t.Context(), dsn, Options{MaxConns: 4, Serve: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { re.Close() })
			mu.Lock()
			dsns[re] = dsn
			mu.Unlock()
			return re
		},
	})
}
