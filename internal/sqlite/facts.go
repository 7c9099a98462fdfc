package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

var _ mynah.Facts = (*DB)(nil)

// Facts are the one kind of row this package deletes (see 0006_facts.sql): derived data
// that its owner asked the agent to forget, or that the per-user cap evicts.
const (
	factColumns    = `id, agent, user_id, text, chat_id, message_id, scope, created`
	insertFact     = `INSERT INTO facts (agent, user_id, text, norm, chat_id, message_id, scope, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	shareFact      = `UPDATE facts SET scope = 'shared' WHERE id = ?`
	queryFactNorm  = `SELECT ` + factColumns + ` FROM facts WHERE agent = ? AND user_id = ? AND norm = ?`
	countFacts     = `SELECT count(*) FROM facts WHERE agent = ? AND user_id = ?`
	evictFacts     = `DELETE FROM facts WHERE id IN (SELECT id FROM facts WHERE agent = ? AND user_id = ? ORDER BY id LIMIT +?)`
	deleteFact     = `DELETE FROM facts WHERE id = ? AND agent = ? AND user_id = ? RETURNING ` + factColumns
	deleteAllFacts = `DELETE FROM facts WHERE agent = ? AND user_id = ?`
	queryRemoval   = `SELECT user_id, fact_id, count FROM fact_removals WHERE agent = ? AND key = ?`
	insertRemoval  = `INSERT INTO fact_removals (agent, key, user_id, fact_id, count, at) VALUES (?, ?, ?, ?, ?, ?)`
	queryFacts     = `SELECT ` + factColumns + ` FROM facts WHERE agent = ? AND user_id = ? ORDER BY id LIMIT +? OFFSET +?`
	queryFactsOf   = `SELECT ` + factColumns + ` FROM facts
		WHERE agent = ? AND user_id IN (SELECT value FROM json_each(?)) ORDER BY user_id, id`
)

// AddFact implements mynah.Facts: dedupe, insert and eviction in one transaction.
func (db *DB) AddFact(ctx context.Context, f mynah.Fact, maxFacts int) (mynah.Fact, bool, error) {
	f.Text = strings.TrimSpace(f.Text)
	norm := mynah.NormalizeFactText(f.Text)
	switch {
	case f.Agent == "" || f.User == 0 || norm == "":
		return mynah.Fact{}, false, fmt.Errorf("sqlite: add fact: agent, user and text are required")
	case utf8.RuneCountInString(f.Text) > mynah.MaxFactLength:
		return mynah.Fact{}, false, fmt.Errorf("sqlite: add fact: text longer than %d characters", mynah.MaxFactLength)
	case f.Scope == "":
		f.Scope = mynah.FactPrivate
	case f.Scope == mynah.FactChat && f.Chat == 0:
		return mynah.Fact{}, false, fmt.Errorf("sqlite: add fact: scope %q without the chat it was learned in", f.Scope)
	case f.Scope != mynah.FactPrivate && f.Scope != mynah.FactChat && f.Scope != mynah.FactShared:
		return mynah.Fact{}, false, fmt.Errorf("sqlite: add fact: unknown scope %q", f.Scope)
	}
	if maxFacts <= 0 {
		maxFacts = mynah.DefaultMaxFacts
	}
	f.Created = storecodec.OrNow(f.Created, db.now).Truncate(time.Millisecond).UTC()
	var added bool
	err := db.inTx(ctx, func(tx *txn) error {
		old, err := scanFact(tx.queryRow(ctx, db.stmts.queryFactNorm, f.Agent, int64(f.User), norm))
		if err == nil {
			if f.Scope == mynah.FactShared && old.Scope != mynah.FactShared {
				if _, err := tx.exec(ctx, db.stmts.shareFact, old.ID); err != nil {
					return err
				}
				old.Scope = mynah.FactShared
			}
			f = old
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		res, err := tx.exec(ctx, db.stmts.insertFact, f.Agent, int64(f.User), f.Text, norm, int64(f.Chat), int64(f.Message), string(f.Scope), f.Created.UnixMilli())
		if err != nil {
			return err
		}
		if f.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		added = true
		var n int
		if err := tx.queryRow(ctx, db.stmts.countFactsTx, f.Agent, int64(f.User)).Scan(&n); err != nil {
			return err
		}
		if n > maxFacts {
			_, err = tx.exec(ctx, db.stmts.evictFacts, f.Agent, int64(f.User), n-maxFacts)
		}
		return err
	})
	if err != nil {
		return mynah.Fact{}, false, fail(ctx, err, "add fact about user %d of %s", f.User, f.Agent)
	}
	return f, added, nil
}

// ListFacts implements mynah.Facts. The total is read in the same transaction as the page,
// so the two agree.
func (db *DB) ListFacts(ctx context.Context, agent string, user mynah.UserID, offset, limit int) ([]mynah.Fact, int, error) {
	var out []mynah.Fact
	var total int
	err := func() error {
		tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer tx.Rollback() //nolint:errcheck // read-only: nothing to undo
		count, err := db.stmts.countFacts.prepared(ctx)
		if err != nil {
			return err
		}
		list, err := db.stmts.listFacts.prepared(ctx)
		if err != nil {
			return err
		}
		if err := tx.StmtContext(ctx, count).QueryRowContext(ctx, agent, int64(user)).Scan(&total); err != nil {
			return err
		}
		if limit <= 0 {
			return nil
		}
		rows, err := tx.StmtContext(ctx, list).QueryContext(ctx, agent, int64(user), limit, max(offset, 0))
		if err != nil {
			return err
		}
		out, err = scanFacts(rows)
		return err
	}()
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
	ids, err := json.Marshal(users)
	if err != nil {
		return nil, err
	}
	rows, err := db.stmts.factsOf.QueryContext(brief(ctx), agent, string(ids))
	if err != nil {
		return nil, fail(ctx, err, "facts of %d users of %s", len(users), agent)
	}
	all, err := scanFacts(rows)
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
	err := db.inTx(ctx, func(tx *txn) error {
		if once != "" {
			var owner, factID int64
			var n int
			err := tx.queryRow(ctx, db.stmts.queryRemoval, agent, once).Scan(&owner, &factID, &n)
			if err == nil {
				if factID == 0 || n == 0 {
					return mynah.ErrNotFound
				}
				f = mynah.Fact{ID: factID, Agent: agent, User: mynah.UserID(owner)}
				return nil
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		var err error
		if f, err = scanFact(tx.queryRow(ctx, db.stmts.deleteFact, id, agent, int64(user))); err != nil {
			return err
		}
		if once != "" {
			_, err = tx.exec(ctx, db.stmts.insertRemoval, agent, once, int64(user), f.ID, 1, db.now().UnixMilli())
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
	err := db.inTx(ctx, func(tx *txn) error {
		if once != "" {
			var owner, factID int64
			err := tx.queryRow(ctx, db.stmts.queryRemoval, agent, once).Scan(&owner, &factID, &n)
			if err == nil || !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		res, err := tx.exec(ctx, db.stmts.deleteAllFacts, agent, int64(user))
		if err != nil {
			return err
		}
		affected, err := res.RowsAffected()
		if err != nil {
			return err
		}
		n = int(affected)
		if once != "" {
			_, err = tx.exec(ctx, db.stmts.insertRemoval, agent, once, int64(user), 0, n, db.now().UnixMilli())
		}
		return err
	})
	if err != nil {
		return 0, fail(ctx, err, "remove facts of user %d of %s", user, agent)
	}
	return n, nil
}

// scanFact reads one row of factColumns.
func scanFact(row interface{ Scan(...any) error }) (mynah.Fact, error) {
	var f mynah.Fact
	var user, chat, msg int64
	var created sql.NullInt64
	if err := row.Scan(&f.ID, &f.Agent, &user, &f.Text, &chat, &msg, &f.Scope, &created); err != nil {
		return mynah.Fact{}, err
	}
	f.User, f.Chat, f.Message, f.Created = mynah.UserID(user), mynah.ChatID(chat), mynah.MessageID(msg), storecodec.FromMillis(created)
	return f, nil
}

// scanFacts reads and closes rows of factColumns.
func scanFacts(rows *sql.Rows) ([]mynah.Fact, error) {
	defer rows.Close()
	var out []mynah.Fact
	for rows.Next() {
		f, err := scanFact(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}
