package telegramtest

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// FileKind is the kind of a stored file; it decides its file_path folder and,
// when the file has no name, its extension.
type FileKind string

// File kinds.
const (
	KindPhoto     FileKind = "photo"
	KindSticker   FileKind = "sticker"
	KindDocument  FileKind = "document"
	KindVoice     FileKind = "voice"
	KindVideo     FileKind = "video"
	KindVideoNote FileKind = "video_note"
	KindAnimation FileKind = "animation"
	KindAudio     FileKind = "audio"
)

// folders are the file_path folders of the official server.
var folders = map[FileKind]string{
	KindPhoto: "photos", KindSticker: "stickers", KindDocument: "documents", KindVoice: "voice",
	KindVideo: "videos", KindVideoNote: "video_notes", KindAnimation: "animations", KindAudio: "music",
}

// maxDownload is the cloud Bot API's getFile limit.
const maxDownload = 20 << 20

type storedFile struct {
	id, uniqueID string
	kind         FileKind
	path, name   string
	data         []byte
	// size is the file_size reported for the file; 0 means len(data).
	size int
	// photo lists the sizes a photo is offered in, computed on first use.
	photo []photoSize
}

// photoSize is one size of a photo: a stored file and its dimensions.
type photoSize struct {
	f    *storedFile
	w, h int
}

// fileSize is the file_size reported for f.
func (f *storedFile) fileSize() int {
	if f.size > 0 {
		return f.size
	}
	return len(f.data)
}

func (f *storedFile) asFile() File {
	return File{FileID: f.id, FileUniqueID: f.uniqueID, FileSize: f.fileSize(), FilePath: f.path}
}

// AddFile stores content as a file of kind that bots can fetch with getFile
// and download, and that injected media and sends by file_id can use. A
// sticker's format follows its content: gzip is an animated (TGS) sticker,
// Matroska/WEBM a video sticker, anything else a static WEBP one.
func (s *Server) AddFile(content []byte, kind FileKind) (fileID, uniqueID string) {
	return s.AddFileSized(content, kind, 0)
}

// AddFileSized is AddFile for a file that Telegram reports as reportedSize
// bytes (0 means its real length) in messages and getFile, without the
// memory: a 25 MB video is refused by getFile as too big ("Bad Request: file
// is too big", as files over 20 MB are), a 19.9 MB one is not, and
// downloading it serves content.
func (s *Server) AddFileSized(content []byte, kind FileKind, reportedSize int64) (fileID, uniqueID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.addFileLocked(content, kind, "")
	f.size = int(max(reportedSize, 0))
	return f.id, f.uniqueID
}

// FileDownloads returns how many files were downloaded from
// /file/bot<token>/<file_path> so far (answers other than 200 do not count).
func (s *Server) FileDownloads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.downloads
}

func (s *Server) addFileLocked(content []byte, kind FileKind, name string) *storedFile {
	s.fileSeq++
	n := s.fileSeq
	ext := path.Ext(name)
	if ext == "" {
		ext = defaultExt(kind, content)
	}
	folder := folders[kind]
	if folder == "" {
		folder = string(kind) + "s"
	}
	f := &storedFile{
		id:       fmt.Sprintf("%s-file-%d", kind, n),
		uniqueID: fmt.Sprintf("uniq%d", n),
		kind:     kind,
		path:     fmt.Sprintf("%s/file_%d%s", folder, n, ext),
		name:     name,
		data:     append([]byte(nil), content...),
	}
	s.files[f.id] = f
	s.filePaths[f.path] = f
	return f
}

// defaultExt is the extension of a file of kind without a name, as the
// official server picks it.
func defaultExt(kind FileKind, content []byte) string {
	switch kind {
	case KindPhoto:
		return ".jpg"
	case KindSticker:
		switch {
		case isGzip(content):
			return ".tgs"
		case isMatroska(content):
			return ".webm"
		}
		return ".webp"
	case KindVoice:
		return ".oga"
	case KindVideo, KindVideoNote, KindAnimation:
		if isMatroska(content) {
			return ".webm"
		}
		return ".mp4"
	case KindAudio:
		if bytes.HasPrefix(content, []byte("OggS")) {
			return ".ogg"
		}
		return ".mp3"
	}
	return ""
}

func isGzip(b []byte) bool     { return bytes.HasPrefix(b, []byte{0x1f, 0x8b}) }
func isMatroska(b []byte) bool { return bytes.HasPrefix(b, []byte{0x1a, 0x45, 0xdf, 0xa3}) }

// inputFile resolves an InputFile parameter: an upload, attach://<name>, a
// file_id or an HTTP URL (not fetched; an empty file stands in).
func (s *Server) inputFile(p params, name string, kind FileKind) (*storedFile, *Error) {
	v := p[name]
	if v.file != nil {
		return s.addFileLocked(v.file.data, kind, v.file.name), nil
	}
	ref := strings.TrimSpace(v.str)
	if part, ok := strings.CutPrefix(ref, "attach://"); ok {
		if up := p[part].file; up != nil {
			return s.addFileLocked(up.data, kind, up.name), nil
		}
		return nil, badRequest(msgWrongFileID)
	}
	if u, err := url.Parse(ref); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return s.addFileLocked(nil, kind, path.Base(u.Path)), nil
	}
	if f := s.files[ref]; f != nil {
		return f, nil
	}
	return nil, badRequest(msgWrongFileID)
}

// sendMedia sends a media message with an optional caption.
func (s *Server) sendMedia(b *bot, p params, method, param string, kind FileKind, fill func(m *Message, f *storedFile)) (any, string, *Error) {
	if !p.has(param) || p[param].file == nil && strings.TrimSpace(p.str(param)) == "" {
		return nil, "", badRequest(fmt.Sprintf("there is no %s in the request", param))
	}
	raw := p.str("caption")
	f, e := parseText(raw, p, "caption_entities")
	if e != nil {
		return nil, "", e
	}
	return s.send(b, p, outgoing{
		method: method, raw: raw, f: f, rule: captionRule(), caption: true,
		media: func(m *Message) (string, *Error) {
			file, e := s.inputFile(p, param, kind)
			if e != nil {
				return "", e
			}
			fill(m, file)
			return file.id, nil
		},
	})
}

func (s *Server) sendPhoto(_ context.Context, b *bot, p params) (any, string, *Error) {
	return s.sendMedia(b, p, "sendPhoto", "photo", KindPhoto, func(m *Message, f *storedFile) {
		m.Photo = s.photoSizesLocked(f)
	})
}

func (s *Server) sendSticker(_ context.Context, b *bot, p params) (any, string, *Error) {
	return s.sendMedia(b, p, "sendSticker", "sticker", KindSticker, func(m *Message, f *storedFile) {
		m.Sticker = sticker(f, p.str("emoji"), "")
		if st := s.setStickerLocked(f.id); st != nil {
			m.Sticker = st // a sticker of a set keeps its emoji and set name, as on Telegram
		}
	})
}

func (s *Server) sendDocument(_ context.Context, b *bot, p params) (any, string, *Error) {
	return s.sendMedia(b, p, "sendDocument", "document", KindDocument, func(m *Message, f *storedFile) {
		m.Document = document(f)
	})
}

func sticker(f *storedFile, emoji, setName string) *Sticker {
	ext := path.Ext(f.path)
	return &Sticker{
		FileID: f.id, FileUniqueID: f.uniqueID, Type: "regular", Width: 512, Height: 512,
		IsAnimated: ext == ".tgs", IsVideo: ext == ".webm", Emoji: emoji, SetName: setName, FileSize: f.fileSize(),
	}
}

func document(f *storedFile) *Document {
	name := f.name
	if name == "" {
		name = path.Base(f.path)
	}
	return &Document{
		FileID: f.id, FileUniqueID: f.uniqueID, FileName: name,
		MimeType: mimeType(name), FileSize: f.fileSize(),
	}
}

// mimeTypes are the types a sending app reports for common extensions; the
// system's MIME table differs between machines, so these come first.
var mimeTypes = map[string]string{
	".pdf": "application/pdf", ".txt": "text/plain", ".md": "text/markdown", ".csv": "text/csv",
	".json": "application/json", ".go": "text/x-go", ".py": "text/x-python", ".html": "text/html",
	".xml": "application/xml", ".zip": "application/zip", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".png": "image/png", ".gif": "image/gif", ".webp": "image/webp", ".mp4": "video/mp4",
	".webm": "video/webm", ".mov": "video/quicktime", ".ogg": "audio/ogg", ".oga": "audio/ogg",
	".opus": "audio/ogg", ".mp3": "audio/mpeg", ".m4a": "audio/mp4", ".wav": "audio/wav",
	".tgs": "application/x-tgsticker",
}

// mimeType is the MIME type of a file name, without parameters; unknown
// extensions are application/octet-stream, as Telegram apps send them.
func mimeType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t := mimeTypes[ext]; t != "" {
		return t
	}
	if t, _, err := mime.ParseMediaType(mime.TypeByExtension(ext)); err == nil {
		return t
	}
	return "application/octet-stream"
}

func voice(f *storedFile, duration int) *Voice {
	return &Voice{FileID: f.id, FileUniqueID: f.uniqueID, Duration: duration, MimeType: "audio/ogg", FileSize: f.fileSize()}
}

// videoMime is the MIME type of a video file by its extension.
func videoMime(f *storedFile) string {
	if path.Ext(f.path) == ".webm" {
		return "video/webm"
	}
	return "video/mp4"
}

// video describes f as a video; width and height come from the MP4 when it
// says, else 1280×720.
func video(f *storedFile, duration int) *Video {
	w, h, _, ok := mp4Info(f.data)
	if !ok {
		w, h = 1280, 720
	}
	return &Video{FileID: f.id, FileUniqueID: f.uniqueID, Width: w, Height: h, Duration: duration,
		FileName: f.name, MimeType: videoMime(f), FileSize: f.fileSize()}
}

// videoNote describes f as a round video message; its side comes from the
// MP4 when it says, else 384.
func videoNote(f *storedFile, duration int) *VideoNote {
	w, h, _, ok := mp4Info(f.data)
	side := min(w, h)
	if !ok || side == 0 {
		side = 384
	}
	return &VideoNote{FileID: f.id, FileUniqueID: f.uniqueID, Length: side, Duration: duration, FileSize: f.fileSize()}
}

// animation describes f as an animation (Telegram's silent MP4 for a GIF);
// size and duration come from the MP4 when it says, else 320×240 and 1 s.
func animation(f *storedFile) *Animation {
	w, h, sec, ok := mp4Info(f.data)
	if !ok {
		w, h, sec = 320, 240, 1
	}
	name := f.name
	if name == "" {
		name = path.Base(f.path)
	}
	return &Animation{FileID: f.id, FileUniqueID: f.uniqueID, Width: w, Height: h, Duration: sec,
		FileName: name, MimeType: videoMime(f), FileSize: f.fileSize()}
}

// audio describes f as a music file.
func audio(f *storedFile, duration int, title string) *Audio {
	name := f.name
	if name == "" {
		name = path.Base(f.path)
	}
	return &Audio{FileID: f.id, FileUniqueID: f.uniqueID, Duration: duration, Title: title,
		FileName: name, MimeType: mimeType(name), FileSize: f.fileSize()}
}

func (s *Server) getFile(_ context.Context, _ *bot, p params) (any, string, *Error) {
	id := strings.TrimSpace(p.str("file_id"))
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.files[id]
	if f == nil {
		return nil, "", badRequest(msgInvalidFileID)
	}
	if f.fileSize() > maxDownload {
		return nil, "", badRequest("file is too big")
	}
	return f.asFile(), "", nil
}

// serveFile serves /file/bot<token>/<file_path>.
func (s *Server) serveFile(w http.ResponseWriter, rest string) {
	token, filePath, _ := strings.Cut(rest, "/")
	filePath = strings.TrimPrefix(filePath, "test/")
	s.mu.Lock()
	b, f := s.bots[token], s.filePaths[filePath]
	if b != nil && f != nil {
		s.downloads++
	}
	s.mu.Unlock()
	if b == nil || f == nil {
		writeResponse(w, nil, "", errNotFound())
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(f.data)))
	w.Write(f.data)
}
