package sqlite

import (
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storetest"
)

// openTemp opens a store in a fresh file and, at cleanup, closes it and checks the file's
// integrity: whatever the test did must leave a sound database.
func openTemp(t testing.TB) *DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data", "mynah.db")
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		checkIntegrity(t, path)
	})
	return db
}

func checkIntegrity(t testing.TB, path string) {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var res string
	if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Errorf("integrity_check of %s = %q, %v; want ok", path, res, err)
	}
	rows, err := raw.Query(`PRAGMA foreign_key_check`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if rows.Next() {
		t.Errorf("foreign_key_check of %s reports violations", path)
	}
}

// TestStore runs the conformance suite of every store contract against the sqlite store.
func TestStore(t *testing.T) {
	storetest.Run(t, storetest.Backend{
		Open: func(t *testing.T) mynah.Store { return openTemp(t) },
		Reopen: func(t *testing.T, old mynah.Store) mynah.Store {
			db := old.(*DB)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			re, err := Open(t.Context(), db.path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { re.Close() })
			return re
		},
	})
}

func TestMigrateIdempotent(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "mynah.db")
	for range 3 {
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		var n, newest int
		if err := db.read.QueryRowContext(ctx, `SELECT count(*), max(version) FROM schema_migrations`).Scan(&n, &newest); err != nil {
			t.Fatal(err)
		}
		ms, err := migrations()
		if err != nil {
			t.Fatal(err)
		}
		if n != len(ms) || newest != ms[len(ms)-1].version {
			t.Errorf("schema_migrations holds %d rows up to %d, want %d up to %d", n, newest, len(ms), ms[len(ms)-1].version)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	}
	checkIntegrity(t, path)
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "mynah.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "newer") {
		if db != nil {
			db.Close()
		}
		t.Errorf("Open of a newer schema: err = %v, want a refusal", err)
	}
}

func TestPragmas(t *testing.T) {
	db := openTemp(t)
	ctx := t.Context()
	for _, c := range []struct {
		conn         *sql.DB
		pragma, want string
	}{
		{db.write, "journal_mode", "wal"},
		{db.write, "foreign_keys", "1"},
		{db.write, "synchronous", "1"}, // NORMAL
		{db.write, "busy_timeout", "5000"},
		{db.read, "journal_mode", "wal"},
		{db.read, "foreign_keys", "1"},
		{db.read, "query_only", "1"},
		{db.read, "busy_timeout", "5000"},
	} {
		var got string
		if err := c.conn.QueryRowContext(ctx, "PRAGMA "+c.pragma).Scan(&got); err != nil || got != c.want {
			t.Errorf("PRAGMA %s = %q, %v; want %q", c.pragma, got, err, c.want)
		}
	}
}

// TestQueryPlans checks that every query the pipeline runs searches an index rather than
// scanning a table: their cost must not grow with the history.
func TestQueryPlans(t *testing.T) {
	db := openTemp(t)
	queries := map[string][]any{
		queryMessage:        {"a", 1, 1},
		queryHistory:        {"a", 1, 0, 50},
		queryHistoryThread:  {"a", 1, 7, 0, 50},
		queryPendingTurns:   {"a", 0, 10},
		queryDueAt:          {"a", 0},
		queryUnindexed:      {0, 100},
		queryLastRowid:      {},
		queryIndexedThrough: {},
		queryTurn:           {1},
		queryPendingParts:   {"a", 10},
		queryPart:           {1},
		queryPartByKey:      {"a", "turn/1/0"},
		queryChat:           {"a", 1},
		querySession:        {"a", 1, 0},
		queryBlocked:        {"a", 1},
		queryPromptForReply: {"a", 11, 0},
		updateEdited:        {"", "", "", 0, "a", 1, 1},
	}
	checkPlans(t, db, queries)
}

// queryPlan returns SQLite's plan for q with args, its steps joined by "; ".
func queryPlan(t testing.TB, db *DB, q string, args ...any) string {
	t.Helper()
	rows, err := db.read.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return strings.Join(plan, "; ")
}

// checkPlans fails for every query (with its arguments) that binds LIMIT ?, scans a
// table or sorts: the cost of the pipeline's queries must not grow with the history.
// SCAN CONSTANT ROW is the one row a SELECT without FROM reads, not a table.
func checkPlans(t *testing.T, db *DB, queries map[string][]any) {
	t.Helper()
	for q, args := range queries {
		if strings.Contains(q, "LIMIT ?") {
			t.Errorf("query binds LIMIT ?, which SQLite re-prepares on every call; write LIMIT +?:\n%s", q)
		}
		plan := queryPlan(t, db, q, args...)
		if strings.Contains(strings.ReplaceAll(plan, "SCAN CONSTANT ROW", ""), "SCAN ") || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("query scans or sorts:\n%s\nplan: %s", q, plan)
		}
		t.Logf("%s", plan)
	}
}

func TestOpenBadPath(t *testing.T) {
	for _, p := range []string{"", ":memory:", "file:x.db", "x.db?mode=ro"} {
		if db, err := Open(context.Background(), p); err == nil {
			db.Close()
			t.Errorf("Open(%q) succeeded, want an error", p)
		}
	}
}

// TestCreateWhole: a new database is built beside its path and linked into place, so
// nothing but the database is left next to it (and what crashed builds left goes), and
// the file is a WAL database with the whole schema from the start.
func TestCreateWhole(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "mynah.db")
	// What a build that crashed a day ago left beside it goes; a build under way (a
	// minute old) stays.
	old, recent := path+".new-1", path+".new-2"
	for _, name := range []string{old, recent} {
		if err := os.WriteFile(name, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(old, time.Now().Add(-24*time.Hour), time.Now().Add(-24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(recent, time.Now().Add(-time.Minute), time.Now().Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, `INSERT INTO chats (agent, chat_id, type, title, username, is_forum, updated_at) VALUES ('a', 1, 'private', 'x', '', 0, 0)`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.Contains(filepath.Base(n), ".new-") && n != recent {
			t.Errorf("left beside the database: %s", n)
		}
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("another build under way was removed: %v", err)
	}
	head := make([]byte, 20)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.ReadFull(f, head); err != nil {
		t.Fatal(err)
	}
	if head[18] != 2 || head[19] != 2 {
		t.Errorf("file format bytes = %d, %d, want 2, 2 (WAL)", head[18], head[19])
	}
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM chats`).Scan(&n); err != nil || n != 1 {
		t.Errorf("chats after reopening: %d, %v; want the one written", n, err)
	}
	checkIntegrity(t, path)
}
