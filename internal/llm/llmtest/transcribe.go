package llmtest

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
)

// TranscribeRequest is one audio transcription call (POST /v1/audio/transcriptions) a
// fake OpenAI server received.
type TranscribeRequest struct {
	Model     string
	Language  string // the language hint, "" when none was sent
	Filename  string // the uploaded file's name
	MIME      string // the uploaded file's Content-Type
	Audio     []byte
	HasAPIKey bool
}

// transcriptions is a Server's transcription endpoint state.
type transcriptions struct {
	mu    sync.Mutex
	reqs  []TranscribeRequest
	queue []Reply
	texts map[[32]byte]string // transcripts by the SHA-256 of their audio
}

// Transcript is the fake's transcript of audio when none is scripted: a sentence naming
// its size and a digest of its bytes, so each clip has its own.
func Transcript(audio []byte) string {
	sum := sha256.Sum256(audio)
	return fmt.Sprintf("transcript of %d bytes %x", len(audio), sum[:4])
}

// SetTranscript makes the fake's transcriptions of audio answer text, unless a reply
// is queued (PushTranscripts).
func (s *Server) SetTranscript(audio []byte, text string) {
	s.tr.mu.Lock()
	defer s.tr.mu.Unlock()
	if s.tr.texts == nil {
		s.tr.texts = map[[32]byte]string{}
	}
	s.tr.texts[sha256.Sum256(audio)] = text
}

// PushTranscripts queues answers to the next transcription calls, before any scripted
// or default transcript: a Reply's Text is the transcript; Status (with RetryAfter and
// Message) makes it an error, Raw a broken answer, and Delay waits before answering.
func (s *Server) PushTranscripts(r ...Reply) {
	s.tr.mu.Lock()
	defer s.tr.mu.Unlock()
	s.tr.queue = append(s.tr.queue, r...)
}

// TranscribeRequests returns every transcription call received so far, oldest first,
// kept apart from Requests.
func (s *Server) TranscribeRequests() []TranscribeRequest {
	s.tr.mu.Lock()
	defer s.tr.mu.Unlock()
	return append([]TranscribeRequest(nil), s.tr.reqs...)
}

// transcribeFields are the form fields of CreateTranscriptionRequest; the API takes no
// others.
var transcribeFields = []string{"file", "model", "language", "languages", "keywords", "prompt", "response_format",
	"temperature", "include", "timestamp_granularities", "stream", "chunking_strategy", "known_speaker_names",
	"known_speaker_references"}

// transcribeFormats are the file formats the API recognises, by the uploaded file's
// extension.
var transcribeFormats = []string{"flac", "mp3", "mp4", "mpeg", "mpga", "m4a", "ogg", "wav", "webm"}

// serveTranscribe answers r when it is a transcription call to a fake OpenAI server and
// reports whether it was one. A malformed upload (not multipart, no file or model) is
// reported to the TB and answered 400; a file whose name has no known extension gets
// the API's 400 without being malformed.
func (s *Server) serveTranscribe(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if _, ok := s.d.(openaiDialect); !ok || r.URL.Path != "/v1/audio/transcriptions" {
		return false
	}
	req := TranscribeRequest{HasAPIKey: strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ")}
	problem, status := parseTranscribe(r, body, &req)
	if problem == "" && !req.HasAPIKey {
		problem, status = "missing Authorization: Bearer header", http.StatusUnauthorized
	}
	s.tr.mu.Lock()
	s.tr.reqs = append(s.tr.reqs, req)
	var reply Reply
	switch text, ok := s.tr.texts[sha256.Sum256(req.Audio)]; {
	case problem != "":
	case len(s.tr.queue) > 0:
		reply = s.tr.queue[0]
		s.tr.queue = s.tr.queue[1:]
	case ok:
		reply.Text = text
	default:
		reply.Text = Transcript(req.Audio)
	}
	s.tr.mu.Unlock()
	if problem != "" {
		s.t.Errorf("llmtest: malformed transcription request: %s", problem)
		s.d.writeError(w, cmp.Or(status, http.StatusBadRequest), "", problem)
		return true
	}
	if ext := strings.TrimPrefix(path.Ext(req.Filename), "."); !slices.Contains(transcribeFormats, strings.ToLower(ext)) {
		s.d.writeError(w, http.StatusBadRequest, "", fmt.Sprintf("Invalid file format. Supported formats: %q", transcribeFormats))
		return true
	}
	if !wait(r.Context(), reply.Delay) {
		return true
	}
	if reply.Status != 0 {
		s.d.writeError(w, reply.Status, reply.RetryAfter, cmpOrString(reply.Message, http.StatusText(reply.Status)))
		return true
	}
	if reply.Raw != "" || reply.RawType != "" {
		writeRaw(w, false, reply)
		return true
	}
	// whisper-1 reports usage as the audio's duration; the fake assumes 4 KB a second.
	writeJSON(w, http.StatusOK, map[string]any{"text": reply.Text,
		"usage": map[string]any{"type": "duration", "seconds": (len(req.Audio) + 3999) / 4000}})
	return true
}

// parseTranscribe checks a multipart transcription request and decodes it into req.
func parseTranscribe(r *http.Request, body []byte, req *TranscribeRequest) (problem string, status int) {
	if r.Method != http.MethodPost {
		return fmt.Sprintf("unknown endpoint %s %s", r.Method, r.URL.Path), http.StatusNotFound
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return "the body must be multipart/form-data", 0
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	files := 0
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "the body is not valid multipart/form-data: " + err.Error(), 0
		}
		b, err := io.ReadAll(p)
		if err != nil {
			return "the body is not valid multipart/form-data: " + err.Error(), 0
		}
		name := strings.TrimSuffix(p.FormName(), "[]")
		switch {
		case !slices.Contains(transcribeFields, name):
			return fmt.Sprintf("Unrecognized request argument supplied: %s", name), 0
		case name == "file":
			files++
			req.Filename, req.MIME, req.Audio = p.FileName(), p.Header.Get("Content-Type"), b
		case name == "model":
			req.Model = string(b)
		case name == "language":
			req.Language = string(b)
		case name == "response_format" && string(b) != "json":
			return fmt.Sprintf("response_format %q is not supported by the fake (want json)", b), 0
		case name == "stream" && string(b) == "true":
			return "streamed transcriptions are not supported by the fake", 0
		}
	}
	switch {
	case files != 1 || req.Filename == "":
		return "file: want exactly one uploaded file with a filename", 0
	case len(req.Audio) == 0:
		return "file: the uploaded file is empty", 0
	case req.Model == "":
		return "missing required parameter: 'model'", 0
	}
	return "", 0
}
