// Package sqlite implements the mynah store contracts on an embedded SQLite database
// (modernc.org/sqlite: pure Go, no cgo). One file holds every agent's data; rows are keyed
// by agent. Nothing in this package deletes or truncates stored data.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/termcount"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// busyTimeoutMillis bounds how long a connection waits for a lock held by another process
// (an operator's CLI on the same file) before SQLITE_BUSY.
const busyTimeoutMillis = 5000

// DB is a mynah.Store on one SQLite file. It is safe for concurrent use.
//
// Writes go through their own *sql.DB limited to one connection, so concurrent writers
// queue in Go (honouring their contexts; those waiting together share one transaction,
// see commit.go) instead of contending for SQLite's write lock,
// which admits one writer at a time anyway and resolves contention with a busy handler
// that sleeps and retries. Measured here (2 noisy cores, Accept plus a History read per
// four, 2/8/32 goroutines): both designs do ~6-8k accepts/s at low concurrency, but with
// 32 goroutines a shared pool with _txlock=immediate and busy_timeout swung between 0.4k
// and 5.9k/s from run to run (writers asleep in the busy handler), while the single
// writer held 4.4-5.8k/s. Neither returned SQLITE_BUSY. The writer still begins
// transactions IMMEDIATE, so when another process (an operator's CLI) holds the lock, a
// transaction waits in busy_timeout at BEGIN instead of failing on a read-to-write upgrade.
// Reads use a separate pool of query-only connections: in WAL mode they never block the
// writer or each other and see every transaction committed before they start.
type DB struct {
	path  string
	write *sql.DB
	read  *sql.DB
	stmts *stmts
	now   func() time.Time
	lock  *os.File // held by OpenExclusive until Close; nil after Open
	terms termcount.Cache[termKey]

	commits committer // runs every write transaction (commit.go)

	closeOnce sync.Once
	closeErr  error
}

// DB implements every store contract: one added to mynah.Store fails the build here
// until DB implements it too.
var _ mynah.Store = (*DB)(nil)

// Open opens the database at path, creating the file and its parent directory when
// missing, and applies the embedded migrations that the file lacks. The database uses
// WAL, foreign keys, a busy timeout and synchronous=NORMAL (durable across process
// crashes; a power loss may drop the last transactions, never corrupt the file).
// The statements the store runs are prepared once, in the background or on first use.
// The caller closes the returned DB.
func Open(ctx context.Context, path string) (*DB, error) {
	return openWith(ctx, path, schemaSnapshot, false)
}

// openWith is Open with the given schema snapshot for a new database ("" runs every
// migration). A serving process's database (OpenExclusive) prepares the writer's
// statements in the background; a one-off command's does not (see prepareWriter).
//
// Readers do not map the file into memory (mmap_size): it took BenchmarkSearch from ~3.5
// to ~3.0 ms of CPU a search, but a serving process paid for it, with the file growing
// and remapped as it wrote: mynah bench load 1.45 -> 1.66 ms of CPU a message, page
// faults 4 -> 8 a message, and memory search's one-off process ~4 ms slower.
func openWith(ctx context.Context, path, snapshot string, serving bool) (*DB, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if err := create(ctx, path, snapshot); err != nil {
			return nil, fmt.Errorf("sqlite: create %q: %w", path, err)
		}
	}
	// soft_heap_limit (process-wide, SQLite's own memory outside the Go heap): above it,
	// page caches recycle their pages instead of growing. Schema, statements and lookaside
	// of the connections come to ~3 MB by themselves, so past that the caches stay small —
	// which costs little, since a WAL reader's cache is dropped at nearly every commit
	// anyway. Measured with mynah bench load (with 2 readers, below): SQLite's memory at
	// the last reply 6.3 -> 4.2 MB, RssAnon 19.5 -> 18.2 MB (means of 4), same CPU.
	common := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=soft_heap_limit(%d)", busyTimeoutMillis, softHeapLimit)

	// The writer's page cache is 512 KiB instead of SQLite's 2 MiB: what it writes is
	// mostly appended (new messages, turns, index segments), so it needs the right edges of
	// its B-trees, not 2 MiB, and the driver's allocator keeps what SQLite once used
	// mapped. Measured with mynah bench load: 2 MB less anon memory after the load, no
	// change in CPU per message, nor in importing 100,000 messages.
	write, err := sql.Open("sqlite", path+"?"+common+
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate&_pragma=cache_size(-512)")
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)

	// Readers keep a small page cache (256 KiB instead of SQLite's 2 MiB each): in WAL
	// mode a reader drops its whole cache whenever another connection committed since its
	// last read, which on a serving bot is nearly every read, so a larger cache holds
	// memory for few hits.
	read, err := sql.Open("sqlite", path+"?"+common+"&_pragma=query_only(1)&_pragma=cache_size(-256)")
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	// As many readers as cores: a read is CPU work (WAL readers never wait for the
	// writer), so more would not read faster, and each keeps its own schema, statements
	// and cache (~1 MB). At least 2, so a search never holds up every other read.
	n := max(2, runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	read.SetConnMaxIdleTime(0)
	read.SetConnMaxLifetime(0)

	db := &DB{path: path, write: write, read: read, now: time.Now}
	db.commits.db = db
	db.commits.start()
	abort := func(err error) (*DB, error) {
		db.commits.stop()
		read.Close()
		write.Close()
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	current, err := schemaCurrent(ctx, read)
	if err != nil {
		return abort(translate(ctx, err))
	}
	// A database whose schema is current is not written to at all here: a one-off
	// command that only reads (a search) never opens the writer connection, whose
	// first statement parses the whole schema again.
	if !current {
		if err := db.migrateWith(ctx, snapshot); err != nil {
			return abort(err)
		}
	}
	db.stmts = newStmts(write, read)
	if serving {
		db.stmts.prepareWriter()
	}
	return db, nil
}

// schemaCurrent reports, through a reader, whether the database is in WAL mode and has
// every migration this binary embeds. Anything else (an older schema, a newer one, a
// file that is not WAL yet) is for migrateWith to handle or report, on the writer.
func schemaCurrent(ctx context.Context, read *sql.DB) (bool, error) {
	var mode string
	if err := read.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
		return false, err
	}
	if !strings.EqualFold(mode, "wal") {
		return false, nil
	}
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return false, nil
	}
	var v sql.NullInt64
	err = read.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v)
	if err != nil {
		return false, nil // no such table yet: a database migrateWith has not seen
	}
	return v.Int64 == int64(ms[len(ms)-1].version), nil
}

// create builds a new database at path: in a file of its own beside it, without syncing
// (nothing in it is anyone's data yet), then synced once and linked into place. Turning
// an empty file into a WAL database and running the schema on it synced the disk six
// times, ~8 ms of a first start on the CI machine. A crash midway leaves only the file
// beside, and the next start builds anew. Link, unlike rename, never replaces a database
// that another process created meanwhile: that one is kept.
func create(ctx context.Context, path, snapshot string) (err error) {
	removeStaleBuilds(path)
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".new-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	f.Close()
	defer func() {
		for _, name := range []string{tmp, tmp + "-wal", tmp + "-shm", tmp + "-journal"} {
			if rerr := os.Remove(name); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && err == nil {
				err = rerr
			}
		}
	}()
	// No journal either: a failed build is thrown away whole. (The driver runs these
	// pragmas in lexical order, journal_mode first: a switch to WAL there would write
	// the empty file's first page through a synced rollback journal.)
	conn, err := sql.Open("sqlite", tmp+"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		return err
	}
	conn.SetMaxOpenConns(1)
	db := &DB{path: tmp, write: conn, now: time.Now}
	db.commits.db = db
	db.commits.start()
	err = db.migrateWith(ctx, snapshot)
	db.commits.stop()
	if err == nil {
		_, err = conn.ExecContext(ctx, "PRAGMA journal_mode=WAL")
	}
	// Closing the only connection checkpoints the WAL into the file, which stays a WAL
	// database.
	if err := errors.Join(err, conn.Close()); err != nil {
		return err
	}
	if err := syncFile(tmp); err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return syncFile(filepath.Dir(path))
}

// staleBuild is the age past which a file create left beside a database is one a crash
// abandoned: a build takes milliseconds.
const staleBuild = time.Hour

// removeStaleBuilds removes what builds of a new database at path that crashed left
// beside it (create's files, with their journal, WAL and shared-memory files). Another
// process's build under way is younger than staleBuild and stays. Best effort: a file that
// cannot be removed is left.
func removeStaleBuilds(path string) {
	names, _ := filepath.Glob(path + ".new-*")
	for _, name := range names {
		if fi, err := os.Stat(name); err == nil && time.Since(fi.ModTime()) > staleBuild {
			_ = os.Remove(name)
		}
	}
}

// syncFile flushes the file or directory name to disk.
func syncFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// softHeapLimit bounds SQLite's own heap, in bytes (see openWith).
const softHeapLimit = 3 << 20

// checkPath rejects what the driver would read as something other than a file: a DSN,
// a URI, an in-memory database.
func checkPath(path string) error {
	if path == "" || strings.ContainsRune(path, '?') || strings.HasPrefix(path, "file:") || path == ":memory:" {
		return fmt.Errorf("sqlite: open %q: want a plain file path", path)
	}
	return nil
}

// Close closes the prepared statements and the database, waiting for running queries,
// and then releases OpenExclusive's lock. It is safe to call more than once and returns
// the first call's result.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		db.commits.stop() // lets the transaction under way finish
		db.closeErr = errors.Join(db.stmts.close(), db.read.Close(), db.write.Close())
		if db.lock != nil {
			db.closeErr = errors.Join(db.closeErr, db.lock.Close())
		}
		if db.closeErr != nil {
			db.closeErr = fmt.Errorf("sqlite: close %q: %w", db.path, db.closeErr)
		}
	})
	return db.closeErr
}

// Path is the database file's path.
func (db *DB) Path() string { return db.path }

// Ping checks that the database answers a read.
func (db *DB) Ping(ctx context.Context) error { return db.read.PingContext(ctx) }

// QuickCheck runs SQLite's quick_check over the database and returns what it found
// wrong, nil when the file is sound.
func (db *DB) QuickCheck(ctx context.Context) error {
	rows, err := db.read.QueryContext(ctx, `PRAGMA quick_check`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("sqlite: %s is damaged: %s", db.path, strings.Join(problems, "; "))
	}
	return nil
}
