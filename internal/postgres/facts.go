package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

var _ mynah.Facts = (*DB)(nil)

// Facts are the one kind of history-derived row this package deletes: derived data that
// its owner asked the agent to forget, or that the per-user cap evicts.
const (
	factColumns   = `id, agent, user_id, text, chat_id, message_id, scope, created`
	insertFact    = `INSERT INTO facts (agent, user_id, text, norm, chat_id, message_id, scope, created) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`
	shareFact     = `UPDATE facts SET scope = 'shared' WHERE id = $1`
	queryFactNorm = `SELECT ` + factColumns + ` FROM facts WHERE agent = $1 AND user_id = $2 AND norm = $3`
	countFacts    = `SELECT count(*) FROM facts WHERE agent = $1 AND user_id = $2`
	evictFacts    = `DELETE FROM facts WHERE id IN (SELECT id FROM facts WHERE agent = $1 AND user_id = $2 ORDER BY id LIMIT $3)`
	deleteFact    = `DELETE FROM facts WHERE id = $1 AND agent = $2 AND user_id = $3 RETURNING ` + factColumns
	deleteAll     = `DELETE FROM facts WHERE agent = $1 AND user_id = $2`
	queryRemoval  = `SELECT user_id, fact_id, count FROM fact_removals WHERE agent = $1 AND key = $2`
	insertRemoval = `INSERT INTO fact_removals (agent, key, user_id, fact_id, count, at) VALUES ($1, $2, $3, $4, $5, $6)`
	queryFacts    = `SELECT ` + factColumns + ` FROM facts WHERE agent = $1 AND user_id = $2 ORDER BY id LIMIT $3 OFFSET $4`
	queryFactsOf  = `SELECT ` + factColumns + ` FROM facts WHERE agent = $1 AND user_id = ANY($2) ORDER BY user_id, id`
	// lockUserFacts serializes the writers of one user's facts (two instances adding the
	// same fact, or adding while the cap evicts), as SQLite's single writer does.
	lockUserFacts = `SELECT pg_advisory_xact_lock(hashtextextended('mynah facts ' || $1 || ' ' || $2::bigint::text, 0))`
)

// AddFact implements mynah.Facts: dedupe, insert and eviction in one transaction.
func (db *DB) AddFact(ctx context.Context, f mynah.Fact, maxFacts int) (mynah.Fact, bool, error) {
	f.Text = strings.TrimSpace(f.Text)
	norm := mynah.NormalizeFactText(f.Text)
	switch {
	case f.Agent == "" || f.User == 0 || norm == "":
		return mynah.Fact{}, false, fmt.Errorf("postgres: add fact: agent, user and text are required")
	case utf8.RuneCountInString(f.Text) > mynah.MaxFactLength:
		return mynah.Fact{}, false, fmt.Errorf("postgres: add fact: text longer than %d characters", mynah.MaxFactLength)
	case f.Scope == "":
		f.Scope = mynah.FactPrivate
	case f.Scope == mynah.FactChat && f.Chat == 0:
		return mynah.Fact{}, false, fmt.Errorf("postgres: add fact: scope %q without the chat it was learned in", f.Scope)
	case f.Scope != mynah.FactPrivate && f.Scope != mynah.FactChat && f.Scope != mynah.FactShared:
		return mynah.Fact{}, false, fmt.Errorf("postgres: add fact: unknown scope %q", f.Scope)
	}
	if maxFacts <= 0 {
		maxFacts = mynah.DefaultMaxFacts
	}
	f.Created = storecodec.OrNow(f.Created, db.now).Truncate(time.Millisecond).UTC()
	in := f
	var added bool
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		f, added = in, false
		if _, err := tx.Exec(ctx, lockUserFacts, f.Agent, int64(f.User)); err != nil {
			return err
		}
		old, err := scanFact(tx.QueryRow(ctx, queryFactNorm, f.Agent, int64(f.User), norm))
		if err == nil {
			if f.Scope == mynah.FactShared && old.Scope != mynah.FactShared {
				if _, err := tx.Exec(ctx, shareFact, old.ID); err != nil {
					return err
				}
				old.Scope = mynah.FactShared
			}
			f = old
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if err := tx.QueryRow(ctx, insertFact, f.Agent, int64(f.User), f.Text, norm, int64(f.Chat), int64(f.Message),
			string(f.Scope), f.Created.UnixMilli()).Scan(&f.ID); err != nil {
			return err
		}
		added = true
		var n int
		if err := tx.QueryRow(ctx, countFacts, f.Agent, int64(f.User)).Scan(&n); err != nil {
			return err
		}
		if n > maxFacts {
			_, err := tx.Exec(ctx, evictFacts, f.Agent, int64(f.User), n-maxFacts)
			return err
		}
		return nil
	})
	if err != nil {
		return mynah.Fact{}, false, fail(ctx, err, "add fact about user %d of %s", in.User, in.Agent)
	}
	return f, added, nil
}

// ListFacts implements mynah.Facts. The total and the page are read in one repeatable-read
// transaction, so the two agree.
func (db *DB) ListFacts(ctx context.Context, agent string, user mynah.UserID, offset, limit int) ([]mynah.Fact, int, error) {
	var out []mynah.Fact
	var total int
	err := pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, countFacts, agent, int64(user)).Scan(&total); err != nil {
			return err
		}
		if limit <= 0 {
			return nil
		}
		rows, err := tx.Query(ctx, queryFacts, agent, int64(user), limit, max(offset, 0))
		if err != nil {
			return err
		}
		out, err = scanAll(rows, scanFact)
		return err
	})
	if err != nil {
		return nil, 0, fail(ctx, err, "facts about user %d of %s", user, agent)
	}
	return out, total, nil
}

// FactsOf implements mynah.Facts with one query, however many users.
func (db *DB) FactsOf(ctx context.Context, agent string, users []mynah.UserID) ([]mynah.Fact, error) {
	if len(users) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(users))
	for i, u := range users {
		ids[i] = int64(u)
	}
	rows, err := db.pool.Query(ctx, queryFactsOf, agent, ids)
	if err != nil {
		return nil, fail(ctx, err, "facts of %d users of %s", len(users), agent)
	}
	all, err := scanAll(rows, scanFact)
	if err != nil {
		return nil, fail(ctx, err, "facts of %d users of %s", len(users), agent)
	}
	byUser := map[mynah.UserID][]mynah.Fact{}
	for _, f := range all {
		byUser[f.User] = append(byUser[f.User], f)
	}
	out := make([]mynah.Fact, 0, len(all))
	for _, u := range users {
		out = append(out, byUser[u]...)
		delete(byUser, u) // a repeated id adds nothing
	}
	return out, nil
}

// RemoveFact implements mynah.Facts.
func (db *DB) RemoveFact(ctx context.Context, agent string, user mynah.UserID, id int64, once string) (mynah.Fact, error) {
	var f mynah.Fact
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		if err := durable(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, lockUserFacts, agent, int64(user)); err != nil {
			return err
		}
		if once != "" {
			var owner, factID int64
			var n int
			err := tx.QueryRow(ctx, queryRemoval, agent, once).Scan(&owner, &factID, &n)
			if err == nil {
				if factID == 0 || n == 0 {
					return mynah.ErrNotFound
				}
				f = mynah.Fact{ID: factID, Agent: agent, User: mynah.UserID(owner)}
				return nil
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		}
		var err error
		if f, err = scanFact(tx.QueryRow(ctx, deleteFact, id, agent, int64(user))); err != nil {
			return err
		}
		if once != "" {
			_, err = tx.Exec(ctx, insertRemoval, agent, once, int64(user), f.ID, 1, db.now().UnixMilli())
		}
		return err
	})
	if err != nil {
		return mynah.Fact{}, fail(ctx, err, "remove fact %d of user %d of %s", id, user, agent)
	}
	return f, nil
}

// RemoveAllFacts implements mynah.Facts.
func (db *DB) RemoveAllFacts(ctx context.Context, agent string, user mynah.UserID, once string) (int, error) {
	var n int
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		n = 0
		if err := durable(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, lockUserFacts, agent, int64(user)); err != nil {
			return err
		}
		if once != "" {
			var owner, factID int64
			err := tx.QueryRow(ctx, queryRemoval, agent, once).Scan(&owner, &factID, &n)
			if err == nil || !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		}
		tag, err := tx.Exec(ctx, deleteAll, agent, int64(user))
		if err != nil {
			return err
		}
		n = int(tag.RowsAffected())
		if once != "" {
			_, err = tx.Exec(ctx, insertRemoval, agent, once, int64(user), 0, n, db.now().UnixMilli())
		}
		return err
	})
	if err != nil {
		return 0, fail(ctx, err, "remove facts of user %d of %s", user, agent)
	}
	return n, nil
}

// scanFact reads one row of factColumns.
func scanFact(row scanner) (mynah.Fact, error) {
	var f mynah.Fact
	var user, chat, msg int64
	var scope string
	var created sql.NullInt64
	if err := row.Scan(&f.ID, &f.Agent, &user, &f.Text, &chat, &msg, &scope, &created); err != nil {
		return mynah.Fact{}, err
	}
	f.User, f.Chat, f.Message, f.Created, f.Scope = mynah.UserID(user), mynah.ChatID(chat), mynah.MessageID(msg), storecodec.FromMillis(created), mynah.FactScope(scope)
	return f, nil
}
