package telegram

import (
	"cmp"
	"encoding/json"
	"maps"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mymmrac/telego"

	"github.com/mynah-ai/mynah"
)

// media lists m's attachments: the kinds mynah knows in detail, then a placeholder named
// after the Telegram field for any other content or service payload present. A file
// attachment carries what the describer needs before downloading it: ids, format, name,
// size in bytes, pixels and seconds.
func media(m *telego.Message) []mynah.Media {
	var out []mynah.Media
	if len(m.Photo) > 0 {
		p := visionSize(m.Photo)
		// Telegram re-encodes every photo as JPEG.
		out = append(out, mynah.Media{Kind: mynah.MediaPhoto, FileID: p.FileID, FileUniqueID: p.FileUniqueID,
			MimeType: "image/jpeg", Width: p.Width, Height: p.Height, Size: int64(p.FileSize)})
	}
	if s := m.Sticker; s != nil {
		out = append(out, sticker(s))
	}
	if a := m.Animation; a != nil {
		// Telegram converts GIFs to silent MP4.
		out = append(out, mynah.Media{Kind: mynah.MediaAnimation, FileID: a.FileID, FileUniqueID: a.FileUniqueID,
			MimeType: cmp.Or(a.MimeType, "video/mp4"), FileName: a.FileName, Width: a.Width, Height: a.Height,
			Duration: a.Duration, Size: a.FileSize})
	}
	if v := m.Video; v != nil {
		out = append(out, mynah.Media{Kind: mynah.MediaVideo, FileID: v.FileID, FileUniqueID: v.FileUniqueID,
			MimeType: cmp.Or(v.MimeType, fileMime(v.FileName), "video/mp4"), FileName: v.FileName, Width: v.Width,
			Height: v.Height, Duration: v.Duration, Size: v.FileSize})
	}
	if v := m.VideoNote; v != nil {
		// Round video messages are square MP4 clips; Telegram does not name the format.
		out = append(out, mynah.Media{Kind: mynah.MediaVideoNote, FileID: v.FileID, FileUniqueID: v.FileUniqueID,
			MimeType: "video/mp4", Width: v.Length, Height: v.Length, Duration: v.Duration, Size: int64(v.FileSize)})
	}
	if v := m.Voice; v != nil {
		// Voice notes recorded in a Telegram app are OGG/Opus.
		out = append(out, mynah.Media{Kind: mynah.MediaVoice, FileID: v.FileID, FileUniqueID: v.FileUniqueID,
			MimeType: cmp.Or(v.MimeType, "audio/ogg"), Duration: v.Duration, Size: v.FileSize})
	}
	if a := m.Audio; a != nil {
		out = append(out, mynah.Media{Kind: mynah.MediaAudio, FileID: a.FileID, FileUniqueID: a.FileUniqueID,
			// The performer and title name the track better than its file name; the
			// description is left to the transcriber.
			MimeType: cmp.Or(a.MimeType, fileMime(a.FileName)), FileName: cmp.Or(join(" — ", a.Performer, a.Title), a.FileName),
			Duration: a.Duration, Size: a.FileSize})
	}
	// Telegram repeats an animation as a document for old clients.
	if d := m.Document; d != nil && m.Animation == nil {
		out = append(out, mynah.Media{Kind: mynah.MediaDocument, FileID: d.FileID, FileUniqueID: d.FileUniqueID,
			MimeType: documentMime(d.MimeType, d.FileName), FileName: d.FileName, Size: d.FileSize})
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
	for _, f := range placeholderFields() {
		if !v.Field(f.index).IsZero() {
			out = append(out, mynah.Media{Kind: f.kind})
		}
	}
	return out
}

// placeholderField is a field of telego.Message that placeholders reports when set.
type placeholderField struct {
	index int
	kind  mynah.MediaKind
}

// placeholderFields lists, once, the fields of telego.Message that knownField does not
// know, in field order: reading struct tags for every message was 3% of a serving
// process's CPU.
var placeholderFields = sync.OnceValue(func() []placeholderField {
	var fs []placeholderField
	t := reflect.TypeFor[telego.Message]()
	for i := range t.NumField() {
		if name := jsonName(t.Field(i)); !knownField(name) {
			fs = append(fs, placeholderField{index: i, kind: mynah.MediaKind(name)})
		}
	}
	return fs
})

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

// visionMaxSide is the longest side of the photo size mynah picks for a vision model.
// Models scale larger images down before they look (Anthropic to about 1568 px on the
// long side, OpenAI's detailed mode to 768 px on the short side, Gemini tiles at 768 px),
// so more pixels only cost download time and tokens; 1280 px is Telegram's own "y" size,
// sharp enough to read text in a screenshot.
const visionMaxSide = 1280

// visionSize is the photo size to describe: the largest whose longest side is at most
// visionMaxSide, else (every size is larger) the smallest, which is the closest to it.
// Telegram lists sizes smallest first, so among equals the later one wins.
func visionSize(sizes []telego.PhotoSize) telego.PhotoSize {
	var best, smallest *telego.PhotoSize
	for i := range sizes {
		s := &sizes[i]
		if smallest == nil || pixels(*s) < pixels(*smallest) {
			smallest = s
		}
		if max(s.Width, s.Height) <= visionMaxSide && (best == nil || pixels(*s) >= pixels(*best)) {
			best = s
		}
	}
	if best == nil {
		best = smallest
	}
	return *best
}

func pixels(s telego.PhotoSize) int { return s.Width * s.Height }

// sticker maps a sticker; its format follows its flags (see stickerMime).
func sticker(s *telego.Sticker) mynah.Media {
	return mynah.Media{Kind: mynah.MediaSticker, FileID: s.FileID, FileUniqueID: s.FileUniqueID,
		MimeType: stickerMime(s), Emoji: s.Emoji, SetName: s.SetName, Width: s.Width, Height: s.Height,
		Size: int64(s.FileSize)}
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

// documentMime is a document's MIME type: the sender's, unless it is missing or the
// generic application/octet-stream and the file name's extension is one mynah can read.
func documentMime(sent, name string) string {
	if sent != "" && sent != "application/octet-stream" {
		return sent
	}
	return cmp.Or(fileMime(name), sent)
}

// fileMime is the MIME type of a file name's extension from a fixed table of the formats
// the media describer reads (the system's MIME table differs between machines), or "".
func fileMime(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if ext == "" {
		return ""
	}
	switch ext {
	case ".txt", ".log":
		return "text/plain"
	case ".md", ".markdown":
		return "text/markdown"
	case ".csv":
		return "text/csv"
	case ".tsv":
		return "text/tab-separated-values"
	case ".json":
		return "application/json"
	case ".yaml", ".yml":
		return "application/yaml"
	case ".xml":
		return "application/xml"
	case ".html", ".htm":
		return "text/html"
	case ".pdf":
		return "application/pdf"
	case ".go":
		return "text/x-go"
	case ".py":
		return "text/x-python"
	case ".js", ".mjs":
		return "text/javascript"
	case ".ts":
		return "text/x-typescript"
	case ".c", ".h":
		return "text/x-c"
	case ".rs":
		return "text/x-rust"
	case ".sh":
		return "text/x-shellscript"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".png":
		return "image/png"
	case ".webp":
		return "image/webp"
	case ".gif":
		return "image/gif"
	case ".mp4":
		return "video/mp4"
	case ".webm":
		return "video/webm"
	case ".mov":
		return "video/quicktime"
	case ".ogg", ".oga", ".opus":
		return "audio/ogg"
	case ".mp3":
		return "audio/mpeg"
	case ".m4a":
		return "audio/mp4"
	case ".wav":
		return "audio/wav"
	case ".flac":
		return "audio/flac"
	case ".tgs":
		return "application/x-tgsticker"
	}
	return ""
}

func coord(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// join joins the non-empty parts with sep.
func join(sep string, parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), sep)
}
