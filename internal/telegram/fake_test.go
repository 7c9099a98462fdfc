package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// testToken has the shape of a real token; tests check it never leaks.
const testToken = "123456789:AAF0-mynah-test-token_forunit-tests"

// reply is a scripted Bot API answer.
type reply struct {
	status int
	body   string
}

// apiError returns the reply Telegram gives for an error.
func errReply(code int, desc string, retryAfter int) reply {
	params := ""
	if retryAfter > 0 {
		params = fmt.Sprintf(`,"parameters":{"retry_after":%d}`, retryAfter)
	}
	return reply{code, fmt.Sprintf(`{"ok":false,"error_code":%d,"description":%q%s}`, code, desc, params)}
}

// call is one request the fake received.
type call struct {
	Method string
	Params map[string]any
}

// fakeAPI is a minimal Bot API server: scripted answers per method, a getUpdates queue
// with Telegram's offset semantics, and a record of every call.
type fakeAPI struct {
	srv *httptest.Server

	mu      sync.Mutex
	calls   []call
	script  map[string][]reply
	updates []json.RawMessage // unconfirmed, ascending update_id
	changed chan struct{}     // closed when updates are added
	polled  chan int64        // receives the offset of every long poll that found nothing
}

func newFakeAPI(t *testing.T) *fakeAPI {
	t.Helper()
	f := &fakeAPI{script: map[string][]reply{}, changed: make(chan struct{}), polled: make(chan int64, 100)}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// bot returns a Bot talking to f whose logs and waits go to the returned recorder; its
// waits return at once.
func (f *fakeAPI) bot(t *testing.T) (*Bot, *recorder) {
	t.Helper()
	rec := &recorder{}
	b, err := New(Config{
		Token:      testToken,
		APIURL:     f.srv.URL,
		HTTPClient: f.srv.Client(),
		Logger:     newTestLogger(rec),
	})
	if err != nil {
		t.Fatal(err)
	}
	b.wait = rec.wait
	return b, rec
}

// on queues answers for method, used before the default one.
func (f *fakeAPI) on(method string, rs ...reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script[method] = append(f.script[method], rs...)
}

// push adds updates to the getUpdates queue.
func (f *fakeAPI) push(raw ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range raw {
		f.updates = append(f.updates, json.RawMessage(r))
	}
	close(f.changed)
	f.changed = make(chan struct{})
}

// recorded returns the calls of method (all calls when method is empty).
func (f *fakeAPI) recorded(method string) []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []call
	for _, c := range f.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	method, ok := strings.CutPrefix(r.URL.Path, "/bot"+testToken+"/")
	if !ok {
		writeReply(w, errReply(http.StatusNotFound, "Not Found", 0))
		return
	}
	params := map[string]any{}
	if err := json.NewDecoder(r.Body).Decode(&params); err != nil {
		writeReply(w, errReply(http.StatusBadRequest, "Bad Request: cannot decode JSON: "+err.Error(), 0))
		return
	}
	f.mu.Lock()
	f.calls = append(f.calls, call{method, params})
	if q := f.script[method]; len(q) > 0 {
		f.script[method] = q[1:]
		f.mu.Unlock()
		writeReply(w, q[0])
		return
	}
	f.mu.Unlock()
	switch method {
	case "getMe":
		writeReply(w, reply{200, `{"ok":true,"result":{"id":123456789,"is_bot":true,"first_name":"Mynah","username":"mynah_bot"}}`})
	case "sendMessage":
		writeReply(w, reply{200, sentMessage(params)})
	case "getUpdates":
		f.getUpdates(w, r, params)
	default:
		writeReply(w, reply{200, `{"ok":true,"result":true}`})
	}
}

// getUpdates forgets the updates before offset and answers the rest, waiting for some
// when there are none and the request asks for a long poll.
func (f *fakeAPI) getUpdates(w http.ResponseWriter, r *http.Request, params map[string]any) {
	offset, _ := params["offset"].(float64)
	timeout, _ := params["timeout"].(float64)
	for {
		f.mu.Lock()
		var keep []json.RawMessage
		for _, u := range f.updates {
			var id struct {
				UpdateID int64 `json:"update_id"`
			}
			_ = json.Unmarshal(u, &id)
			if id.UpdateID >= int64(offset) || id.UpdateID == 0 {
				keep = append(keep, u)
			}
		}
		f.updates = keep
		changed := f.changed
		f.mu.Unlock()
		if len(keep) > 0 || timeout == 0 {
			body, _ := json.Marshal(map[string]any{"ok": true, "result": append([]json.RawMessage{}, keep...)})
			writeReply(w, reply{200, string(body)})
			return
		}
		f.polled <- int64(offset)
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

// sentMessage is the Message Telegram returns for a sendMessage with params.
func sentMessage(params map[string]any) string {
	chat, _ := params["chat_id"].(float64)
	m := map[string]any{
		"message_id": 900,
		"from":       map[string]any{"id": 123456789, "is_bot": true, "first_name": "Mynah", "username": "mynah_bot"},
		"chat":       map[string]any{"id": chat, "type": "private", "first_name": "Anna"},
		"date":       1763690000,
		"text":       params["text"],
	}
	if th, ok := params["message_thread_id"]; ok {
		m["message_thread_id"], m["is_topic_message"] = th, true
		m["chat"] = map[string]any{"id": chat, "type": "supergroup", "title": "Lab", "is_forum": true}
	}
	if rp, ok := params["reply_parameters"].(map[string]any); ok {
		m["reply_to_message"] = map[string]any{
			"message_id": rp["message_id"], "date": 1763680000, "text": "question",
			"chat": m["chat"], "from": map[string]any{"id": 5551234, "is_bot": false, "first_name": "Anna"},
		}
	}
	body, _ := json.Marshal(map[string]any{"ok": true, "result": m})
	return string(body)
}

func writeReply(w http.ResponseWriter, r reply) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.status)
	_, _ = w.Write([]byte(r.body))
}

// newTestLogger logs everything, debug included, as text to w.
func newTestLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// recorder collects a Bot's log lines and the waits it asked for.
type recorder struct {
	mu    sync.Mutex
	log   bytes.Buffer
	waits []time.Duration
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.Write(p)
}

func (r *recorder) wait(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, d)
	return ctx.Err()
}

func (r *recorder) Logs() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.String()
}

func (r *recorder) Waits() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.waits...)
}
