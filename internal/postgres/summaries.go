package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

var _ mynah.Summaries = (*DB)(nil)

// The summary statements name kind = 'rolling' (or kind <> 'rolling') literally so that
// the planner can use the partial indexes.
const (
	summaryColumns = `id, agent, chat_id, thread_id, kind, first_id, last_id, period_start, period_end, text, model, created`
	insertSummary  = `INSERT INTO summaries (agent, chat_id, thread_id, kind, first_id, last_id, period_start, period_end, text, model, created)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING RETURNING id`
	queryLatestRolling = `SELECT ` + summaryColumns + ` FROM summaries
		WHERE agent = $1 AND chat_id = $2 AND thread_id = $3 AND kind = 'rolling' ORDER BY last_id DESC LIMIT 1`
	queryLatestPeriodic = `SELECT ` + summaryColumns + ` FROM summaries
		WHERE agent = $1 AND chat_id = $2 AND thread_id = $3 AND kind = $4 AND kind <> 'rolling' ORDER BY period_end DESC LIMIT 1`
	queryExistingRolling = `SELECT ` + summaryColumns + ` FROM summaries
		WHERE agent = $1 AND chat_id = $2 AND thread_id = $3 AND kind = 'rolling' AND last_id = $4`
	queryExistingPeriodic = `SELECT ` + summaryColumns + ` FROM summaries
		WHERE agent = $1 AND chat_id = $2 AND thread_id = $3 AND kind = $4 AND kind <> 'rolling' AND period_end = $5`
	insertFlush = `INSERT INTO summary_flushes (agent, chat_id, thread_id, first_id, at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT DO NOTHING`
	// querySummariesDue visits the agent's chats by primary key and, per chat, its newest
	// message and latest summary of the kind: a few index lookups per chat.
	querySummariesDue = `SELECT chat_id FROM (
		SELECT c.chat_id AS chat_id,
			(SELECT m.time FROM messages m WHERE m.agent = c.agent AND m.chat_id = c.chat_id
				ORDER BY m.message_id DESC LIMIT 1) AS newest,
			coalesce((SELECT s.period_end FROM summaries s WHERE s.agent = c.agent AND s.chat_id = c.chat_id
				AND s.thread_id = 0 AND s.kind = $2 AND s.kind <> 'rolling' ORDER BY s.period_end DESC LIMIT 1), 0) AS ended
		FROM chats c WHERE c.agent = $1 ORDER BY c.chat_id) d
		WHERE ended < $3 AND newest > greatest(ended, $4) LIMIT $5`
	queryBetween = `SELECT ` + messageColumns + messageFrom +
		`WHERE m.agent = $1 AND m.chat_id = $2 AND m.message_id > $3 AND m.message_id < $4 ORDER BY m.message_id LIMIT $5`
	queryBetweenThread = `SELECT ` + messageColumns + messageFrom +
		`WHERE m.agent = $1 AND m.chat_id = $2 AND m.thread_id = $3 AND m.message_id > $4 AND m.message_id < $5 ORDER BY m.message_id LIMIT $6`
	// queryOlder pages a chat backwards from a message id, for MessagesInPeriod.
	queryOlder = `SELECT ` + messageColumns + messageFrom +
		`WHERE m.agent = $1 AND m.chat_id = $2 AND m.message_id < $3 ORDER BY m.message_id DESC LIMIT $4`
	queryPromptsAfter = `SELECT p.turn_id, p.chat_id, coalesce(t.thread_id, 0), p.composition
		FROM prompts p LEFT JOIN turns t ON t.id = p.turn_id
		WHERE p.agent = $1 AND p.turn_id > $2 ORDER BY p.turn_id LIMIT $3`
	queryLastTurn     = `SELECT coalesce(max(turn_id), 0) FROM prompts WHERE agent = $1`
	queryHasSummaries = `SELECT EXISTS (SELECT 1 FROM summaries WHERE agent = $1 AND chat_id = $2 AND kind = 'rolling')
		OR EXISTS (SELECT 1 FROM summaries WHERE agent = $1 AND chat_id = $2 AND kind <> 'rolling')`
)

// AddSummary implements mynah.Summaries.
func (db *DB) AddSummary(ctx context.Context, s mynah.Summary) (mynah.Summary, bool, error) {
	s.Text = strings.TrimSpace(s.Text)
	switch {
	case s.Agent == "" || s.Chat == 0 || s.Last <= 0 || s.Text == "":
		return mynah.Summary{}, false, fmt.Errorf("postgres: add summary: agent, chat, last message and text are required")
	case s.Kind != mynah.SummaryRolling && s.Kind != mynah.SummaryWeek && s.Kind != mynah.SummaryMonth:
		return mynah.Summary{}, false, fmt.Errorf("postgres: add summary: unknown kind %q", s.Kind)
	case s.First > s.Last:
		return mynah.Summary{}, false, fmt.Errorf("postgres: add summary: first message %d after last %d", s.First, s.Last)
	}
	s.Created = storecodec.OrNow(s.Created, db.now).Truncate(time.Millisecond).UTC()
	s.From, s.To = s.From.Truncate(time.Millisecond).UTC(), s.To.Truncate(time.Millisecond).UTC()
	in := s
	var added bool
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		s, added = in, false
		err := tx.QueryRow(ctx, insertSummary, s.Agent, int64(s.Chat), s.Thread, string(s.Kind),
			int64(s.First), int64(s.Last), s.From.UnixMilli(), s.To.UnixMilli(), s.Text, s.Model, s.Created.UnixMilli()).Scan(&s.ID)
		if err == nil {
			added = true
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		// Stored before: return what is stored.
		var row pgx.Row
		if s.Kind == mynah.SummaryRolling {
			row = tx.QueryRow(ctx, queryExistingRolling, s.Agent, int64(s.Chat), s.Thread, int64(s.Last))
		} else {
			row = tx.QueryRow(ctx, queryExistingPeriodic, s.Agent, int64(s.Chat), s.Thread, string(s.Kind), s.To.UnixMilli())
		}
		s, err = scanSummary(row)
		return err
	})
	if err != nil {
		return mynah.Summary{}, false, fail(ctx, err, "add %s summary of chat %d of %s", in.Kind, in.Chat, in.Agent)
	}
	return s, added, nil
}

// LatestSummary implements mynah.Summaries.
func (db *DB) LatestSummary(ctx context.Context, agent string, chat mynah.ChatID, thread int64, kind mynah.SummaryKind) (mynah.Summary, error) {
	var row pgx.Row
	if kind == mynah.SummaryRolling {
		row = db.pool.QueryRow(ctx, queryLatestRolling, agent, int64(chat), thread)
	} else {
		row = db.pool.QueryRow(ctx, queryLatestPeriodic, agent, int64(chat), thread, string(kind))
	}
	s, err := scanSummary(row)
	if err != nil {
		return mynah.Summary{}, fail(ctx, err, "latest %s summary of chat %d of %s", kind, chat, agent)
	}
	return s, nil
}

// ClaimFlush implements mynah.Summaries.
func (db *DB) ClaimFlush(ctx context.Context, agent string, chat mynah.ChatID, thread int64, first mynah.MessageID, now time.Time) (bool, error) {
	tag, err := db.pool.Exec(ctx, insertFlush, agent, int64(chat), thread, int64(first), storecodec.OrNow(now, db.now).UnixMilli())
	if err != nil {
		return false, fail(ctx, err, "claim memory flush of chat %d of %s", chat, agent)
	}
	return tag.RowsAffected() > 0, nil
}

// SummariesDue implements mynah.Summaries.
func (db *DB) SummariesDue(ctx context.Context, agent string, kind mynah.SummaryKind, end, since time.Time, limit int) ([]mynah.ChatID, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := db.pool.Query(ctx, querySummariesDue, agent, string(kind), end.UnixMilli(), since.UnixMilli(), limit)
	if err != nil {
		return nil, fail(ctx, err, "%s summaries due for %s", kind, agent)
	}
	out, err := scanAll(rows, func(s scanner) (mynah.ChatID, error) {
		var id int64
		err := s.Scan(&id)
		return mynah.ChatID(id), err
	})
	if err != nil {
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
		rows pgx.Rows
		err  error
	)
	if thread == 0 {
		rows, err = db.pool.Query(ctx, queryBetween, agent, int64(chat), int64(after), int64(before), limit)
	} else {
		rows, err = db.pool.Query(ctx, queryBetweenThread, agent, int64(chat), thread, int64(after), int64(before), limit)
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
		rows, err := db.pool.Query(ctx, queryOlder, agent, int64(chat), int64(before), periodPage)
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
	rows, err := db.pool.Query(ctx, queryPromptsAfter, agent, turn, limit)
	if err != nil {
		return nil, fail(ctx, err, "prompts of %s after turn %d", agent, turn)
	}
	out, err := scanAll(rows, func(s scanner) (mynah.PromptRef, error) {
		var (
			p           mynah.PromptRef
			chat        int64
			composition string
		)
		err := s.Scan(&p.Turn, &chat, &p.Thread, &composition)
		p.Chat, p.Composition = mynah.ChatID(chat), []byte(composition)
		return p, err
	})
	if err != nil {
		return nil, fail(ctx, err, "prompts of %s after turn %d", agent, turn)
	}
	return out, nil
}

// LastTurn implements mynah.Summaries.
func (db *DB) LastTurn(ctx context.Context, agent string) (int64, error) {
	var id int64
	if err := db.pool.QueryRow(ctx, queryLastTurn, agent).Scan(&id); err != nil {
		return 0, fail(ctx, err, "last prompt of %s", agent)
	}
	return id, nil
}

// HasSummaries reports whether agent has any summary of chat.
func (db *DB) HasSummaries(ctx context.Context, agent string, chat mynah.ChatID) (bool, error) {
	var has bool
	if err := db.pool.QueryRow(ctx, queryHasSummaries, agent, int64(chat)).Scan(&has); err != nil {
		return false, fail(ctx, err, "summaries of chat %d of %s", chat, agent)
	}
	return has, nil
}

func scanSummary(s scanner) (mynah.Summary, error) {
	var (
		sum               mynah.Summary
		chat, first, last int64
		kind              string
		from, to, created sql.NullInt64
	)
	err := s.Scan(&sum.ID, &sum.Agent, &chat, &sum.Thread, &kind, &first, &last, &from, &to, &sum.Text, &sum.Model, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return mynah.Summary{}, fmt.Errorf("no summary: %w", mynah.ErrNotFound)
	}
	if err != nil {
		return mynah.Summary{}, err
	}
	sum.Chat, sum.Kind, sum.First, sum.Last = mynah.ChatID(chat), mynah.SummaryKind(kind), mynah.MessageID(first), mynah.MessageID(last)
	sum.From, sum.To, sum.Created = storecodec.FromMillis(from), storecodec.FromMillis(to), storecodec.FromMillis(created)
	return sum, nil
}
