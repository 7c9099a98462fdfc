package postgres

import (
	"database/sql"
	"encoding/json"
	"time"

	"github.com/mynah-ai/mynah"
)

// millis stores t as Unix milliseconds; the zero time is NULL.
func millis(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// fromMillis reads a time stored by millis, in UTC. NULL and 0 read as the zero time: no
// Telegram timestamp is the Unix epoch itself.
func fromMillis(ms sql.NullInt64) time.Time {
	if !ms.Valid || ms.Int64 == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms.Int64).UTC()
}

// orNow returns t, or now when t is zero.
func orNow(t time.Time, now func() time.Time) time.Time {
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

// messageJSON holds the JSON columns of one message.
type messageJSON struct {
	entities, replyTo, forward, media sql.NullString
}

func encodeMessageJSON(m *mynah.Message) (messageJSON, error) {
	var (
		out messageJSON
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
	if out.entities, err = jsonColumn(len(ents) == 0, ents); err != nil {
		return out, err
	}
	var reply *replyJSON
	if r := m.ReplyTo; r != nil {
		reply = &replyJSON{ID: int64(r.ID), Sender: toUserJSON(r.Sender), Text: r.Text}
	}
	if out.replyTo, err = jsonColumn(reply == nil, reply); err != nil {
		return out, err
	}
	var fwd *forwardJSON
	if f := m.Forward; f != nil {
		fwd = &forwardJSON{Kind: f.Kind, From: toUserJSON(f.From), Name: f.Name,
			ChatID: int64(f.ChatID), MessageID: int64(f.MessageID), Date: millis(f.Date).Int64}
	}
	if out.forward, err = jsonColumn(fwd == nil, fwd); err != nil {
		return out, err
	}
	media := make([]mediaJSON, len(m.Media))
	for i, md := range m.Media {
		media[i] = mediaJSONOf(md)
	}
	out.media, err = jsonColumn(len(media) == 0, media)
	return out, err
}

func mediaJSONOf(m mynah.Media) mediaJSON {
	return mediaJSON{Kind: string(m.Kind), FileID: m.FileID, FileUniqueID: m.FileUniqueID, MimeType: m.MimeType,
		FileName: m.FileName, Emoji: m.Emoji, SetName: m.SetName, Width: m.Width, Height: m.Height,
		Duration: m.Duration, Size: m.Size, Description: m.Description}
}

func decodeMessageJSON(m *mynah.Message, j messageJSON) error {
	if j.entities.Valid {
		var ents []entityJSON
		if err := json.Unmarshal([]byte(j.entities.String), &ents); err != nil {
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
	if j.replyTo.Valid {
		var r replyJSON
		if err := json.Unmarshal([]byte(j.replyTo.String), &r); err != nil {
			return err
		}
		m.ReplyTo = &mynah.ReplyRef{ID: mynah.MessageID(r.ID), Sender: r.Sender.user(), Text: r.Text}
	}
	if j.forward.Valid {
		var f forwardJSON
		if err := json.Unmarshal([]byte(j.forward.String), &f); err != nil {
			return err
		}
		m.Forward = &mynah.Forward{Kind: f.Kind, From: f.From.user(), Name: f.Name, ChatID: mynah.ChatID(f.ChatID),
			MessageID: mynah.MessageID(f.MessageID), Date: fromMillis(sql.NullInt64{Int64: f.Date, Valid: true})}
	}
	if j.media.Valid {
		var media []mediaJSON
		if err := json.Unmarshal([]byte(j.media.String), &media); err != nil {
			return err
		}
		m.Media = make([]mynah.Media, len(media))
		for i, md := range media {
			m.Media[i] = mynah.Media{Kind: mynah.MediaKind(md.Kind), FileID: md.FileID, FileUniqueID: md.FileUniqueID,
				MimeType: md.MimeType, FileName: md.FileName, Emoji: md.Emoji, SetName: md.SetName, Width: md.Width,
				Height: md.Height, Duration: md.Duration, Size: md.Size, Description: md.Description}
		}
	}
	return nil
}
