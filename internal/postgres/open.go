// Package postgres implements the mynah store contracts on PostgreSQL through pgx: the
// scale-out backend, where several mynah instances share one database. It keeps the
// semantics of internal/sqlite (the conformance suite in internal/storetest holds both to
// them) and SQLite's row shapes (times as Unix milliseconds, JSON columns as text), so that
// `mynah store copy` moves rows column for column. Nothing in this package deletes or
// truncates stored messages.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/termcount"
)

// DB is a mynah.Store on one PostgreSQL database (or one schema of it: the search_path of
// the connection string decides). It is safe for concurrent use, by goroutines and by
// other processes sharing the database.
//
// Statements run through pgx's statement cache: each connection prepares a statement the
// first time it runs it and reuses it afterwards, so the pipeline's hot paths are parsed
// and planned once per connection.
type DB struct {
	pool   *pgxpool.Pool
	dsn    string // without the password, for messages
	now    func() time.Time
	logger *slog.Logger

	claims *claims // nil: one instance
	// vectorSchema is the schema of the vector extension when vectors are ranked in the
	// server (pgvector.go); empty: they are scored in mynah.
	vectorSchema string
	// insertEmbedded stores a vector with its embedding column (vectorSchema set).
	insertEmbedded string
	// ownPIDs are the backend process ids of the pool's connections: a notification one
	// of them sent is this instance's own (see Coordinate).
	ownPIDs sync.Map // uint32 → struct{}
	// terms remembers the counts of search terms (see probe).
	terms termcount.Cache[probeKey]

	closeOnce sync.Once
}

// DB implements every store contract: one added to mynah.Store fails the build here
// until DB implements it too.
var _ mynah.Store = (*DB)(nil)

// Options tune Open; the zero value suits a server on a small machine.
type Options struct {
	// MaxConns bounds the pool; 0 means 8: enough for a few agents' lanes, the poller and
	// background work on two cores without queueing in PostgreSQL.
	MaxConns int32
	// Serve opens the store for a serving instance that shares the database with others
	// (see claims.go): it takes a presence lock on a connection of its own, and its
	// PendingTurns and PendingParts return only the work of the chats it serves. Operator
	// commands leave it off and see everything.
	Serve bool
	// Logger receives what the coordination of instances reports; nil: nothing.
	Logger *slog.Logger
}

// IsURL reports whether s names a PostgreSQL database (postgres:// or postgresql://).
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Open connects to the database at dsn (a postgres:// URL or a key=value string), applies
// the embedded migrations it lacks under an advisory lock, so that instances starting
// together migrate once, and returns the store. The caller closes it.
func Open(ctx context.Context, dsn string, opts Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx's parse errors may quote the connection string, password included.
		return nil, fmt.Errorf("postgres: open %s: invalid connection string", Redact(dsn))
	}
	cfg.MaxConns = opts.MaxConns
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 8
	}
	cfg.MinConns = 1
	cfg.MaxConnIdleTime = 5 * time.Minute
	cfg.HealthCheckPeriod = 15 * time.Second
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	// Most writes commit asynchronously (see durable); a connection string that sets
	// synchronous_commit decides for every write instead.
	if cfg.ConnConfig.RuntimeParams["synchronous_commit"] == "" {
		cfg.ConnConfig.RuntimeParams["synchronous_commit"] = "off"
	}
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		// pg_stat_activity then tells the instances sharing a database apart.
		cfg.ConnConfig.RuntimeParams["application_name"] = "mynah/" + strconv.Itoa(os.Getpid())
	}
	db := &DB{dsn: Redact(dsn), now: time.Now, logger: opts.Logger}
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		db.ownPIDs.Store(c.PgConn().PID(), struct{}{})
		return nil
	}
	cfg.BeforeClose = func(c *pgx.Conn) { db.ownPIDs.Delete(c.PgConn().PID()) }
	db.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open %s: %w", db.dsn, translate(ctx, err))
	}
	// A serving instance waits for a database that is restarting (or cut it off a moment
	// ago) rather than exit: its peers carry on, and so should it once the server is back.
	wait := time.Duration(0)
	if opts.Serve {
		wait = serveOpenWait
	}
	if err := db.retry(ctx, wait, "migrating", db.migrate); err != nil {
		db.pool.Close()
		return nil, fmt.Errorf("postgres: open %s: %w", db.dsn, translate(ctx, err))
	}
	if err := db.retry(ctx, wait, "search index", db.finishRebuild); err != nil {
		db.pool.Close()
		return nil, fmt.Errorf("postgres: open %s: %w", db.dsn, translate(ctx, err))
	}
	if err := db.retry(ctx, wait, "vector extension", db.enableVectors); err != nil {
		db.pool.Close()
		return nil, fmt.Errorf("postgres: open %s: %w", db.dsn, translate(ctx, err))
	}
	if opts.Serve {
		err := db.retry(ctx, wait, "presence lock", func(ctx context.Context) (err error) {
			db.claims, err = db.newClaims(ctx)
			return err
		})
		if err != nil {
			db.pool.Close()
			return nil, fmt.Errorf("postgres: open %s: presence lock: %w", db.dsn, translate(ctx, err))
		}
	}
	return db, nil
}

// serveOpenWait bounds how long Open with Options.Serve retries a database that is
// unavailable.
const serveOpenWait = time.Minute

// retry runs fn until it succeeds, fails for a reason other than the database being
// unavailable, or wait has passed, backing off from 100 ms to 5 s between tries.
func (db *DB) retry(ctx context.Context, wait time.Duration, what string, fn func(context.Context) error) error {
	end := time.Now().Add(wait)
	backoff := 100 * time.Millisecond
	for {
		err := fn(ctx)
		if err == nil || !unavailable(err) || ctx.Err() != nil || time.Now().Add(backoff).After(end) {
			return err
		}
		db.log(what+": database unavailable, retrying", err)
		sleep(ctx, backoff)
		backoff = min(2*backoff, 5*time.Second)
	}
}

// unavailable reports an error of a database that cannot be reached, or that is shutting
// down or starting up (SQLSTATE classes 08 and 57), rather than one refusing the request
// (a wrong password is final).
func unavailable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57")
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// Redact returns dsn without its password, for messages and logs.
func Redact(dsn string) string {
	if IsURL(dsn) {
		u, err := url.Parse(dsn)
		if err != nil {
			return "postgres://…"
		}
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		return u.Redacted()
	}
	var out []string
	for _, f := range strings.Fields(dsn) {
		if k, _, ok := strings.Cut(f, "="); ok && strings.EqualFold(k, "password") {
			f = k + "=xxxxx"
		}
		out = append(out, f)
	}
	return strings.Join(out, " ")
}

// String names the database without its password.
func (db *DB) String() string { return db.dsn }

// Close closes the pool, waiting for the connections in use to be returned. It is safe to
// call more than once. A serving store first gives up its chats (see releaseClaims).
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		if db.claims != nil {
			db.releaseClaims()
			db.claims.close()
		}
		db.pool.Close()
	})
	return nil
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: ping %s: %w", db.dsn, translate(ctx, err))
	}
	return nil
}

// Pool is the connection pool, for the store copy and tests; callers must not close it.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// inTx runs fn in a transaction and commits it when fn returns nil. A transaction that
// fails on a serialization failure or a deadlock (two instances racing for the same rows)
// is retried a few times, from the start.
func (db *DB) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := pgx.BeginFunc(ctx, db.pool, fn)
		if err == nil || attempt == 4 || !retryable(err) || ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Duration(attempt+1) * 10 * time.Millisecond)
	}
}

// durable makes tx's commit wait until its WAL is on disk. Connections commit
// asynchronously by default, as SQLite's synchronous=NORMAL does: a commit survives the
// crash of a mynah process at once, and a crash of the PostgreSQL server or its machine
// may lose the last fraction of a second of them. The writes that must not be lost even
// then call durable: an accepted update (Telegram is told it was handled), an import, a
// removal a user asked for. A durable commit also makes every earlier commit durable,
// since the WAL is written in order.
func durable(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = on`)
	return err
}

// retryable reports a transaction that lost a race and may be run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "40001", "40P01": // serialization_failure, deadlock_detected
		return true
	}
	return false
}
