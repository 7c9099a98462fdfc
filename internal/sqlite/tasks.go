package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mynah-ai/mynah"
)

const (
	markDone   = `UPDATE outbox SET sent_at = ? WHERE id = ?`
	retryPart  = `UPDATE outbox SET attempts = attempts + 1, failed_reason = ? WHERE id = ? RETURNING attempts`
	queryDueAt = `SELECT min(due) FROM turns WHERE agent = ? AND done_at IS NULL AND due > ?`
	setPreview = `UPDATE turns SET preview_id = ? WHERE id = ?`
)

// The task column of outbox: what a part needs beyond a plain send. Names are stable on
// disk; renaming a Go field never changes how stored rows read.
type (
	taskJSON struct {
		StickerSet string         `json:"sticker_set,omitempty"`
		Emoji      string         `json:"emoji,omitempty"`
		Target     int64          `json:"target,omitempty"`
		WaitMillis int64          `json:"wait_ms,omitempty"`
		At         int64          `json:"at,omitempty"`
		DependsOn  []string       `json:"depends_on,omitempty"`
		Buttons    [][]buttonJSON `json:"buttons,omitempty"`
		Edit       int64          `json:"edit,omitempty"`
	}
	buttonJSON struct {
		Text string `json:"text"`
		Data string `json:"callback_data"`
	}
)

// encodeTask returns the task column of p: NULL when p is a plain send.
func encodeTask(p mynah.OutPart) (sql.NullString, error) {
	t := taskJSON{
		StickerSet: p.StickerSet, Emoji: p.Emoji, Target: int64(p.Target),
		WaitMillis: p.Wait.Milliseconds(), DependsOn: p.DependsOn,
		Buttons: encodeButtons(p.Buttons), Edit: int64(p.Edit),
	}
	if !p.At.IsZero() {
		t.At = p.At.UnixMilli()
	}
	if t.StickerSet == "" && t.Emoji == "" && t.Target == 0 && t.WaitMillis == 0 && t.At == 0 &&
		len(t.DependsOn) == 0 && len(t.Buttons) == 0 && t.Edit == 0 {
		return sql.NullString{}, nil
	}
	b, err := json.Marshal(t)
	return sql.NullString{String: string(b), Valid: true}, err
}

// decodeTask fills p's task fields from its kind and task columns.
func decodeTask(p *mynah.OutPart, kind string, task sql.NullString) error {
	if kind != string(mynah.TaskSend) {
		p.Kind = mynah.TaskKind(kind)
	}
	if !task.Valid {
		return nil
	}
	var t taskJSON
	if err := json.Unmarshal([]byte(task.String), &t); err != nil {
		return fmt.Errorf("part %d: task column: %w", p.ID, err)
	}
	p.StickerSet, p.Emoji, p.Target = t.StickerSet, t.Emoji, mynah.MessageID(t.Target)
	p.Wait, p.DependsOn = time.Duration(t.WaitMillis)*time.Millisecond, t.DependsOn
	p.Buttons, p.Edit = decodeButtons(t.Buttons), mynah.MessageID(t.Edit)
	if t.At != 0 {
		p.At = time.UnixMilli(t.At).UTC()
	}
	return nil
}

func encodeButtons(rows [][]mynah.Button) [][]buttonJSON {
	if len(rows) == 0 {
		return nil
	}
	out := make([][]buttonJSON, len(rows))
	for i, row := range rows {
		for _, b := range row {
			out[i] = append(out[i], buttonJSON{Text: b.Text, Data: b.Data})
		}
	}
	return out
}

func decodeButtons(rows [][]buttonJSON) [][]mynah.Button {
	if len(rows) == 0 {
		return nil
	}
	out := make([][]mynah.Button, len(rows))
	for i, row := range rows {
		for _, b := range row {
			out[i] = append(out[i], mynah.Button{Text: b.Text, Data: b.Data})
		}
	}
	return out
}

// buttonsColumn is the buttons column of turns: NULL when there is no keyboard.
func buttonsColumn(rows [][]mynah.Button) (sql.NullString, error) {
	if len(rows) == 0 {
		return sql.NullString{}, nil
	}
	b, err := json.Marshal(encodeButtons(rows))
	return sql.NullString{String: string(b), Valid: true}, err
}

// MarkDone records a part that sends no message as carried out and, in the same
// transaction, queues then (the reminder a schedule part sets) when it is non-nil. A part
// already settled is left as it is, and then is not queued again.
func (db *DB) MarkDone(ctx context.Context, partID int64, then *mynah.Turn) error {
	err := db.settle(ctx, partID, func(tx *txn, agent string, chat mynah.ChatID, thread int64) error {
		now := db.now()
		if _, err := tx.exec(ctx, db.stmts.markDone, now.UnixMilli(), partID); err != nil {
			return err
		}
		if then == nil {
			return nil
		}
		t := *then
		if t.Chat == 0 {
			t.Chat, t.ThreadID = chat, thread
		}
		_, err := db.insertTurnTx(ctx, tx, agent, t)
		return err
	})
	if err != nil {
		return fail(ctx, err, "mark part %d done", partID)
	}
	return nil
}

// RetryPart counts a failed attempt of the part and returns how many there were.
func (db *DB) RetryPart(ctx context.Context, partID int64, reason string) (int, error) {
	var n int
	err := db.inTx(ctx, func(tx *txn) error {
		return tx.queryRow(ctx, db.stmts.retryPart, reason, partID).Scan(&n)
	})
	if err != nil {
		return 0, fail(ctx, err, "count a failed attempt of part %d", partID)
	}
	return n, nil
}

// NextDue returns when agent's earliest turn that is not due at now falls due; zero when
// none waits.
func (db *DB) NextDue(ctx context.Context, agent string, now time.Time) (time.Time, error) {
	var due sql.NullInt64
	if err := db.stmts.dueAt.QueryRowContext(ctx, agent, now.UnixMilli()).Scan(&due); err != nil {
		return time.Time{}, fail(ctx, err, "next due turn of %s", agent)
	}
	return fromMillis(due), nil
}

// insertTurnTx queues t for agent inside tx and returns the turn's id.
func (db *DB) insertTurnTx(ctx context.Context, tx *txn, agent string, t mynah.Turn) (int64, error) {
	buttons, err := buttonsColumn(t.Buttons)
	if err != nil {
		return 0, err
	}
	res, err := tx.exec(ctx, db.stmts.insertTurn, agent, int64(t.Chat), t.ThreadID, int64(t.Target), t.Static,
		int64(t.ReplyTo), orNow(t.Created, db.now).UnixMilli(), notBeforeMillis(t.NotBefore),
		buttons, int64(t.Edit), notBeforeMillis(t.Due))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// SetPreview records msg as the message previewing the turn's answer.
func (db *DB) SetPreview(ctx context.Context, turnID int64, msg mynah.MessageID) error {
	err := db.inTx(ctx, func(tx *txn) error {
		res, err := tx.exec(ctx, db.stmts.setPreview, int64(msg), turnID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, fmt.Errorf("turn %d: %w", turnID, mynah.ErrNotFound))
		}
		return nil
	})
	if err != nil {
		return fail(ctx, err, "set the preview of turn %d", turnID)
	}
	return nil
}
