package media

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// describer is a fake vision model: it answers "seen: <prompt>" and records each request.
type describer struct {
	mu    sync.Mutex
	reqs  []llm.Request
	fail  func(n int) error // the n-th call's error (1-based); nil: none
	delay time.Duration
	clock *clock // call times on this clock, when set
	at    []time.Time
}

func (d *describer) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	d.mu.Lock()
	d.reqs = append(d.reqs, req)
	n := len(d.reqs)
	if d.clock != nil {
		d.at = append(d.at, d.clock.Now())
	}
	fail := d.fail
	d.mu.Unlock()
	if d.delay > 0 {
		select {
		case <-time.After(d.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if fail != nil {
		if err := fail(n); err != nil {
			return nil, err
		}
	}
	return &llm.Response{Text: "seen: " + req.Turns[0].Parts[0].Text}, nil
}

func (d *describer) Stream(ctx context.Context, req llm.Request, onText func(string)) (*llm.Response, error) {
	return d.Generate(ctx, req)
}

func (d *describer) calls() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.reqs)
}

func (d *describer) requests() []llm.Request {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]llm.Request(nil), d.reqs...)
}

// transcriber is a fake speech-to-text: it answers words, or err.
type transcriber struct {
	mu    sync.Mutex
	words string
	err   error
	got   []llm.Blob
}

func (t *transcriber) Transcribe(_ context.Context, audio llm.Blob, _ string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.got = append(t.got, audio)
	return t.words, t.err
}

// files is a fake Telegram: files by file id, sticker sets by name.
type files struct {
	mu        sync.Mutex
	data      map[string][]byte
	errs      map[string]error
	sets      map[string][]mynah.Media
	downloads int
	setReads  int
}

func newFiles() *files {
	return &files{data: map[string][]byte{}, errs: map[string]error{}, sets: map[string][]mynah.Media{}}
}

func (f *files) Download(_ context.Context, fileID string, max int64) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.downloads++
	if err := f.errs[fileID]; err != nil {
		return nil, err
	}
	b, ok := f.data[fileID]
	if !ok {
		return nil, fmt.Errorf("telegram getFile: Bad Request: wrong file_id")
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("file of %d bytes: %w", len(b), mynah.ErrFileTooBig)
	}
	return bytes.Clone(b), nil
}

func (f *files) StickerSet(_ context.Context, name string) ([]mynah.Media, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.setReads++
	s, ok := f.sets[name]
	if !ok {
		return nil, fmt.Errorf("telegram getStickerSet: Bad Request: STICKERSET_INVALID")
	}
	return append([]mynah.Media(nil), s...), nil
}

// add serves data as the file uid and returns media of kind for it.
func (f *files) add(kind mynah.MediaKind, uid string, data []byte) mynah.Media {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.data["file-"+uid] = data
	return mynah.Media{Kind: kind, FileID: "file-" + uid, FileUniqueID: uid}
}

func (f *files) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.downloads
}

// clock is a fake clock that starts now (the store stamps queued work with the real
// clock) and moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

// newClock starts on a whole minute an hour ahead of the wall clock: the store stamps the
// queue with the wall clock, and a queued message must be due on the engine's clock however
// long posting a thousand of them takes on a loaded machine.
func newClock() *clock { return &clock{t: time.Now().Truncate(time.Minute).Add(time.Hour)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// logs collects log lines.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logs) count(s string) int { return strings.Count(l.String(), s) }

// env is an engine over a real store in a temporary directory, with fakes for the rest.
type env struct {
	t     *testing.T
	path  string
	store *sqlite.DB
	clock *clock
	logs  *logs
	files *files
	model *describer
	e     *Engine
	// ffmpeg is the ffmpeg the engine uses; "" (the default) runs the tests as on a
	// machine without it.
	ffmpeg string
}

const agentName = "ada"

var chat = mynah.Chat{ID: -1001, Type: mynah.ChatSupergroup, Title: "Birds"}

func newEnv(t *testing.T) *env {
	t.Helper()
	v := &env{t: t, path: filepath.Join(t.TempDir(), "mynah.db"), clock: newClock(), logs: &logs{}, files: newFiles()}
	v.model = &describer{clock: v.clock}
	v.open()
	return v
}

// newEnvFFmpeg is newEnv with the ffmpeg on PATH; without one the test is skipped (CI
// installs it).
func newEnvFFmpeg(t *testing.T) *env {
	t.Helper()
	path, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg is not on PATH: the frames of videos and video stickers are not tested here")
	}
	v := &env{t: t, path: filepath.Join(t.TempDir(), "mynah.db"), clock: newClock(), logs: &logs{}, files: newFiles(), ffmpeg: path}
	v.model = &describer{clock: v.clock}
	v.open()
	return v
}

// open opens the store and a new engine on it, as a restarted process does.
func (v *env) open() {
	v.t.Helper()
	db, err := sqlite.Open(v.t.Context(), v.path)
	if err != nil {
		v.t.Fatal(err)
	}
	v.t.Cleanup(func() { db.Close() })
	v.store = db
	v.e = New(db, slog.New(slog.NewTextHandler(v.logs, nil)), v.clock.Now)
	v.e.useFFmpeg(v.ffmpeg)
}

// restart closes the store and opens it again, with a new engine.
func (v *env) restart() {
	v.t.Helper()
	if err := v.store.Close(); err != nil {
		v.t.Fatal(err)
	}
	v.open()
}

// agent adds the default agent, changed by opts.
func (v *env) agent(opts ...func(*Agent)) {
	a := Agent{Name: agentName, Describer: v.model, DescriberModel: "eye-1", Files: v.files}
	for _, o := range opts {
		o(&a)
	}
	v.e.Add(a)
}

// post stores an inbound message with media in chat as the agent's.
func (v *env) post(c mynah.Chat, id int, media ...mynah.Media) mynah.Message {
	v.t.Helper()
	m := mynah.Message{Chat: c, ID: mynah.MessageID(id), Sender: mynah.User{ID: 42, FirstName: "Alice"},
		Time: time.Unix(1_700_000_000+int64(id), 0), Media: media}
	ok, err := v.store.Accept(v.t.Context(), agentName, int64(c.ID)*-1_000_000+int64(id), mynah.Intake{Chat: c, Message: &m})
	if err != nil || !ok {
		v.t.Fatalf("Accept(%d): %v, %v", id, ok, err)
	}
	return m
}

// message reads a stored message back.
func (v *env) message(c mynah.Chat, id int) mynah.Message {
	v.t.Helper()
	m, err := v.store.Message(v.t.Context(), agentName, c.ID, mynah.MessageID(id))
	if err != nil {
		v.t.Fatal(err)
	}
	return m
}

// drain works the queue until a pass reads nothing due, and returns the passes made.
func (v *env) drain() int {
	v.t.Helper()
	for i := 1; i <= 100; i++ {
		if v.e.work(v.t.Context()) == 0 {
			return i
		}
	}
	v.t.Fatal("the queue never drains")
	return 0
}

// queued is how many messages wait in the queue, due or not.
func (v *env) queued() int {
	v.t.Helper()
	ws, err := v.store.PendingMedia(v.t.Context(), v.clock.Now().Add(24*time.Hour), 10_000)
	if err != nil {
		v.t.Fatal(err)
	}
	return len(ws)
}

func (v *env) note(uid string) mynah.MediaNote {
	v.t.Helper()
	n, err := v.store.MediaNote(v.t.Context(), uid)
	if err != nil {
		v.t.Fatalf("MediaNote(%s): %v", uid, err)
	}
	return n
}
