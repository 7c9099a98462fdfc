package media

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/mynah-ai/mynah"
)

// how says what reads a media item.
type how int

const (
	readNone   how = iota // a placeholder: nothing mynah can read (a zip, a contact)
	readImage             // photo, image document, static sticker: the describer sees it
	readFrames            // video sticker, animation, video: frames through ffmpeg
	readLottie            // animated sticker: the Lottie metadata, no model call
	readSpeech            // voice, audio, video note: the transcriber
	readPDF               // PDF document: its text
	readText              // text document: the text
)

// route says what reads md. data, when not nil, are its bytes: a sticker of a set (whose
// format Telegram does not always say) is told apart by its first bytes.
func route(md mynah.Media, data []byte) how {
	switch md.Kind {
	case mynah.MediaPhoto:
		return readImage
	case mynah.MediaSticker:
		switch {
		case md.MimeType == "application/x-tgsticker", isGzip(data):
			return readLottie
		case md.MimeType == "video/webm", isWebM(data):
			return readFrames
		}
		return readImage
	case mynah.MediaAnimation, mynah.MediaVideo:
		return readFrames
	case mynah.MediaVoice, mynah.MediaAudio, mynah.MediaVideoNote:
		return readSpeech
	case mynah.MediaDocument:
		return routeDocument(md)
	}
	return readNone
}

// routeDocument reads a document by its MIME type, then by its name's extension.
func routeDocument(md mynah.Media) how {
	mime := strings.ToLower(strings.TrimSpace(strings.Split(md.MimeType, ";")[0]))
	ext := strings.ToLower(filepath.Ext(md.FileName))
	switch {
	case mime == "image/jpeg", mime == "image/png", mime == "image/gif", mime == "image/webp":
		return readImage
	case mime == "application/pdf", ext == ".pdf":
		return readPDF
	case strings.HasPrefix(mime, "video/"):
		return readFrames
	case strings.HasPrefix(mime, "audio/"):
		return readSpeech
	case strings.HasPrefix(mime, "text/"), textMIME[mime], textExt[ext]:
		return readText
	case mime == "" || mime == "application/octet-stream":
		switch ext {
		case ".jpg", ".jpeg", ".png", ".gif", ".webp":
			return readImage
		}
	}
	return readNone
}

// textMIME and textExt are the documents read as text besides text/*: data and source
// code, checked to be UTF-8 once downloaded.
var (
	textMIME = map[string]bool{
		"application/json": true, "application/xml": true, "application/javascript": true,
		"application/x-yaml": true, "application/yaml": true, "application/toml": true,
		"application/x-sh": true, "application/sql": true, "application/x-python": true,
		"application/ld+json": true, "application/x-ndjson": true,
	}
	textExt = map[string]bool{
		".txt": true, ".md": true, ".markdown": true, ".csv": true, ".tsv": true, ".json": true,
		".jsonl": true, ".ndjson": true, ".xml": true, ".yaml": true, ".yml": true, ".toml": true,
		".ini": true, ".cfg": true, ".conf": true, ".log": true, ".rst": true, ".tex": true,
		".html": true, ".htm": true, ".css": true, ".sql": true, ".sh": true, ".bash": true,
		".go": true, ".py": true, ".js": true, ".mjs": true, ".ts": true, ".tsx": true, ".jsx": true,
		".c": true, ".h": true, ".cc": true, ".cpp": true, ".hpp": true, ".java": true, ".kt": true,
		".rs": true, ".rb": true, ".php": true, ".swift": true, ".cs": true, ".lua": true,
		".pl": true, ".r": true, ".scala": true, ".hs": true, ".ex": true, ".exs": true,
		".dart": true, ".vue": true, ".svelte": true, ".diff": true, ".patch": true, ".srt": true,
		".vtt": true,
	}
)

func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

func isWebM(b []byte) bool { return bytes.HasPrefix(b, []byte{0x1a, 0x45, 0xdf, 0xa3}) }

// visual reports whether md is shown to a vision model as an image (or a frame).
func visual(md mynah.Media) bool {
	switch route(md, nil) {
	case readImage, readFrames:
		return md.Kind != mynah.MediaVideoNote
	}
	return false
}

// able reports errSkip when a lacks what reading by h needs: a describer for images and
// frames, ffmpeg for frames (said once in the log), a transcriber for speech.
func (e *Engine) able(a *agent, h how) error {
	switch h {
	case readNone:
		return errSkip
	case readImage:
		if a.Describer == nil {
			return errSkip
		}
	case readFrames:
		if a.Describer == nil || !e.hasFFmpeg() {
			return errSkip
		}
	case readSpeech:
		if a.Transcriber == nil {
			return errSkip
		}
	}
	return nil
}
