package storecodec

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mynah-ai/mynah"
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

// EncodeTask returns the task column of p: NULL when p is a plain send.
func EncodeTask(p mynah.OutPart) (sql.NullString, error) {
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

// DecodeTask fills p's task fields from its kind and task columns.
func DecodeTask(p *mynah.OutPart, kind string, task sql.NullString) error {
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

// DecodeButtons reads a buttons column written by ButtonsColumn; NULL reads as no keyboard.
func DecodeButtons(col sql.NullString) ([][]mynah.Button, error) {
	if !col.Valid {
		return nil, nil
	}
	var rows [][]buttonJSON
	if err := json.Unmarshal([]byte(col.String), &rows); err != nil {
		return nil, err
	}
	return decodeButtons(rows), nil
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

// ButtonsColumn is the buttons column of turns: NULL when there is no keyboard.
func ButtonsColumn(rows [][]mynah.Button) (sql.NullString, error) {
	if len(rows) == 0 {
		return sql.NullString{}, nil
	}
	b, err := json.Marshal(encodeButtons(rows))
	return sql.NullString{String: string(b), Valid: true}, err
}
