package postgres

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mynah-ai/mynah"
)

// Several mynah instances serve the same agents from one database. What each must do
// alone is decided in PostgreSQL:
//
//   - Updates are deduplicated by the updates primary key (Accept), so in webhook mode
//     any instance may take any update.
//   - Each chat is served by one instance at a time: PendingTurns and PendingParts claim
//     the chats they return work of (chat_claims), and return no work of a chat another
//     live instance holds, so a chat's turns run one at a time and in order and its
//     replies are sent once. An instance is live while it holds its presence lock, a
//     session advisory lock on its own connection: when the instance dies, however it
//     dies, PostgreSQL drops the lock with the connection and the next scan of another
//     instance takes its chats over. FinishTurn refuses to finish a turn of a chat that
//     another live instance has taken meanwhile (a partitioned instance coming back), so
//     its stale answer is never enqueued.
//   - Work nobody may do twice at once (each bot's long poll, media descriptions, memory
//     upkeep) runs under Elect, in the instance holding that work's advisory lock.
//   - A chat's claim is also a lease: each send renews it (Hold, just before the part
//     goes to Telegram, which also checks the part is still pending), and a chat is
//     taken over only once its owner is gone and its claim was last renewed more than
//     lease ago. An instance whose presence lapsed (its connection cut) but which still
//     holds a chat's work in memory therefore either sends within the lease it renewed,
//     before anyone may take the chat, or finds at its next Hold that the chat is
//     another's and drops the work; its stale parts are never sent after the new owner's.
//   - A queued turn notifies the other instances (NOTIFY) so that the one holding its
//     chat wakes at once, unless the queuing instance runs it itself (an accepted
//     message in a chat it serves); an instance ignores its own notifications. Runners
//     also rescan every few seconds, the fallback when a notification is lost with a
//     connection.

// claims is this instance's identity when several instances share the database; nil in
// a store opened for one process (operator commands).
type claims struct {
	owner int64         // the key of this instance's presence lock
	lease time.Duration // see defaultLease
	mu    sync.Mutex
	// presence holds the presence lock; Coordinate keeps it alive and listens on it.
	presence  *pgx.Conn
	listening bool
	// The last reading of the presence locks (see live).
	liveOwners []int64
	liveAt     time.Time // the database's clock
	liveRead   time.Time // this process's
	// held are the parts whose chat's lease FinishTurnWith renewed as it enqueued them:
	// until when (this process's clock) their first send needs no Hold.
	heldMu sync.Mutex
	held   map[int64]time.Time
}

// conn returns the presence connection, nil when closed.
func (c *claims) conn() *pgx.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.presence == nil || c.presence.IsClosed() {
		return nil
	}
	return c.presence
}

// close closes the presence connection, releasing the presence lock.
func (c *claims) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.presence != nil {
		c.presence.Close(context.Background())
		c.presence = nil
	}
}

// releaseClaims gives up this instance's chats as it closes, after everything that
// sends has stopped (a serving process closes its store last): another instance, or
// this one started again, takes them over at once instead of waiting out their leases,
// during which a turn run by the new one is refused as it finishes (errClaimLost) and
// run again, its model called twice. A failure leaves the leases to run out, as when an
// instance dies.
func (db *DB) releaseClaims() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := db.pool.Exec(ctx, `DELETE FROM chat_claims WHERE owner = $1`, db.claims.owner); err != nil {
		db.log("releasing the chats on close", err)
	}
}

// errClaimLost refuses to finish a turn of a chat another instance took over.
var errClaimLost = fmt.Errorf("finishing a turn: %w", mynah.ErrNotHeld)

// defaultLease is how long a Hold keeps a chat from being taken over once its owner is
// gone: it covers the moment from the Hold to the start of the send it guards, with a
// wide margin for a stalled process, and it is what the users of a killed instance wait
// at most, beyond the next scan, for their chats to be taken over.
const defaultLease = 5 * time.Second

// liveOwners is the CTE of the owners holding their presence lock: the instances alive.
const liveOwners = `live AS (SELECT (l.classid::bigint << 32) | l.objid::bigint AS owner FROM pg_locks l
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
			AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))`

// claimTurnsCTE and claimPartsCTE complete the claim of the chats of CTE work for owner $2: a scan writes only
// the chats it takes (never claimed, or claimed by an instance that is gone); those it
// holds already are read, not written again. Rows are locked in chat order, so that two
// instances claiming at once cannot deadlock. mine is the chats this instance holds.
//
// Which instances are alive comes as parameters, a recent reading of the presence locks
// (see live): the owners holding theirs, and when (the database's clock) that was read
// ($5 and $6 for turns, $4 and $5 for parts). A claim made after that reading counts as
// alive: its owner was, to make it.
const (
	claimTurnsCTE = `held AS (SELECT c.chat_id, c.owner, c.claimed_at FROM chat_claims c
		WHERE c.agent = $1 AND c.chat_id IN (SELECT chat_id FROM work)),
	taken AS (
		INSERT INTO chat_claims AS c (agent, chat_id, owner, claimed_at)
		SELECT $1, w.chat_id, $2::bigint, now() FROM work w
		WHERE NOT EXISTS (SELECT 1 FROM held h WHERE h.chat_id = w.chat_id
			AND (h.owner = $2 OR h.owner = ANY($5::bigint[]) OR h.claimed_at >= $6::timestamptz))
			AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.agent = $1 AND o.chat_id = w.chat_id
				AND o.sent_at IS NULL AND o.failed_at IS NULL)
		ORDER BY w.chat_id
		ON CONFLICT (agent, chat_id) DO UPDATE SET owner = excluded.owner, claimed_at = excluded.claimed_at
		WHERE c.owner <> excluded.owner AND NOT (c.owner = ANY($5::bigint[]) OR c.claimed_at >= $6::timestamptz)
		RETURNING chat_id),
	mine AS (SELECT chat_id FROM taken UNION ALL SELECT chat_id FROM held WHERE owner = $2)`
	claimPartsCTE = `held AS (SELECT c.chat_id, c.owner, c.claimed_at FROM chat_claims c
		WHERE c.agent = $1 AND c.chat_id IN (SELECT chat_id FROM work)),
	taken AS (
		INSERT INTO chat_claims AS c (agent, chat_id, owner, claimed_at)
		SELECT $1, w.chat_id, $2::bigint, now() FROM work w
		WHERE NOT EXISTS (SELECT 1 FROM held h WHERE h.chat_id = w.chat_id
			AND (h.owner = $2 OR h.owner = ANY($4::bigint[]) OR h.claimed_at >= $5::timestamptz))
		ORDER BY w.chat_id
		ON CONFLICT (agent, chat_id) DO UPDATE SET owner = excluded.owner, claimed_at = excluded.claimed_at
		WHERE c.owner <> excluded.owner AND NOT (c.owner = ANY($4::bigint[]) OR c.claimed_at >= $5::timestamptz)
		RETURNING chat_id),
	mine AS (SELECT chat_id FROM taken UNION ALL SELECT chat_id FROM held WHERE owner = $2)`
)

const (
	// queryClaimedTurns claims the chats with due turns and returns the turns of those it
	// holds. It takes over no chat that still has parts to deliver (see claimTurnsCTE): a
	// chat's undelivered parts must go out before its next answer, and a runner reads the
	// outbox only when woken, so such a chat is taken over by a scan of the outbox
	// (Coordinate wakes the runners for it), which finds its parts and turns together.
	// Binds agent, owner, now, limit, live owners, their time.
	queryClaimedTurns = `WITH work AS (SELECT DISTINCT chat_id FROM turns WHERE agent = $1 AND done_at IS NULL AND due <= $3), ` +
		claimTurnsCTE + `
		SELECT ` + turnColumns + ` FROM turns t
		WHERE agent = $1 AND done_at IS NULL AND due <= $3 AND chat_id IN (SELECT chat_id FROM mine)
			AND NOT (chat_id IN (SELECT chat_id FROM taken) AND EXISTS (SELECT 1 FROM outbox o
				WHERE o.agent = $1 AND o.chat_id = t.chat_id AND o.sent_at IS NULL AND o.failed_at IS NULL))
		ORDER BY id LIMIT $4`
	// queryClaimedParts is the same for the outbox. Binds agent, owner, limit, live
	// owners, their time.
	queryClaimedParts = `WITH work AS (SELECT DISTINCT chat_id FROM outbox WHERE agent = $1 AND sent_at IS NULL AND failed_at IS NULL), ` +
		claimPartsCTE + `
		SELECT ` + partColumns + ` FROM outbox
		WHERE agent = $1 AND sent_at IS NULL AND failed_at IS NULL AND chat_id IN (SELECT chat_id FROM mine) ORDER BY id LIMIT $3`
	queryLive = `WITH ` + liveOwners + ` SELECT array(SELECT owner FROM live), now()`
)

// liveEvery is how long a reading of the presence locks serves the scans: reading them
// costs a walk of PostgreSQL's lock table, and a dead instance's chats wait at most this
// much longer to be taken over.
const liveEvery = time.Second

// live returns the owners holding their presence lock, and the database's time when that
// was read, at most liveEvery ago.
func (db *DB) live(ctx context.Context) ([]int64, time.Time, error) {
	c := db.claims
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.liveRead) < liveEvery {
		return c.liveOwners, c.liveAt, nil
	}
	var owners []int64
	var at time.Time
	if err := db.pool.QueryRow(ctx, queryLive).Scan(&owners, &at); err != nil {
		return nil, time.Time{}, err
	}
	c.liveOwners, c.liveAt, c.liveRead = owners, at, time.Now()
	return owners, at, nil
}

// The scans count a claim as alive when it was made or renewed (Hold) less than the
// lease before the reading of the presence locks: its owner was alive then, and may
// still be sending under it.
func (db *DB) claimedTurns(ctx context.Context, agent string, now time.Time, limit int) (pgx.Rows, error) {
	owners, at, err := db.live(ctx)
	if err != nil {
		return nil, err
	}
	return db.pool.Query(ctx, queryClaimedTurns, agent, db.claims.owner, now.UnixMilli(), limit, owners, at.Add(-db.claims.lease))
}

func (db *DB) claimedParts(ctx context.Context, agent string, limit int) (pgx.Rows, error) {
	owners, at, err := db.live(ctx)
	if err != nil {
		return nil, err
	}
	return db.pool.Query(ctx, queryClaimedParts, agent, db.claims.owner, limit, owners, at.Add(-db.claims.lease))
}

// holdPart renews the claim of a pending part's chat if this instance ($2) holds it.
const holdPart = `UPDATE chat_claims c SET claimed_at = now() FROM outbox o
	WHERE o.id = $1 AND o.sent_at IS NULL AND o.failed_at IS NULL
		AND c.agent = o.agent AND c.chat_id = o.chat_id AND c.owner = $2`

// Hold fails with an error wrapping mynah.ErrNotHeld unless this instance holds the chat
// of the part and the part is pending; when it succeeds, it renewed the chat's lease, so
// no other instance takes the chat over for the lease's length (see the scans above).
// It is called just before each send: an instance cut off from the database meanwhile
// cannot send what the chat's new owner sends. A store opened without Options.Serve
// lets every send go ahead.
func (db *DB) Hold(ctx context.Context, partID int64) error {
	if db.claims == nil || db.claims.holding(partID) {
		return nil
	}
	tag, err := db.pool.Exec(ctx, holdPart, partID, db.claims.owner)
	if err != nil {
		return fail(ctx, err, "hold part %d", partID)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: hold part %d: %w", partID, mynah.ErrNotHeld)
	}
	return nil
}

// holdUntil records parts, just enqueued in a chat whose claim was renewed in the same
// transaction, which began after start: until start plus half the lease, the first send
// of each is covered by that renewal as by a Hold of its own, so Hold skips its round
// trip. No other instance can have taken the chat over by then (a takeover waits out
// the whole lease from the renewal), and no other lane of this one sends the part (a
// chat's parts go out in one lane). A send later than that, or a second attempt, holds
// as usual. A nil c (one instance) records nothing.
func (c *claims) holdUntil(parts []int64, start time.Time) {
	if c == nil || len(parts) == 0 {
		return
	}
	until := start.Add(c.lease / 2)
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	if c.held == nil || len(c.held) > 4096 {
		// Parts never sent (given up, or sent by a successor) go with the rest.
		now := time.Now()
		old := c.held
		c.held = map[int64]time.Time{}
		for id, t := range old {
			if now.Before(t) {
				c.held[id] = t
			}
		}
	}
	for _, id := range parts {
		c.held[id] = until
	}
}

// holding reports, once, whether the part may be sent without a Hold (see holdUntil).
func (c *claims) holding(part int64) bool {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	until, ok := c.held[part]
	if ok {
		delete(c.held, part)
	}
	return ok && time.Now().Before(until)
}

// heldBy is the claim of a chat as a statement read it: its owner and when it was made
// or last renewed, both NULL when nobody claimed the chat.
type heldBy struct {
	owner sql.NullInt64
	at    sql.NullTime
}

// checkClaim fails with errClaimLost when another instance holds claim's chat and counts
// as alive as the scans count it (see claimedTurns): its owner held its presence lock at
// the last reading of the locks, or the claim is younger than the lease then. An owner
// gone a moment ago may still count as alive: the turn is then left to the scans, which
// take the chat over and run it again.
func (db *DB) checkClaim(ctx context.Context, claim heldBy) error {
	if db.claims == nil || !claim.owner.Valid || claim.owner.Int64 == db.claims.owner {
		return nil
	}
	owners, at, err := db.live(ctx)
	if err != nil {
		return err
	}
	if slices.Contains(owners, claim.owner.Int64) || claim.at.Valid && !claim.at.Time.Before(at.Add(-db.claims.lease)) {
		return errClaimLost
	}
	return nil
}

// queueClaimed sends b, then q (insertTurn, its arguments args, queuing a turn of chat
// for agent), in one round trip in tx, sets *id to the turn's id, and reports whether
// this instance may run the turn straight away, without reading the queue: with one
// instance always; with several only when it holds the chat, or the chat was never
// claimed and it takes it now. A chat another instance holds, or held before it went, is
// left to the scans, which order its takeover after its undelivered parts; only then are
// the other instances notified, so that the holder wakes: a turn this instance runs
// itself wakes nobody, and no instance scans the queue for it.
func (db *DB) queueClaimed(ctx context.Context, tx pgx.Tx, b *pgx.Batch, q string, args []any, agent string, chat mynah.ChatID, id *int64) (bool, error) {
	n := b.Len()
	b.Queue(q, args...)
	if db.claims != nil {
		b.Queue(claimChat, agent, int64(chat), db.claims.owner)
	}
	res := tx.SendBatch(ctx, b)
	mine := true
	err := func() error {
		for range n {
			if _, err := res.Exec(); err != nil {
				return err
			}
		}
		if err := res.QueryRow().Scan(id); err != nil {
			return err
		}
		if db.claims == nil {
			return nil
		}
		var owner int64
		if err := res.QueryRow().Scan(&owner, nil); err != nil {
			return err
		}
		mine = owner == db.claims.owner
		return nil
	}()
	return mine, errors.Join(err, res.Close())
}

// claimChat takes for this instance ($3) agent's ($1) chat ($2) if nobody claimed it,
// and returns the chat's owner; when that is another instance, it notifies the others
// (see workChannel) that agent has a new turn. Its second column counts the
// notifications (0 or 1).
const claimChat = `WITH taken AS (INSERT INTO chat_claims (agent, chat_id, owner, claimed_at)
		VALUES ($1, $2, $3, now()) ON CONFLICT (agent, chat_id) DO NOTHING RETURNING owner),
	o AS (SELECT owner FROM taken UNION ALL SELECT owner FROM chat_claims WHERE agent = $1 AND chat_id = $2 LIMIT 1),
	n AS (SELECT pg_notify('` + workChannel + `', current_schema() || ' ' || $1) FROM o WHERE o.owner <> $3)
	SELECT owner, (SELECT count(*) FROM n) FROM o`

// workChannel is the channel of the notifications of queued turns; the payload is the
// schema and the agent, so that stores in other schemas of the database ignore them.
const workChannel = "mynah_work"

// newClaims draws this instance's owner key and takes its presence lock on a connection
// of its own.
func (db *DB) newClaims(ctx context.Context) (*claims, error) {
	var b [8]byte
	rand.Read(b[:])
	c := &claims{owner: int64(binary.LittleEndian.Uint64(b[:]) >> 1), lease: defaultLease}
	conn, err := db.presenceConn(ctx, c.owner)
	if err != nil {
		return nil, err
	}
	c.presence = conn
	return c, nil
}

// presenceConn connects and takes the presence lock of owner.
func (db *DB) presenceConn(ctx context.Context, owner int64) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, owner); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	return conn, nil
}

// Coordinate keeps this instance present among those sharing the database, and calls
// wake with the agent of every turn another instance queued (wake("") after a
// reconnection: notifications may have been missed), until ctx is done; then it returns
// nil. A lost connection is reconnected with backoff; while it is down, other instances
// take over this one's chats. It does nothing in a store opened without Options.Serve.
func (db *DB) Coordinate(ctx context.Context, wake func(agent string)) error {
	if db.claims == nil {
		<-ctx.Done()
		return nil
	}
	c := db.claims
	var (
		schema string
		check  time.Time // when to check next
	)
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		conn := c.conn()
		if conn == nil {
			var err error
			if conn, err = db.presenceConn(ctx, c.owner); err != nil {
				if ctx.Err() == nil {
					db.log("presence: reconnecting", err)
				}
				sleep(ctx, backoff)
				backoff = min(2*backoff, 5*time.Second)
				continue
			}
			c.mu.Lock()
			c.presence, c.listening = conn, false
			c.mu.Unlock()
			wake("")
		}
		if !c.listening {
			err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema)
			if err == nil {
				_, err = conn.Exec(ctx, `LISTEN `+workChannel)
			}
			if err != nil {
				if ctx.Err() == nil {
					db.log("presence: listening", err)
				}
				c.close()
				continue
			}
			c.listening = true
		}
		backoff = 100 * time.Millisecond
		if !time.Now().Before(check) {
			// Check the connection (and the lock with it) is still there, and whether an
			// instance that went left parts undelivered whose lease ran out: the runners
			// read their outbox only when woken, and nothing else would wake them for it.
			var orphans bool
			if err := conn.QueryRow(ctx, queryOrphans, c.lease.Milliseconds()).Scan(&orphans); err != nil {
				if ctx.Err() == nil {
					db.log("presence: connection lost", err)
					c.close()
				}
				continue
			}
			if orphans {
				wake("")
			}
			check = time.Now().Add(checkEvery)
		}
		wait, cancel := context.WithDeadline(ctx, check)
		n, err := conn.WaitForNotification(wait)
		cancel()
		switch {
		case err == nil:
			// A turn this instance queued itself needs no waking: whoever queued it told
			// the runner (as with SQLite, where nothing notifies), and a scan it woke would
			// read the queue for nothing, once per message.
			if _, own := db.ownPIDs.Load(n.PID); own {
				break
			}
			if s, agent, ok := strings.Cut(n.Payload, " "); ok && s == schema {
				wake(agent)
			}
		case ctx.Err() != nil, pgconn.Timeout(err):
		default:
			db.log("presence: connection lost", err)
			c.close()
		}
	}
	return nil
}

// checkEvery is how often Coordinate checks its connection and looks for orphans.
const checkEvery = 5 * time.Second

// queryOrphans reports pending parts of chats whose owner is gone and whose lease ($1,
// in milliseconds) ran out: parts a killed instance left, which another instance takes
// over when its runner reads the outbox. It walks the outbox_pending index only.
const queryOrphans = `WITH ` + liveOwners + ` SELECT EXISTS (SELECT 1 FROM outbox o
		JOIN chat_claims c ON c.agent = o.agent AND c.chat_id = o.chat_id
		WHERE o.sent_at IS NULL AND o.failed_at IS NULL
			AND c.owner NOT IN (SELECT owner FROM live) AND c.claimed_at < now() - $1 * interval '1 millisecond')`

// Elect runs fn while this instance holds the advisory lock of name (in its schema), so
// that of the instances sharing the database exactly one runs it at a time; the others
// wait, trying for the lock every two seconds, and one of them takes over within seconds
// of the holder's death. fn's context ends when the lock's connection is lost, and fn
// runs again once the lock is held again. Elect returns nil when ctx is done, and fn's
// own failure (an error returned while its context was not done) at once.
func (db *DB) Elect(ctx context.Context, name string, fn func(context.Context) error) error {
	const retry = 2 * time.Second
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig.Copy())
		if err != nil {
			if ctx.Err() == nil {
				db.log("elect "+name+": connecting", err)
			}
			sleep(ctx, retry)
			continue
		}
		err = db.lead(ctx, conn, name, fn)
		conn.Close(context.Background())
		if err != nil {
			return err
		}
	}
	return nil
}

// lead tries for name's lock on conn until it holds it, then runs fn until ctx is done,
// conn is lost or fn fails; it returns fn's failure.
func (db *DB) lead(ctx context.Context, conn *pgx.Conn, name string, fn func(context.Context) error) error {
	const retry = 2 * time.Second
	for ctx.Err() == nil {
		var held bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtextextended(current_schema() || ' mynah ' || $1, 0))`, name).Scan(&held); err != nil {
			if ctx.Err() == nil {
				db.log("elect "+name, err)
			}
			return nil
		}
		if held {
			break
		}
		sleep(ctx, retry)
	}
	if ctx.Err() != nil {
		return nil
	}
	run, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() {
		err := fn(run)
		if run.Err() != nil {
			err = nil // stopped: no failure of fn's own
		}
		done <- err
	}()
	t := time.NewTicker(retry)
	defer t.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			stop()
			return <-done
		case <-t.C:
		}
		if _, err := conn.Exec(ctx, `SELECT 1`); err != nil && ctx.Err() == nil {
			db.log("elected "+name+": lost the lock's connection, stopping", err)
			stop()
			return <-done
		}
	}
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// log reports a failure of the coordination, which carries on.
func (db *DB) log(what string, err error) {
	if db.logger != nil {
		db.logger.Warn(what, "err", fmt.Sprint(translate(context.Background(), err)))
	}
}
