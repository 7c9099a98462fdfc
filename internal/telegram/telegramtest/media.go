package telegramtest

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// FileKind is the kind of a stored file; it decides its file_path folder.
type FileKind string

// File kinds.
const (
	KindPhoto    FileKind = "photo"
	KindSticker  FileKind = "sticker"
	KindDocument FileKind = "document"
	KindVoice    FileKind = "voice"
)

// maxDownload is the cloud Bot API's getFile limit.
const maxDownload = 20 << 20

type storedFile struct {
	id, uniqueID string
	kind         FileKind
	path, name   string
	data         []byte
}

func (f *storedFile) asFile() File {
	return File{FileID: f.id, FileUniqueID: f.uniqueID, FileSize: len(f.data), FilePath: f.path}
}

// AddFile stores content as a file of kind that bots can fetch with getFile
// and download, and that injected media and sends by file_id can use.
func (s *Server) AddFile(content []byte, kind FileKind) (fileID, uniqueID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.addFileLocked(content, kind, "")
	return f.id, f.uniqueID
}

func (s *Server) addFileLocked(content []byte, kind FileKind, name string) *storedFile {
	s.fileSeq++
	n := s.fileSeq
	ext := path.Ext(name)
	if ext == "" {
		ext = map[FileKind]string{KindPhoto: ".jpg", KindSticker: ".webp", KindVoice: ".oga"}[kind]
	}
	f := &storedFile{
		id:       fmt.Sprintf("%s-file-%d", kind, n),
		uniqueID: fmt.Sprintf("uniq%d", n),
		kind:     kind,
		path:     fmt.Sprintf("%ss/file_%d%s", kind, n, ext),
		name:     name,
		data:     append([]byte(nil), content...),
	}
	s.files[f.id] = f
	s.filePaths[f.path] = f
	return f
}

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
		m.Photo = photoSizes(f)
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

func photoSizes(f *storedFile) []PhotoSize {
	return []PhotoSize{{FileID: f.id, FileUniqueID: f.uniqueID, Width: 1280, Height: 960, FileSize: len(f.data)}}
}

func sticker(f *storedFile, emoji, setName string) *Sticker {
	ext := path.Ext(f.path)
	return &Sticker{
		FileID: f.id, FileUniqueID: f.uniqueID, Type: "regular", Width: 512, Height: 512,
		IsAnimated: ext == ".tgs", IsVideo: ext == ".webm", Emoji: emoji, SetName: setName, FileSize: len(f.data),
	}
}

func document(f *storedFile) *Document {
	name := f.name
	if name == "" {
		name = path.Base(f.path)
	}
	return &Document{
		FileID: f.id, FileUniqueID: f.uniqueID, FileName: name,
		MimeType: mime.TypeByExtension(path.Ext(name)), FileSize: len(f.data),
	}
}

func voice(f *storedFile, duration int) *Voice {
	return &Voice{FileID: f.id, FileUniqueID: f.uniqueID, Duration: duration, MimeType: "audio/ogg", FileSize: len(f.data)}
}

func (s *Server) getFile(_ context.Context, _ *bot, p params) (any, string, *Error) {
	id := strings.TrimSpace(p.str("file_id"))
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.files[id]
	if f == nil {
		return nil, "", badRequest(msgInvalidFileID)
	}
	if len(f.data) > maxDownload {
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
	s.mu.Unlock()
	if b == nil || f == nil {
		writeResponse(w, nil, "", errNotFound())
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(f.data)))
	w.Write(f.data)
}
