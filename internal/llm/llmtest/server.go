// Package llmtest provides fake LLM provider servers speaking the providers' real wire
// formats (OpenAI Chat Completions and audio transcriptions, Anthropic Messages, Gemini
// generateContent, with images and audio where the provider takes them), so the
// adapters and anything built on them are tested over real HTTP through the official SDKs.
//
// A Server answers each request with the next scripted Reply (Push), or the default reply
// when the queue is empty. It records every request, media decoded back to their type and
// bytes, and reports malformed ones (missing fields the provider requires, values its
// spec does not allow) to its TB, answering them with a 400 in the provider's error
// envelope.
package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
)

// TB is the part of testing.TB the servers use, so they also run outside tests.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
}

// Reply scripts one answer of a Server.
type Reply struct {
	Text       string // streamed in several chunks when the request asks for streaming
	ToolCalls  []llm.ToolCall
	Status     int           // non-zero: respond with this HTTP error in the provider's envelope
	RetryAfter string        // Retry-After header value for errors
	Message    string        // error message
	Delay      time.Duration // wait before answering; a cancelled request gets no answer
	// ChunkDelay, streaming, is the wait before each text chunk after the first; a
	// request cancelled meanwhile gets no more of the stream (a stall mid-stream).
	ChunkDelay time.Duration
	// Truncate, streaming, ends the stream after its content without the closing frames
	// (finish reason, message_stop, [DONE]): a connection cut mid-answer.
	Truncate bool
	// Raw or RawType set: Raw is served verbatim as a 200 answer instead of a reply — a
	// broken answer such as a proxy's HTML page or a stream that is not one — with
	// RawType as its Content-Type (default text/event-stream when the request streams,
	// application/json otherwise).
	Raw     string
	RawType string
	// Usage is reported in the provider's terms: InputTokens counts every input token,
	// CachedTokens included (Anthropic's input_tokens is sent as their difference).
	Usage llm.Usage
}

// Recorded is one request a Server received.
type Recorded struct {
	Method string
	Path   string
	Query  url.Values // the API key parameter (Gemini ?key=) redacted
	// Header has the API key headers' values replaced by "REDACTED"; HasAPIKey says
	// whether a key was sent at all.
	Header    http.Header
	HasAPIKey bool
	Body      json.RawMessage // the raw JSON body

	// The decoded neutral view. Roles are as the wire says them (Gemini: "user"/"model";
	// OpenAI: "tool" turns); the system instruction is in System, not in Turns.
	Model  string
	System string
	Turns  []llm.Turn
	Tools  []string // names of the declared tools
	Stream bool
}

// LastUserText returns the text of the last text part in a user-role turn, which is
// what an echoing default reply usually wants.
func (r Recorded) LastUserText() string {
	for i := len(r.Turns) - 1; i >= 0; i-- {
		if r.Turns[i].Role != llm.User {
			continue
		}
		for j := len(r.Turns[i].Parts) - 1; j >= 0; j-- {
			if p := r.Turns[i].Parts[j]; p.ToolCall == nil && p.ToolResult == nil && p.Image == nil && p.Audio == nil {
				return p.Text
			}
		}
	}
	return ""
}

// dialect is one provider's wire format.
type dialect interface {
	// parse checks the request and decodes it into rec; a non-empty problem makes the
	// request malformed. status is the HTTP status for the problem (400 when 0).
	parse(r *http.Request, body []byte, rec *Recorded) (problem string, status int)
	writeError(w http.ResponseWriter, status int, retryAfter, message string)
	// writeReply writes reply; ctx is the request's, done when the client went away.
	writeReply(ctx context.Context, w http.ResponseWriter, rec *Recorded, reply Reply, seq int)
}

// Server is a fake provider over an httptest.Server, closed when the TB's test ends.
// Its methods are safe for concurrent use.
type Server struct {
	t      TB
	srv    *httptest.Server
	suffix string // appended to the server URL by URL()
	d      dialect

	mu      sync.Mutex
	queue   []Reply
	def     func(Recorded) Reply
	reqs    []Recorded
	arrived chan struct{} // closed and replaced whenever a request is recorded

	emb embeddings     // embeddings endpoint (embed.go)
	tr  transcriptions // audio transcriptions endpoint (transcribe.go)
}

func newServer(t TB, d dialect, suffix string) *Server {
	t.Helper()
	s := &Server{t: t, d: d, suffix: suffix, arrived: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL returns the base URL to configure the SDK with.
func (s *Server) URL() string { return s.srv.URL + s.suffix }

// Push queues replies, answered in order before any default reply.
func (s *Server) Push(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, r...)
}

// SetDefault sets the reply used when the queue is empty; nil restores the default
// reply, the text "ok".
func (s *Server) SetDefault(f func(req Recorded) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = f
}

// Requests returns every request received so far, oldest first.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.reqs...)
}

// WaitRequests blocks until at least n requests have arrived and returns them, or
// returns ctx's error.
func (s *Server) WaitRequests(ctx context.Context, n int) ([]Recorded, error) {
	for {
		s.mu.Lock()
		if len(s.reqs) >= n {
			defer s.mu.Unlock()
			return append([]Recorded(nil), s.reqs...), nil
		}
		ch := s.arrived
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("llmtest: waiting for %d requests: %w", n, ctx.Err())
		}
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	if serveModels(w, r) || s.serveEmbed(w, r, body) || s.serveTranscribe(w, r, body) {
		return
	}
	rec := Recorded{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: body}
	problem, status := s.d.parse(r, body, &rec)
	redact(&rec)

	s.mu.Lock()
	s.reqs = append(s.reqs, rec)
	seq := len(s.reqs)
	close(s.arrived)
	s.arrived = make(chan struct{})
	var reply Reply
	switch {
	case problem != "":
	case len(s.queue) > 0:
		reply = s.queue[0]
		s.queue = s.queue[1:]
	case s.def != nil:
		reply = s.def(rec)
	default:
		reply = Reply{Text: "ok"}
	}
	s.mu.Unlock()

	if problem != "" {
		s.t.Errorf("llmtest: malformed request %s %s: %s\nbody: %s", r.Method, r.URL.Path, problem, body)
		if status == 0 {
			status = http.StatusBadRequest
		}
		s.d.writeError(w, status, "", problem)
		return
	}
	if !wait(r.Context(), reply.Delay) {
		return
	}
	if reply.Status != 0 {
		msg := reply.Message
		if msg == "" {
			msg = http.StatusText(reply.Status)
		}
		s.d.writeError(w, reply.Status, reply.RetryAfter, msg)
		return
	}
	if reply.Raw != "" || reply.RawType != "" {
		writeRaw(w, rec.Stream, reply)
		return
	}
	s.d.writeReply(r.Context(), w, &rec, reply, seq)
}

// writeRaw serves reply.Raw as a 200 answer (see Reply.Raw).
func writeRaw(w http.ResponseWriter, stream bool, reply Reply) {
	typ := reply.RawType
	switch {
	case typ != "":
	case stream:
		typ = "text/event-stream"
	default:
		typ = "application/json"
	}
	w.Header().Set("Content-Type", typ)
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, reply.Raw)
}

var keyHeaders = []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key"}

func redact(rec *Recorded) {
	for _, h := range keyHeaders {
		if rec.Header.Get(h) != "" {
			rec.HasAPIKey = true
			rec.Header.Set(h, "REDACTED")
		}
	}
	if rec.Query.Get("key") != "" {
		rec.HasAPIKey = true
		rec.Query.Set("key", "REDACTED")
	}
}

// writeJSON writes v as a JSON response with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// sse writes Server-Sent Events, flushing each frame.
type sse struct {
	w http.ResponseWriter
}

func startSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

// send writes one frame: an "event:" line when event is set, then v as one data line
// (v may be a string written verbatim, such as "[DONE]").
func (s sse) send(event string, v any) {
	var data []byte
	if str, ok := v.(string); ok {
		data = []byte(str)
	} else {
		data, _ = json.Marshal(v)
	}
	var b bytes.Buffer
	if event != "" {
		fmt.Fprintf(&b, "event: %s\n", event)
	}
	fmt.Fprintf(&b, "data: %s\n\n", data)
	_, _ = s.w.Write(b.Bytes())
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// chunks splits s into up to three pieces on rune boundaries, so every text of two or
// more runes streams as several fragments.
func chunks(s string) []string {
	r := []rune(s)
	if len(r) == 0 {
		return nil
	}
	size := (len(r) + 2) / 3
	var out []string
	for len(r) > 0 {
		n := min(size, len(r))
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	return out
}

// args returns a tool call's arguments as a JSON object ("{}" when empty).
func args(c llm.ToolCall) json.RawMessage {
	if len(bytes.TrimSpace(c.Arguments)) == 0 {
		return json.RawMessage("{}")
	}
	return c.Arguments
}

// textOf decodes a JSON string or an array of {type:"text",text} parts into plain text.
func textOf(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "text" {
			return "", false
		}
		b.WriteString(p.Text)
	}
	return b.String(), true
}

// pace waits reply.ChunkDelay before every text chunk but the first, so a stream takes
// time the way a real model's does. It reports false when the request was cancelled
// meanwhile: the stream ends there.
func pace(ctx context.Context, reply Reply, i int) bool {
	if i == 0 {
		return ctx.Err() == nil
	}
	return wait(ctx, reply.ChunkDelay)
}

// wait waits d (a reply's Delay) and reports false when the request was cancelled
// meanwhile: it gets no answer.
func wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// serveModels answers the providers' model lists (OpenAI and Anthropic GET /v1/models,
// Gemini GET /v1beta/models), which clients call to check a key without paying for a
// model call; they are not recorded as requests. A request without a key gets 401.
func serveModels(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet || (r.URL.Path != "/v1/models" && r.URL.Path != "/v1beta/models") {
		return false
	}
	if r.Header.Get("Authorization") == "" && r.Header.Get("x-api-key") == "" && r.Header.Get("x-goog-api-key") == "" && r.URL.Query().Get("key") == "" {
		http.Error(w, `{"error":{"message":"no API key"}}`, http.StatusUnauthorized)
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"test-model","object":"model","type":"model"}],"models":[{"name":"models/test-model"}]}`)
	return true
}
