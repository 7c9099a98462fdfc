package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

var (
	_ mynah.Pairings  = (*DB)(nil)
	_ mynah.ChatModes = (*DB)(nil)
)

const (
	pairingColumns   = `code, agent, user_id, first_name, last_name, username, created, expires, approved_at`
	queryUserPending = `SELECT ` + pairingColumns + ` FROM pairings
		WHERE agent = $1 AND user_id = $2 AND approved_at IS NULL AND expires > $3 ORDER BY expires DESC LIMIT 1`
	countPending  = `SELECT count(*) FROM pairings WHERE agent = $1 AND approved_at IS NULL AND expires > $2`
	insertPairing = `INSERT INTO pairings (code, agent, user_id, first_name, last_name, username, created, expires)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
	queryPairing   = `SELECT ` + pairingColumns + ` FROM pairings WHERE code = $1 FOR UPDATE`
	approvePairing = `UPDATE pairings SET approved_at = $1 WHERE code = $2`
	queryApproved  = `SELECT 1 FROM pairings WHERE agent = $1 AND user_id = $2 AND approved_at IS NOT NULL LIMIT 1`
	queryPairings  = `SELECT ` + pairingColumns + ` FROM pairings
		WHERE ($1 = '' OR agent = $1) AND (approved_at IS NOT NULL OR expires > $2) ORDER BY created, code`
	queryChatMode  = `SELECT trigger, stopped, updated_at FROM chat_modes WHERE agent = $1 AND chat_id = $2`
	upsertChatMode = `INSERT INTO chat_modes (agent, chat_id, trigger, stopped, updated_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (agent, chat_id) DO UPDATE SET trigger = excluded.trigger, stopped = excluded.stopped,
			updated_at = excluded.updated_at`
	// lockPairings serializes the pairing requests of one agent, so that two instances
	// cannot both see room under maxPending and both add a code.
	lockPairings = `SELECT pg_advisory_xact_lock(hashtext('mynah pairings ' || $1))`
)

// RequestPairing implements mynah.Pairings: the user's pending code, or code stored for
// them when fewer than maxPending codes of agent are pending, in one transaction.
func (db *DB) RequestPairing(ctx context.Context, agent string, user mynah.User, code string, now time.Time, ttl time.Duration, maxPending int) (mynah.Pairing, bool, error) {
	if agent == "" || user.ID == 0 || code == "" || ttl <= 0 {
		return mynah.Pairing{}, false, fmt.Errorf("postgres: request pairing: agent, user, code and ttl are required")
	}
	var p mynah.Pairing
	var created bool
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		created = false
		if _, err := tx.Exec(ctx, lockPairings, agent); err != nil {
			return err
		}
		var err error
		p, err = scanPairing(tx.QueryRow(ctx, queryUserPending, agent, int64(user.ID), now.UnixMilli()))
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, countPending, agent, now.UnixMilli()).Scan(&n); err != nil {
			return err
		}
		if n >= maxPending {
			return mynah.ErrPairingsFull
		}
		p = mynah.Pairing{Agent: agent, Code: code, User: user, Created: now.Truncate(time.Millisecond).UTC(),
			Expires: now.Add(ttl).Truncate(time.Millisecond).UTC()}
		created = true
		_, err = tx.Exec(ctx, insertPairing, code, agent, int64(user.ID), user.FirstName, user.LastName,
			user.Username, p.Created.UnixMilli(), p.Expires.UnixMilli())
		return err
	})
	if errors.Is(err, mynah.ErrPairingsFull) {
		return mynah.Pairing{}, false, fmt.Errorf("postgres: pairing for user %d of %s: %w", user.ID, agent, err)
	}
	if err != nil {
		return mynah.Pairing{}, false, fail(ctx, err, "pairing for user %d of %s", user.ID, agent)
	}
	return p, created, nil
}

// ApprovePairing implements mynah.Pairings: it approves code and, with a welcome, queues
// a static turn to the user's private chat, in one transaction.
func (db *DB) ApprovePairing(ctx context.Context, code string, now time.Time, welcome string) (mynah.Pairing, error) {
	var p mynah.Pairing
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if p, err = scanPairing(tx.QueryRow(ctx, queryPairing, code)); err != nil {
			return err
		}
		switch {
		case !p.Approved.IsZero():
			return fmt.Errorf("already approved on %s: %w", p.Approved.Format(time.DateTime), mynah.ErrNotFound)
		case !p.Expires.After(now):
			return fmt.Errorf("expired on %s: %w", p.Expires.Format(time.DateTime), mynah.ErrNotFound)
		}
		p.Approved = now.Truncate(time.Millisecond).UTC()
		if _, err := tx.Exec(ctx, approvePairing, p.Approved.UnixMilli(), code); err != nil {
			return err
		}
		if welcome == "" {
			return nil
		}
		chat := int64(p.User.ID) // a private chat has the user's id
		if _, err := tx.Exec(ctx, ensureChat, p.Agent, chat, string(mynah.ChatPrivate), "", p.User.Username, false, now.UnixMilli()); err != nil {
			return err
		}
		_, err = db.insertTurnTx(ctx, tx, p.Agent, mynah.Turn{Chat: mynah.ChatID(chat), Static: welcome, Created: now})
		return err
	})
	if err != nil {
		return mynah.Pairing{}, fail(ctx, err, "approve pairing code %s", code)
	}
	return p, nil
}

// Approved implements mynah.Pairings.
func (db *DB) Approved(ctx context.Context, agent string, user mynah.UserID) (bool, error) {
	var one int
	err := db.pool.QueryRow(ctx, queryApproved, agent, int64(user)).Scan(&one)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fail(ctx, err, "approval of user %d of %s", user, agent)
	}
	return true, nil
}

// ListPairings implements mynah.Pairings.
func (db *DB) ListPairings(ctx context.Context, agent string, now time.Time) ([]mynah.Pairing, error) {
	rows, err := db.pool.Query(ctx, queryPairings, agent, now.UnixMilli())
	if err != nil {
		return nil, fail(ctx, err, "pairings of %q", agent)
	}
	out, err := scanAll(rows, scanPairing)
	if err != nil {
		return nil, fail(ctx, err, "pairings of %q", agent)
	}
	return out, nil
}

// ChatMode implements mynah.ChatModes.
func (db *DB) ChatMode(ctx context.Context, agent string, chat mynah.ChatID) (mynah.ChatMode, error) {
	m := mynah.ChatMode{Agent: agent, Chat: chat}
	var updated sql.NullInt64
	err := db.pool.QueryRow(ctx, queryChatMode, agent, int64(chat)).Scan(&m.Trigger, &m.Stopped, &updated)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return m, nil
	case err != nil:
		return mynah.ChatMode{}, fail(ctx, err, "mode of chat %d of %s", chat, agent)
	}
	m.Updated = storecodec.FromMillis(updated)
	return m, nil
}

// SetChatMode implements mynah.ChatModes. Agent and Chat are required.
func (db *DB) SetChatMode(ctx context.Context, m mynah.ChatMode) error {
	if m.Agent == "" || m.Chat == 0 {
		return fmt.Errorf("postgres: set chat mode: agent and chat are required")
	}
	_, err := db.pool.Exec(ctx, upsertChatMode, m.Agent, int64(m.Chat), m.Trigger, m.Stopped, storecodec.OrNow(m.Updated, db.now).UnixMilli())
	if err != nil {
		return fail(ctx, err, "set mode of chat %d of %s", m.Chat, m.Agent)
	}
	return nil
}

// scanPairing reads one row of pairingColumns.
func scanPairing(row scanner) (mynah.Pairing, error) {
	var p mynah.Pairing
	var user int64
	var created, expires, approved sql.NullInt64
	if err := row.Scan(&p.Code, &p.Agent, &user, &p.User.FirstName, &p.User.LastName, &p.User.Username,
		&created, &expires, &approved); err != nil {
		return mynah.Pairing{}, err
	}
	p.User.ID = mynah.UserID(user)
	p.Created, p.Expires, p.Approved = storecodec.FromMillis(created), storecodec.FromMillis(expires), storecodec.FromMillis(approved)
	return p, nil
}

// scanAll reads every row of rows with scan and closes rows.
func scanAll[T any](rows pgx.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
