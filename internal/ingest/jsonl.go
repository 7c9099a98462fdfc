package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/mynah-ai/mynah"
)

// jsonlRecord is one line of a JSONL import.
type jsonlRecord struct {
	ID         *int64  `json:"id"`
	Time       *string `json:"time"`
	SenderID   *int64  `json:"sender_id"`
	SenderName *string `json:"sender_name"`
	Text       *string `json:"text"`
	ReplyTo    int64   `json:"reply_to"`
}

// JSONL is the file at path as an import: one JSON object per line with "id" (an
// integer from 1 to mynah.MaxMessageID, unique in the chat), "time" (RFC 3339),
// "sender_id" (a nonzero integer), "text", and optionally "sender_name" and "reply_to";
// no other field. Blank lines are skipped; a message's position is its line ("line 12").
// The file is opened anew on every run of the source.
func JSONL(path string) Source {
	return func(yield func(string, mynah.Message, error) bool) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		r := bufio.NewReaderSize(f, 1<<16)
		for n := 1; ; n++ {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				m, perr := parseJSONL(line)
				if !yield("line "+strconv.Itoa(n), m, perr) {
					return nil
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("reading %s: %w", path, err)
			}
		}
	}
}

// parseJSONL reads one line of a JSONL import, saying what is wrong with it in the
// terms of the format.
func parseJSONL(line []byte) (mynah.Message, error) {
	var r jsonlRecord
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return mynah.Message{}, fmt.Errorf("not a JSON object of the import format: %w", err)
	}
	switch {
	case r.ID == nil:
		return mynah.Message{}, errors.New(`"id" is missing`)
	case *r.ID <= 0 || *r.ID > mynah.MaxMessageID:
		return mynah.Message{}, fmt.Errorf(`"id" %d is not between 1 and %d`, *r.ID, mynah.MaxMessageID)
	case r.Time == nil:
		return mynah.Message{}, errors.New(`"time" is missing`)
	case r.SenderID == nil || *r.SenderID == 0:
		return mynah.Message{}, errors.New(`"sender_id" is missing or 0`)
	case r.Text == nil:
		return mynah.Message{}, errors.New(`"text" is missing`)
	case r.ReplyTo < 0:
		return mynah.Message{}, fmt.Errorf(`"reply_to" %d is negative`, r.ReplyTo)
	}
	t, err := time.Parse(time.RFC3339, *r.Time)
	if err != nil {
		return mynah.Message{}, fmt.Errorf(`"time" %q is not RFC 3339 (like 2024-05-01T18:30:00Z)`, *r.Time)
	}
	name := ""
	if r.SenderName != nil {
		name = *r.SenderName
	}
	m := mynah.Message{ID: mynah.MessageID(*r.ID), Time: t.UTC(), Sender: mynah.UserNamed(mynah.UserID(*r.SenderID), name), Text: *r.Text}
	if r.ReplyTo != 0 {
		m.ReplyTo = &mynah.ReplyRef{ID: mynah.MessageID(r.ReplyTo)}
	}
	return m, nil
}
