package tgexport

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
)

// message is one element of an export's "messages".
type message struct {
	ID        int64           `json:"id"`
	Type      string          `json:"type"`
	Action    string          `json:"action"` // service messages
	Date      string          `json:"date"`
	Unix      string          `json:"date_unixtime"`
	Edited    string          `json:"edited_unixtime"`
	From      string          `json:"from"`
	FromID    string          `json:"from_id"`
	Text      json.RawMessage `json:"text"`
	ReplyTo   int64           `json:"reply_to_message_id"`
	Photo     string          `json:"photo"`
	Media     string          `json:"media_type"`
	Emoji     string          `json:"sticker_emoji"`
	File      string          `json:"file"`
	FileName  string          `json:"file_name"`
	MimeType  string          `json:"mime_type"`
	FileSize  int64           `json:"file_size"`       // files, in newer exports
	PhotoSize int64           `json:"photo_file_size"` // photos, in newer exports
	Width     int             `json:"width"`
	Height    int             `json:"height"`
	Duration  int             `json:"duration_seconds"`

	ForwardedFrom   string      `json:"forwarded_from"`
	ForwardedFromID string      `json:"forwarded_from_id"`
	Poll            *exportPoll `json:"poll"`
	Contact         *struct {
		FirstName string `json:"first_name"`
		LastName  string `json:"last_name"`
	} `json:"contact_information"` // the phone number is not read: it is someone else's
	Location *struct {
		Latitude  float64 `json:"latitude"`
		Longitude float64 `json:"longitude"`
	} `json:"location_information"`
	PlaceName string `json:"place_name"`
	Address   string `json:"address"`
}

// message converts an exported message. Text is a string or an array of strings and
// entity objects ({"type": "bold", "text": "…"}); media is kept as its kind.
func (em message) message() (mynah.Message, error) {
	if em.ID <= 0 || em.ID > mynah.MaxMessageID {
		return mynah.Message{}, fmt.Errorf(`"id" %d is not between 1 and %d`, em.ID, mynah.MaxMessageID)
	}
	at, err := exportTime(em.Unix, em.Date)
	if err != nil {
		return mynah.Message{}, err
	}
	sender, err := exportSender(em.FromID, em.From)
	if err != nil {
		return mynah.Message{}, err
	}
	text, err := exportText(em.Text)
	if err != nil {
		return mynah.Message{}, err
	}
	m := mynah.Message{ID: mynah.MessageID(em.ID), Time: at, Sender: sender, Text: text}
	if em.Edited != "" {
		if m.Edited, err = exportTime(em.Edited, ""); err != nil {
			return mynah.Message{}, fmt.Errorf(`"edited_unixtime": %w`, err)
		}
	}
	if em.ReplyTo > 0 {
		m.ReplyTo = &mynah.ReplyRef{ID: mynah.MessageID(em.ReplyTo)}
	}
	m.Forward = em.forward()
	m.Media = em.media()
	return m, nil
}

// mediaKind maps the export's media_type to mynah's kind; a type mynah has no kind for
// is kept as it is.
func mediaKind(mediaType string) mynah.MediaKind {
	switch mediaType {
	case "sticker":
		return mynah.MediaSticker
	case "animation":
		return mynah.MediaAnimation
	case "video_file":
		return mynah.MediaVideo
	case "video_message":
		return mynah.MediaVideoNote
	case "voice_message":
		return mynah.MediaVoice
	case "audio_file":
		return mynah.MediaAudio
	}
	return mynah.MediaKind(mediaType)
}

// exportTime reads a message's time: its Unix time when the export has one, otherwise
// its local time.
func exportTime(unix, local string) (time.Time, error) {
	if unix != "" {
		s, err := strconv.ParseInt(unix, 10, 64)
		if err != nil || s <= 0 {
			return time.Time{}, fmt.Errorf(`"date_unixtime" %q is not a Unix time`, unix)
		}
		return time.Unix(s, 0).UTC(), nil
	}
	// Older exports have only the exporter's local time, without a zone: read as UTC.
	t, err := time.Parse("2006-01-02T15:04:05", local)
	if err != nil {
		return time.Time{}, fmt.Errorf(`"date" %q is not a time like 2024-05-01T18:30:00`, local)
	}
	return t, nil
}

// exportSender reads from_id: "user123" is a user, "channel123" a channel posting as
// itself (the Bot API's -100… id). A user's display name is split into first and last
// name (mynah.UserNamed); a channel's is kept whole.
func exportSender(fromID, name string) (mynah.User, error) {
	if n, ok := peerID(fromID, "user"); ok {
		return mynah.UserNamed(mynah.UserID(n), name), nil
	}
	if n, ok := peerID(fromID, "channel"); ok {
		return mynah.User{ID: mynah.UserID(-1_000_000_000_000 - n), FirstName: name}, nil
	}
	return mynah.User{}, fmt.Errorf(`"from_id" %q is not like user123 or channel123`, fromID)
}

// exportText flattens a message's text: entities (bold, links, mentions) become their
// plain text.
func exportText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New(`"text" is neither a string nor an array`)
	}
	var b strings.Builder
	for _, p := range parts {
		var ent struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(p, &s) == nil {
			b.WriteString(s)
		} else if json.Unmarshal(p, &ent) == nil {
			b.WriteString(ent.Text)
		} else {
			return "", errors.New(`"text" holds an element that is neither a string nor an entity`)
		}
	}
	return b.String(), nil
}
