package telegram

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/mymmrac/telego"

	"github.com/mynah-ai/mynah"
)

// media lists m's attachments: the kinds mynah knows in detail, then a placeholder named
// after the Telegram field for any other content or service payload present.
func media(m *telego.Message) []mynah.Media {
	var out []mynah.Media
	if len(m.Photo) > 0 {
		p := largest(m.Photo)
		out = append(out, mynah.Media{Kind: mynah.MediaPhoto, FileID: p.FileID, FileUniqueID: p.FileUniqueID,
			Width: p.Width, Height: p.Height})
	}
	if s := m.Sticker; s != nil {
		out = append(out, mynah.Media{Kind: mynah.MediaSticker, FileID: s.FileID, FileUniqueID: s.FileUniqueID,
			MimeType: stickerMime(s), Emoji: s.Emoji, SetName: s.SetName, Width: s.Width, Height: s.Height})
	}
	if a := m.Animation; a != nil {
		out = append(out, mynah.Media{Kind: mynah.MediaAnimation, FileID: a.FileID, FileUniqueID: a.FileUniqueID,
			MimeType: a.MimeType, FileName: a.FileName, Width: a.Width, Height: a.Height, Duration: a.Duration})
	}
	if v := m.Video; v != nil {
		out = append(out, mynah.Media{Kind: mynah.MediaVideo, FileID: v.FileID, FileUniqueID: v.FileUniqueID,
			MimeType: v.MimeType, FileName: v.FileName, Width: v.Width, Height: v.Height, Duration: v.Duration})
	}
	if v := m.VideoNote; v != nil {
		out = append(out, mynah.Media{Kind: mynah.MediaVideoNote, FileID: v.FileID, FileUniqueID: v.FileUniqueID,
			Width: v.Length, Height: v.Length, Duration: v.Duration})
	}
	if v := m.Voice; v != nil {
		out = append(out, mynah.Media{Kind: mynah.MediaVoice, FileID: v.FileID, FileUniqueID: v.FileUniqueID,
			MimeType: v.MimeType, Duration: v.Duration})
	}
	if a := m.Audio; a != nil {
		out = append(out, mynah.Media{Kind: mynah.MediaAudio, FileID: a.FileID, FileUniqueID: a.FileUniqueID,
			MimeType: a.MimeType, FileName: a.FileName, Duration: a.Duration,
			Description: join(" — ", a.Performer, a.Title)})
	}
	// Telegram repeats an animation as a document for old clients.
	if d := m.Document; d != nil && m.Animation == nil {
		out = append(out, mynah.Media{Kind: mynah.MediaDocument, FileID: d.FileID, FileUniqueID: d.FileUniqueID,
			MimeType: d.MimeType, FileName: d.FileName})
	}
	if v := m.Venue; v != nil {
		out = append(out, mynah.Media{Kind: "venue", Description: join(", ", v.Title, v.Address)})
	} else if l := m.Location; l != nil { // a venue repeats its location
		out = append(out, mynah.Media{Kind: mynah.MediaLocation, Description: coord(l.Latitude) + "," + coord(l.Longitude)})
	}
	if c := m.Contact; c != nil {
		name := join(" ", c.FirstName, c.LastName)
		out = append(out, mynah.Media{Kind: mynah.MediaContact, Description: join(" ", name, c.PhoneNumber)})
	}
	if p := m.Poll; p != nil {
		lines := []string{p.Question}
		for _, o := range p.Options {
			lines = append(lines, "- "+o.Text)
		}
		out = append(out, mynah.Media{Kind: mynah.MediaPoll, Description: strings.Join(lines, "\n")})
	}
	if d := m.Dice; d != nil {
		out = append(out, mynah.Media{Kind: "dice", Emoji: d.Emoji, Description: d.Emoji + " " + strconv.Itoa(d.Value)})
	}
	return append(out, placeholders(m)...)
}

// placeholders returns a Media named after each non-empty field of m that is neither
// described above nor message metadata: a story, a game, a checklist, paid media, a
// service message (new_chat_members, pinned_message, …) and whatever telego adds later.
func placeholders(m *telego.Message) []mynah.Media {
	var out []mynah.Media
	v := reflect.ValueOf(m).Elem()
	for i := range v.NumField() {
		name := jsonName(v.Type().Field(i))
		if !v.Field(i).IsZero() && !knownField(name) {
			out = append(out, mynah.Media{Kind: mynah.MediaKind(name)})
		}
	}
	return out
}

// knownField reports whether a Message field is mapped by message or media, or is
// metadata that is not content.
func knownField(name string) bool {
	switch name {
	case "message_id", "message_thread_id", "direct_messages_topic", "from", "sender_chat",
		"sender_boost_count", "sender_business_bot", "sender_tag", "receiver_user",
		"ephemeral_message_id", "date", "guest_query_id", "business_connection_id", "chat",
		"forward_origin", "is_topic_message", "is_automatic_forward", "reply_to_message",
		"external_reply", "quote", "reply_to_story", "reply_to_checklist_task_id",
		"reply_to_poll_option_id", "via_bot", "guest_bot_caller_user", "guest_bot_caller_chat",
		"edit_date", "has_protected_content", "is_from_offline", "is_paid_post", "media_group_id",
		"author_signature", "paid_star_count", "text", "entities", "link_preview_options",
		"suggested_post_info", "effect_id", "caption", "caption_entities",
		"show_caption_above_media", "has_media_spoiler", "reply_markup",
		"photo", "sticker", "animation", "video", "video_note", "voice", "audio", "document",
		"venue", "location", "contact", "poll", "dice":
		return true
	}
	return false
}

// unknownContent returns placeholders for the fields of the raw message under kind that
// telego does not know, in name order; these are content kinds newer than this adapter.
func unknownContent(raw []byte, kind string) []mynah.Media {
	var update map[string]json.RawMessage
	if json.Unmarshal(raw, &update) != nil {
		return nil
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(update[kind], &msg) != nil {
		return nil
	}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[telego.Message]()) {
		delete(msg, jsonName(f))
	}
	names := slices.Sorted(maps.Keys(msg))
	var out []mynah.Media
	for _, n := range names {
		out = append(out, mynah.Media{Kind: mynah.MediaKind(n)})
	}
	return out
}

// largest is the photo size with the most pixels; Telegram lists sizes smallest first, so
// ties go to the later one.
func largest(sizes []telego.PhotoSize) telego.PhotoSize {
	best := sizes[0]
	for _, s := range sizes[1:] {
		if s.Width*s.Height >= best.Width*best.Height {
			best = s
		}
	}
	return best
}

// stickerMime is the format of a sticker's file: TGS (Lottie), WEBM video or WEBP image.
func stickerMime(s *telego.Sticker) string {
	switch {
	case s.IsAnimated:
		return "application/x-tgsticker"
	case s.IsVideo:
		return "video/webm"
	}
	return "image/webp"
}

func coord(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// join joins the non-empty parts with sep.
func join(sep string, parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), sep)
}
