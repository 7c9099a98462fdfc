package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

var _ mynah.GroupApprovals = (*DB)(nil)

// Group approvals are read once per message of a group that is not approved yet (approved
// ones are remembered by ingest) and written a few times per group, so their statements
// are not among the prepared ones.
const (
	groupColumns = `agent, chat_id, title, added_by, added_by_first_name, added_by_last_name, added_by_username,
		added_at, approved_at, approved_by, noticed_at`
	queryGroup  = `SELECT ` + groupColumns + ` FROM group_access WHERE agent = ? AND chat_id = ?`
	queryGroups = `SELECT ` + groupColumns + ` FROM group_access WHERE ?1 = '' OR agent = ?1
		ORDER BY agent, created, chat_id`
	// A title of "" (unknown to the caller) keeps the stored one.
	upsertGroupAdded = `INSERT INTO group_access (agent, chat_id, title, added_by, added_by_first_name,
			added_by_last_name, added_by_username, added_at, approved_by, created)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?8)
		ON CONFLICT (agent, chat_id) DO UPDATE SET title = coalesce(nullif(excluded.title, ''), title),
			added_by = excluded.added_by, added_by_first_name = excluded.added_by_first_name,
			added_by_last_name = excluded.added_by_last_name, added_by_username = excluded.added_by_username,
			added_at = excluded.added_at`
	upsertGroupApproved = `INSERT INTO group_access (agent, chat_id, title, added_by, added_by_first_name,
			added_by_last_name, added_by_username, approved_at, approved_by, created)
		VALUES (?1, ?2, '', 0, '', '', '', ?3, ?4, ?3)
		ON CONFLICT (agent, chat_id) DO UPDATE SET approved_at = excluded.approved_at,
			approved_by = excluded.approved_by
		WHERE approved_at IS NULL`
	upsertGroupNoticed = `INSERT INTO group_access (agent, chat_id, title, added_by, added_by_first_name,
			added_by_last_name, added_by_username, approved_by, noticed_at, created)
		VALUES (?1, ?2, ?3, 0, '', '', '', 0, ?4, ?4)
		ON CONFLICT (agent, chat_id) DO UPDATE SET noticed_at = excluded.noticed_at,
			title = coalesce(nullif(excluded.title, ''), title)
		WHERE noticed_at IS NULL`
)

// GroupApproval implements mynah.GroupApprovals.
func (db *DB) GroupApproval(ctx context.Context, agent string, chat mynah.ChatID) (mynah.GroupApproval, error) {
	g, err := scanGroup(db.read.QueryRowContext(ctx, queryGroup, agent, int64(chat)))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return mynah.GroupApproval{Agent: agent, Chat: mynah.Chat{ID: chat}}, nil
	case err != nil:
		return mynah.GroupApproval{}, fail(ctx, err, "approval of group %d of %s", chat, agent)
	}
	return g, nil
}

// GroupAdded implements mynah.GroupApprovals.
func (db *DB) GroupAdded(ctx context.Context, agent string, chat mynah.Chat, by mynah.User, when time.Time) error {
	if agent == "" || chat.ID == 0 {
		return fmt.Errorf("sqlite: group added: agent and chat are required")
	}
	_, err := db.write.ExecContext(ctx, upsertGroupAdded, agent, int64(chat.ID), chat.Title, int64(by.ID),
		by.FirstName, by.LastName, by.Username, storecodec.OrNow(when, db.now).UnixMilli())
	if err != nil {
		return fail(ctx, err, "record who added %s to group %d", agent, chat.ID)
	}
	return nil
}

// ApproveGroup implements mynah.GroupApprovals.
func (db *DB) ApproveGroup(ctx context.Context, agent string, chat mynah.ChatID, by mynah.UserID, now time.Time) (mynah.GroupApproval, error) {
	if agent == "" || chat == 0 {
		return mynah.GroupApproval{}, fmt.Errorf("sqlite: approve group: agent and chat are required")
	}
	var g mynah.GroupApproval
	err := db.inTx(ctx, func(tx *txn) error {
		if _, err := tx.ExecContext(ctx, upsertGroupApproved, agent, int64(chat), storecodec.OrNow(now, db.now).UnixMilli(), int64(by)); err != nil {
			return err
		}
		var err error
		g, err = scanGroup(tx.QueryRowContext(ctx, queryGroup, agent, int64(chat)))
		return err
	})
	if err != nil {
		return mynah.GroupApproval{}, fail(ctx, err, "approve group %d of %s", chat, agent)
	}
	return g, nil
}

// NoticeGroup implements mynah.GroupApprovals.
func (db *DB) NoticeGroup(ctx context.Context, agent string, chat mynah.Chat, now time.Time) (bool, error) {
	if agent == "" || chat.ID == 0 {
		return false, fmt.Errorf("sqlite: notice group: agent and chat are required")
	}
	res, err := db.write.ExecContext(ctx, upsertGroupNoticed, agent, int64(chat.ID), chat.Title, storecodec.OrNow(now, db.now).UnixMilli())
	if err != nil {
		return false, fail(ctx, err, "notice group %d of %s", chat.ID, agent)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fail(ctx, err, "notice group %d of %s", chat.ID, agent)
	}
	return n > 0, nil
}

// ListGroupApprovals implements mynah.GroupApprovals.
func (db *DB) ListGroupApprovals(ctx context.Context, agent string) ([]mynah.GroupApproval, error) {
	rows, err := db.read.QueryContext(ctx, queryGroups, agent)
	if err != nil {
		return nil, fail(ctx, err, "groups of %q", agent)
	}
	out, err := scanAll(rows, scanGroup)
	if err != nil {
		return nil, fail(ctx, err, "groups of %q", agent)
	}
	return out, nil
}

// rowScanner is a row of a query: *sql.Row or *sql.Rows.
type rowScanner interface{ Scan(...any) error }

// scanAll reads every row of rows with scan and closes rows.
func scanAll[T any](rows *sql.Rows, scan func(rowScanner) (T, error)) ([]T, error) {
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

// scanGroup reads one row of groupColumns.
func scanGroup(row rowScanner) (mynah.GroupApproval, error) {
	var g mynah.GroupApproval
	var chat, by, approvedBy int64
	var added, approved, noticed sql.NullInt64
	if err := row.Scan(&g.Agent, &chat, &g.Chat.Title, &by, &g.AddedBy.FirstName, &g.AddedBy.LastName,
		&g.AddedBy.Username, &added, &approved, &approvedBy, &noticed); err != nil {
		return mynah.GroupApproval{}, err
	}
	g.Chat.ID, g.AddedBy.ID, g.ApprovedBy = mynah.ChatID(chat), mynah.UserID(by), mynah.UserID(approvedBy)
	g.Added, g.Approved, g.Noticed = storecodec.FromMillis(added), storecodec.FromMillis(approved), storecodec.FromMillis(noticed)
	return g, nil
}
