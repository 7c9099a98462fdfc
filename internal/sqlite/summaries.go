package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

var _ mynah.Summaries = (*DB)(nil)

// The summary statements name kind = 'rolling' (or kind <> 'rolling') literally so that
// SQLite can use the partial indexes of 0009_summaries.sql.
const (
	summaryColumns = `id, agent, chat_id, thread_id, kind, first_id, last_id, period_start, period_end, text, model, created`
	insertSummary  = `INSERT INTO summaries (agent, chat_id, thread_id, kind, first_id, last_id, period_start, period_end, text, model, created)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	queryLatestRolling = `SELECT ` + summaryColumns + ` FROM summaries
		WHERE agent = ? AND chat_id = ? AND thread_id = ? AND kind = 'rolling' ORDER BY last_id DESC LIMIT 1`
	queryLatestPeriodic = `SELECT ` + summaryColumns + ` FROM summaries
		WHERE agent = ? AND chat_id = ? AND thread_id = ? AND kind = ? AND kind <> 'rolling' ORDER BY period_end DESC LIMIT 1`
	insertFlush = `INSERT INTO summary_flushes (agent, chat_id, thread_id, first_id, at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`
	// querySummariesDue visits the agent's chats by primary key and, per chat, its newest
	// message (primary key, backwards) and latest summary of the kind (summaries_period):
	// a few index lookups per chat. Binds agent, kind, end, since, limit.
	querySummariesDue = `SELECT chat_id FROM (
		SELECT c.chat_id AS chat_id,
			(SELECT m.time FROM messages m WHERE m.agent = c.agent AND m.chat_id = c.chat_id
				ORDER BY m.message_id DESC LIMIT 1) AS newest,
			coalesce((SELECT s.period_end FROM summaries s WHERE s.agent = c.agent AND s.chat_id = c.chat_id
				AND s.thread_id = 0 AND s.kind = ?2 AND s.kind <> 'rolling' ORDER BY s.period_end DESC LIMIT 1), 0) AS ended
		FROM chats c WHERE c.agent = ?1)
		WHERE ended < ?3 AND newest > max(ended, ?4) LIMIT +?5`
	queryBetween = `SELECT ` + messageColumns + messageFrom +
		`WHERE m.agent = ? AND m.chat_id = ? AND m.message_id > ? AND m.message_id < ? ORDER BY m.message_id LIMIT +?`
	queryBetweenThread = `SELECT ` + messageColumns + messageFrom +
		`WHERE m.agent = ? AND m.chat_id = ? AND m.thread_id = ? AND m.message_id > ? AND m.message_id < ? ORDER BY m.message_id LIMIT +?`
	// queryOlder pages a chat backwards from a message id, for MessagesInPeriod.
	queryOlder = `SELECT ` + messageColumns + messageFrom +
		`WHERE m.agent = ? AND m.chat_id = ? AND m.message_id < ? ORDER BY m.message_id DESC LIMIT +?`
	queryPromptsAfter = `SELECT p.turn_id, p.chat_id, coalesce(t.thread_id, 0), p.composition
		FROM prompts p LEFT JOIN turns t ON t.id = p.turn_id
		WHERE p.agent = ? AND p.turn_id > ? ORDER BY p.turn_id LIMIT +?`
	queryLastTurn = `SELECT coalesce(max(turn_id), 0) FROM prompts WHERE agent = ?`
)

// AddSummary implements mynah.Summaries.
func (db *DB) AddSummary(ctx context.Context, s mynah.Summary) (mynah.Summary, bool, error) {
	s.Text = strings.TrimSpace(s.Text)
	switch {
	case s.Agent == "" || s.Chat == 0 || s.Last <= 0 || s.Text == "":
		return mynah.Summary{}, false, fmt.Errorf("sqlite: add summary: agent, chat, last message and text are required")
	case s.Kind != mynah.SummaryRolling && s.Kind != mynah.SummaryWeek && s.Kind != mynah.SummaryMonth:
		return mynah.Summary{}, false, fmt.Errorf("sqlite: add summary: unknown kind %q", s.Kind)
	case s.First > s.Last:
		return mynah.Summary{}, false, fmt.Errorf("sqlite: add summary: first message %d after last %d", s.First, s.Last)
	}
	s.Created = storecodec.OrNow(s.Created, db.now).Truncate(time.Millisecond).UTC()
	s.From, s.To = s.From.Truncate(time.Millisecond).UTC(), s.To.Truncate(time.Millisecond).UTC()
	var added bool
	err := db.inTx(ctx, func(tx *txn) error {
		res, err := tx.exec(ctx, db.stmts.insertSummary, s.Agent, int64(s.Chat), s.Thread, string(s.Kind),
			int64(s.First), int64(s.Last), s.From.UnixMilli(), s.To.UnixMilli(), s.Text, s.Model, s.Created.UnixMilli())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			// Stored before: return what is stored.
			var row *sql.Row
			if s.Kind == mynah.SummaryRolling {
				row = tx.queryRow(ctx, db.stmts.existingRolling, s.Agent, int64(s.Chat), s.Thread, int64(s.Last))
			} else {
				row = tx.queryRow(ctx, db.stmts.existingPeriodic, s.Agent, int64(s.Chat), s.Thread, string(s.Kind), s.To.UnixMilli())
			}
			if err == nil {
				s, err = scanSummary(row)
			}
			return err
		}
		s.ID, err = res.LastInsertId()
		added = true
		return err
	})
	if err != nil {
		return mynah.Summary{}, false, fail(ctx, err, "add %s summary of chat %d of %s", s.Kind, s.Chat, s.Agent)
	}
	return s, added, nil
}

const (
	queryExistingRolling = `SELECT ` + summaryColumns + ` FROM summaries
		WHERE agent = ? AND chat_id = ? AND thread_id = ? AND kind = 'rolling' AND last_id = ?`
	queryExistingPeriodic = `SELECT ` + summaryColumns + ` FROM summaries
		WHERE agent = ? AND chat_id = ? AND thread_id = ? AND kind = ? AND kind <> 'rolling' AND period_end = ?`
)

// LatestSummary implements mynah.Summaries.
func (db *DB) LatestSummary(ctx context.Context, agent string, chat mynah.ChatID, thread int64, kind mynah.SummaryKind) (mynah.Summary, error) {
	var row *sql.Row
	if kind == mynah.SummaryRolling {
		row = db.stmts.latestRolling.QueryRowContext(ctx, agent, int64(chat), thread)
	} else {
		row = db.stmts.latestPeriodic.QueryRowContext(ctx, agent, int64(chat), thread, string(kind))
	}
	s, err := scanSummary(row)
	if err != nil {
		return mynah.Summary{}, fail(ctx, err, "latest %s summary of chat %d of %s", kind, chat, agent)
	}
	return s, nil
}

// ClaimFlush implements mynah.Summaries.
func (db *DB) ClaimFlush(ctx context.Context, agent string, chat mynah.ChatID, thread int64, first mynah.MessageID, now time.Time) (bool, error) {
	var claimed bool
	err := db.inTx(ctx, func(tx *txn) error {
		res, err := tx.exec(ctx, db.stmts.insertFlush, agent, int64(chat), thread, int64(first), storecodec.OrNow(now, db.now).UnixMilli())
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		claimed = n > 0
		return err
	})
	if err != nil {
		return false, fail(ctx, err, "claim memory flush of chat %d of %s", chat, agent)
	}
	return claimed, nil
}

// SummariesDue implements mynah.Summaries.
func (db *DB) SummariesDue(ctx context.Context, agent string, kind mynah.SummaryKind, end, since time.Time, limit int) ([]mynah.ChatID, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := db.stmts.summariesDue.QueryContext(ctx, agent, string(kind), end.UnixMilli(), since.UnixMilli(), limit)
	if err != nil {
		return nil, fail(ctx, err, "%s summaries due for %s", kind, agent)
	}
	defer rows.Close()
	var out []mynah.ChatID
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fail(ctx, err, "%s summaries due for %s", kind, agent)
		}
		out = append(out, mynah.ChatID(id))
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, err, "%s summaries due for %s", kind, agent)
	}
	return out, nil
}

// MessagesBetween implements mynah.Summaries.
func (db *DB) MessagesBetween(ctx context.Context, agent string, chat mynah.ChatID, thread int64, after, before mynah.MessageID, limit int) ([]mynah.Message, error) {
	if limit <= 0 || before <= after+1 {
		return nil, nil
	}
	var (
		rows *sql.Rows
		err  error
	)
	if thread == 0 {
		rows, err = db.stmts.between.QueryContext(ctx, agent, int64(chat), int64(after), int64(before), limit)
	} else {
		rows, err = db.stmts.betweenThread.QueryContext(ctx, agent, int64(chat), thread, int64(after), int64(before), limit)
	}
	if err != nil {
		return nil, fail(ctx, err, "messages %d–%d of chat %d of %s", after, before, chat, agent)
	}
	out, err := scanMessages(agent, rows)
	if err != nil {
		return nil, fail(ctx, err, "messages %d–%d of chat %d of %s", after, before, chat, agent)
	}
	return out, nil
}

// periodPage is how many messages MessagesInPeriod reads per step back.
const periodPage = 200

// MessagesInPeriod implements mynah.Summaries.
func (db *DB) MessagesInPeriod(ctx context.Context, agent string, chat mynah.ChatID, from, to time.Time, limit int) ([]mynah.Message, error) {
	var out []mynah.Message // newest first until the end
	before := mynah.MessageID(1<<63 - 1)
	for len(out) < limit {
		rows, err := db.stmts.older.QueryContext(ctx, agent, int64(chat), int64(before), periodPage)
		if err != nil {
			return nil, fail(ctx, err, "messages of chat %d of %s in a period", chat, agent)
		}
		page, err := scanMessages(agent, rows)
		if err != nil {
			return nil, fail(ctx, err, "messages of chat %d of %s in a period", chat, agent)
		}
		for _, m := range page {
			if !m.Time.After(from) {
				slices.Reverse(out)
				return out, nil
			}
			if !m.Time.After(to) && len(out) < limit {
				out = append(out, m)
			}
		}
		if len(page) < periodPage {
			break
		}
		before = page[len(page)-1].ID
	}
	slices.Reverse(out)
	return out, nil
}

// PromptsAfter implements mynah.Summaries.
func (db *DB) PromptsAfter(ctx context.Context, agent string, turn int64, limit int) ([]mynah.PromptRef, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := db.stmts.promptsAfter.QueryContext(ctx, agent, turn, limit)
	if err != nil {
		return nil, fail(ctx, err, "prompts of %s after turn %d", agent, turn)
	}
	defer rows.Close()
	var out []mynah.PromptRef
	for rows.Next() {
		var (
			p          mynah.PromptRef
			chat       int64
			compostion string
		)
		if err := rows.Scan(&p.Turn, &chat, &p.Thread, &compostion); err != nil {
			return nil, fail(ctx, err, "prompts of %s after turn %d", agent, turn)
		}
		p.Chat, p.Composition = mynah.ChatID(chat), []byte(compostion)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, err, "prompts of %s after turn %d", agent, turn)
	}
	return out, nil
}

// LastTurn implements mynah.Summaries.
func (db *DB) LastTurn(ctx context.Context, agent string) (int64, error) {
	var id int64
	if err := db.stmts.lastTurn.QueryRowContext(ctx, agent).Scan(&id); err != nil {
		return 0, fail(ctx, err, "last prompt of %s", agent)
	}
	return id, nil
}

// scanMessages reads every row of rows as a message and closes rows.
func scanMessages(agent string, rows *sql.Rows) ([]mynah.Message, error) {
	defer rows.Close()
	var out []mynah.Message
	for rows.Next() {
		m, err := scanMessage(agent, rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func scanSummary(s scanner) (mynah.Summary, error) {
	var (
		sum               mynah.Summary
		chat, first, last int64
		kind              string
		from, to, created sql.NullInt64
	)
	err := s.Scan(&sum.ID, &sum.Agent, &chat, &sum.Thread, &kind, &first, &last, &from, &to, &sum.Text, &sum.Model, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return mynah.Summary{}, fmt.Errorf("no summary: %w", mynah.ErrNotFound)
	}
	if err != nil {
		return mynah.Summary{}, err
	}
	sum.Chat, sum.Kind, sum.First, sum.Last = mynah.ChatID(chat), mynah.SummaryKind(kind), mynah.MessageID(first), mynah.MessageID(last)
	sum.From, sum.To, sum.Created = storecodec.FromMillis(from), storecodec.FromMillis(to), storecodec.FromMillis(created)
	return sum, nil
}

// queryHasSummaries probes each of the two partial indexes once.
const queryHasSummaries = `SELECT EXISTS (SELECT 1 FROM summaries WHERE agent = ? AND chat_id = ? AND kind = 'rolling')
	OR EXISTS (SELECT 1 FROM summaries WHERE agent = ? AND chat_id = ? AND kind <> 'rolling')`

// HasSummaries reports whether agent has any summary of chat.
func (db *DB) HasSummaries(ctx context.Context, agent string, chat mynah.ChatID) (bool, error) {
	var has bool
	if err := db.stmts.hasSummaries.QueryRowContext(brief(ctx), agent, int64(chat), agent, int64(chat)).Scan(&has); err != nil {
		return false, fail(ctx, err, "summaries of chat %d of %s", chat, agent)
	}
	return has, nil
}
