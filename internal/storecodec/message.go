// Package storecodec is how the stores write the parts of the domain that have no column of
// their own: times as Unix milliseconds and the JSON columns of messages, turns and outbox
// parts. Both stores (sqlite, postgres) use it, so a row copied from one to the other reads
// the same. The JSON shapes are not the domain types, so that renaming a Go field never
// changes how stored rows read; their names are stable on disk.
package storecodec

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mynah-ai/mynah"
)

// Millis stores t as Unix milliseconds; the zero time is NULL.
func Millis(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// FromMillis reads a time stored by Millis, in UTC. NULL and 0 read as the zero time: no
// Telegram timestamp is the Unix epoch itself.
func FromMillis(ms sql.NullInt64) time.Time {
	if !ms.Valid || ms.Int64 == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms.Int64).UTC()
}

// OrNow returns t, or now when t is zero.
func OrNow(t time.Time, now func() time.Time) time.Time {
	if t.IsZero() {
		return now()
	}
	return t
}

// The JSON columns of messages use these shapes rather than the domain types, so that
// renaming a Go field never changes how stored rows read. Field names follow the Bot API.
type (
	userJSON struct {
		ID        int64  `json:"id"`
		FirstName string `json:"first_name,omitempty"`
		LastName  string `json:"last_name,omitempty"`
		Username  string `json:"username,omitempty"`
		IsBot     bool   `json:"is_bot,omitempty"`
	}
	entityJSON struct {
		Type   string    `json:"type"`
		Offset int       `json:"offset"`
		Length int       `json:"length"`
		URL    string    `json:"url,omitempty"`
		User   *userJSON `json:"user,omitempty"`
	}
	replyJSON struct {
		ID     int64     `json:"message_id"`
		Sender *userJSON `json:"from,omitempty"`
		Text   string    `json:"text,omitempty"`
	}
	forwardJSON struct {
		Kind      string    `json:"kind"`
		From      *userJSON `json:"from,omitempty"`
		Name      string    `json:"name,omitempty"`
		ChatID    int64     `json:"chat_id,omitempty"`
		MessageID int64     `json:"message_id,omitempty"`
		Date      int64     `json:"date_ms,omitempty"`
	}
	mediaJSON struct {
		Kind         string `json:"kind"`
		FileID       string `json:"file_id,omitempty"`
		FileUniqueID string `json:"file_unique_id,omitempty"`
		MimeType     string `json:"mime_type,omitempty"`
		FileName     string `json:"file_name,omitempty"`
		Emoji        string `json:"emoji,omitempty"`
		SetName      string `json:"set_name,omitempty"`
		Width        int    `json:"width,omitempty"`
		Height       int    `json:"height,omitempty"`
		Duration     int    `json:"duration,omitempty"`
		Size         int64  `json:"size,omitempty"`
		Description  string `json:"description,omitempty"`
	}
)

func toUserJSON(u mynah.User) *userJSON {
	if u == (mynah.User{}) {
		return nil
	}
	return &userJSON{ID: int64(u.ID), FirstName: u.FirstName, LastName: u.LastName, Username: u.Username, IsBot: u.IsBot}
}

func (u *userJSON) user() mynah.User {
	if u == nil {
		return mynah.User{}
	}
	return mynah.User{ID: mynah.UserID(u.ID), FirstName: u.FirstName, LastName: u.LastName, Username: u.Username, IsBot: u.IsBot}
}

// jsonColumn marshals v, or returns NULL when empty reports the value absent.
func jsonColumn(empty bool, v any) (sql.NullString, error) {
	if empty {
		return sql.NullString{}, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return sql.NullString{}, err
	}
	return sql.NullString{String: string(b), Valid: true}, nil
}

// MessageJSON holds the JSON columns of one message; NULL where the message has none.
type MessageJSON struct {
	Entities, ReplyTo, Forward, Media sql.NullString
}

// EncodeMessage returns the JSON columns of m.
func EncodeMessage(m *mynah.Message) (MessageJSON, error) {
	var (
		out MessageJSON
		err error
	)
	ents := make([]entityJSON, len(m.Entities))
	for i, e := range m.Entities {
		ents[i] = entityJSON{Type: e.Type, Offset: e.Offset, Length: e.Length, URL: e.URL}
		if e.User != nil {
			u := toUserJSON(*e.User)
			if u == nil {
				u = &userJSON{}
			}
			ents[i].User = u
		}
	}
	if out.Entities, err = jsonColumn(len(ents) == 0, ents); err != nil {
		return out, err
	}
	var reply *replyJSON
	if r := m.ReplyTo; r != nil {
		reply = &replyJSON{ID: int64(r.ID), Sender: toUserJSON(r.Sender), Text: r.Text}
	}
	if out.ReplyTo, err = jsonColumn(reply == nil, reply); err != nil {
		return out, err
	}
	var fwd *forwardJSON
	if f := m.Forward; f != nil {
		fwd = &forwardJSON{Kind: f.Kind, From: toUserJSON(f.From), Name: f.Name,
			ChatID: int64(f.ChatID), MessageID: int64(f.MessageID), Date: Millis(f.Date).Int64}
	}
	if out.Forward, err = jsonColumn(fwd == nil, fwd); err != nil {
		return out, err
	}
	media := make([]mediaJSON, len(m.Media))
	for i, md := range m.Media {
		media[i] = mediaJSONOf(md)
	}
	out.Media, err = jsonColumn(len(media) == 0, media)
	return out, err
}

func mediaJSONOf(m mynah.Media) mediaJSON {
	return mediaJSON{Kind: string(m.Kind), FileID: m.FileID, FileUniqueID: m.FileUniqueID, MimeType: m.MimeType,
		FileName: m.FileName, Emoji: m.Emoji, SetName: m.SetName, Width: m.Width, Height: m.Height,
		Duration: m.Duration, Size: m.Size, Description: m.Description}
}

// DecodeMessage fills m's entities, reply, forward and media from its JSON columns.
func DecodeMessage(m *mynah.Message, j MessageJSON) error {
	if j.Entities.Valid {
		var ents []entityJSON
		if err := json.Unmarshal([]byte(j.Entities.String), &ents); err != nil {
			return err
		}
		m.Entities = make([]mynah.Entity, len(ents))
		for i, e := range ents {
			m.Entities[i] = mynah.Entity{Type: e.Type, Offset: e.Offset, Length: e.Length, URL: e.URL}
			if e.User != nil {
				u := e.User.user()
				m.Entities[i].User = &u
			}
		}
	}
	if j.ReplyTo.Valid {
		var r replyJSON
		if err := json.Unmarshal([]byte(j.ReplyTo.String), &r); err != nil {
			return err
		}
		m.ReplyTo = &mynah.ReplyRef{ID: mynah.MessageID(r.ID), Sender: r.Sender.user(), Text: r.Text}
	}
	if j.Forward.Valid {
		var f forwardJSON
		if err := json.Unmarshal([]byte(j.Forward.String), &f); err != nil {
			return err
		}
		m.Forward = &mynah.Forward{Kind: f.Kind, From: f.From.user(), Name: f.Name, ChatID: mynah.ChatID(f.ChatID),
			MessageID: mynah.MessageID(f.MessageID), Date: FromMillis(sql.NullInt64{Int64: f.Date, Valid: true})}
	}
	if j.Media.Valid {
		media, err := DecodeMedia(j.Media)
		if err != nil {
			return err
		}
		m.Media = media
	}
	return nil
}

// DecodeMedia reads a message's media column; NULL reads as none.
func DecodeMedia(col sql.NullString) ([]mynah.Media, error) {
	if !col.Valid {
		return nil, nil
	}
	var media []mediaJSON
	if err := json.Unmarshal([]byte(col.String), &media); err != nil {
		return nil, err
	}
	out := make([]mynah.Media, len(media))
	for i, md := range media {
		out[i] = mynah.Media{Kind: mynah.MediaKind(md.Kind), FileID: md.FileID, FileUniqueID: md.FileUniqueID,
			MimeType: md.MimeType, FileName: md.FileName, Emoji: md.Emoji, SetName: md.SetName, Width: md.Width,
			Height: md.Height, Duration: md.Duration, Size: md.Size, Description: md.Description}
	}
	return out, nil
}

// DescribeMedia returns the stored media JSON with the description of the items of
// uniqueID set, and whether anything changed. Items are read as raw fields, so fields
// written by a newer binary survive.
func DescribeMedia(stored, uniqueID, description string) (string, bool, error) {
	if stored == "" {
		return stored, false, nil
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stored), &items); err != nil {
		return "", false, fmt.Errorf("stored media: %w", err)
	}
	desc, err := json.Marshal(description)
	if err != nil {
		return "", false, err
	}
	changed := false
	for _, it := range items {
		var uid, old string
		if raw, ok := it["file_unique_id"]; !ok || json.Unmarshal(raw, &uid) != nil || uid != uniqueID {
			continue
		}
		if raw, ok := it["description"]; ok {
			_ = json.Unmarshal(raw, &old)
		}
		if old == description {
			continue
		}
		if description == "" {
			delete(it, "description")
		} else {
			it["description"] = desc
		}
		changed = true
	}
	if !changed {
		return stored, false, nil
	}
	b, err := json.Marshal(items)
	return string(b), true, err
}

// CheckCrew reports what makes s impossible to store.
func CheckCrew(s mynah.CrewState) error {
	if s.Crew == "" || s.Chat == 0 {
		return errors.New("no crew or chat")
	}
	if len(s.Members) == 0 {
		return errors.New("no members")
	}
	seen := map[string]bool{}
	for _, m := range s.Members {
		if m.Agent == "" || seen[m.Agent] {
			return fmt.Errorf("member %q empty or repeated", m.Agent)
		}
		seen[m.Agent] = true
	}
	return nil
}
