package tgexport

import (
	"strconv"
	"strings"

	"github.com/mynah-ai/mynah"
)

// exportPoll is a message's "poll".
type exportPoll struct {
	Question string `json:"question"`
	Answers  []struct {
		Text string `json:"text"`
	} `json:"answers"`
}

// media converts a message's attachment, if any: a photo, a file with its media_type
// (sticker, voice, …), a file sent as a document, a poll, a contact, a venue or a
// location. What a model cannot see (a poll's question, a contact's name, coordinates)
// is in the Description, written like the live Telegram conversion writes it. A
// contact's phone number is dropped.
func (em message) media() []mynah.Media {
	var md mynah.Media
	switch {
	case em.Photo != "":
		md = mynah.Media{Kind: mynah.MediaPhoto, Width: em.Width, Height: em.Height, Size: em.PhotoSize}
	case em.Media != "":
		md = mynah.Media{Kind: mediaKind(em.Media), Emoji: em.Emoji, MimeType: em.MimeType, FileName: em.FileName,
			Width: em.Width, Height: em.Height, Duration: em.Duration, Size: em.FileSize}
	case em.File != "" || em.FileName != "" || em.MimeType != "":
		// A file without a media_type was sent as a file, even an image.
		md = mynah.Media{Kind: mynah.MediaDocument, MimeType: em.MimeType, FileName: em.FileName, Size: em.FileSize}
	case em.Poll != nil:
		lines := []string{em.Poll.Question}
		for _, a := range em.Poll.Answers {
			lines = append(lines, "- "+a.Text)
		}
		md = mynah.Media{Kind: mynah.MediaPoll, Description: strings.Join(lines, "\n")}
	case em.Contact != nil:
		md = mynah.Media{Kind: mynah.MediaContact, Description: join(" ", em.Contact.FirstName, em.Contact.LastName)}
	case em.PlaceName != "" || em.Address != "":
		md = mynah.Media{Kind: "venue", Description: join(", ", em.PlaceName, em.Address)}
	case em.Location != nil:
		md = mynah.Media{Kind: mynah.MediaLocation, Description: coord(em.Location.Latitude) + "," + coord(em.Location.Longitude)}
	default:
		return nil
	}
	return []mynah.Media{md}
}

// forward reads where a forwarded message came from: forwarded_from is the original
// sender's or chat's name, forwarded_from_id (when the export has it) its id, like
// from_id. Without an id the sender hid their account.
func (em message) forward() *mynah.Forward {
	if em.ForwardedFrom == "" && em.ForwardedFromID == "" {
		return nil
	}
	id := em.ForwardedFromID
	if n, ok := peerID(id, "user"); ok {
		return &mynah.Forward{Kind: "user", From: mynah.UserNamed(mynah.UserID(n), em.ForwardedFrom)}
	}
	if n, ok := peerID(id, "channel"); ok {
		return &mynah.Forward{Kind: "channel", Name: em.ForwardedFrom, ChatID: mynah.ChatID(-1_000_000_000_000 - n)}
	}
	if n, ok := peerID(id, "chat"); ok {
		return &mynah.Forward{Kind: "chat", Name: em.ForwardedFrom, ChatID: mynah.ChatID(-n)}
	}
	return &mynah.Forward{Kind: "hidden_user", Name: em.ForwardedFrom}
}

// peerID reads an export's peer id like "user123": the number after prefix, when it is
// a positive one.
func peerID(id, prefix string) (int64, bool) {
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(rest, 10, 64)
	return n, err == nil && n > 0
}

// coord formats a latitude or longitude without trailing zeros.
func coord(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// join joins the non-empty parts with sep.
func join(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}
