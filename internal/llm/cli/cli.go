// Package cli runs a command-line agent (Claude Code, Codex, Gemini CLI, or any command
// that reads a prompt on stdin and writes its answer) as an llm.Model. Each call runs the
// command once, with the prompt on stdin, and reads its answer from stdout in the
// agent's output format, streamed as it comes.
//
// Agents that keep sessions of their own (Claude Code, Codex, Gemini CLI) get one session
// per conversation (llm.Request.Session: agent, chat, topic and prompt session), stored
// through Sessions so a restart resumes it. While a session is alive the command is sent
// only what it has not seen (the messages newer than the last one it was sent, and the
// turn's closing line), with the instructions again every ReminderEvery turns; a new
// session, one that expired (IdleTimeout) or one that failed to resume is sent the whole
// history. A call running past Timeout is killed.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

// Format is how a command-line agent writes its answer on stdout.
type Format string

// Output formats.
const (
	// Claude is Claude Code's stream-json (claude -p --output-format stream-json
	// --verbose): a system init line with the session id, assistant messages, a result.
	Claude Format = "claude"
	// Codex is codex exec --json: thread.started with the thread id, item.completed
	// agent messages, turn.completed with the usage.
	Codex Format = "codex"
	// Gemini is Gemini CLI's stream-json (gemini --output-format stream-json): an init
	// line with the session id, assistant message deltas, a result with the stats.
	Gemini Format = "gemini"
	// Text is any command reading the prompt on stdin and writing the answer as text. It
	// keeps no session: every call is sent the whole history.
	Text Format = "text"
)

// ParseFormat returns the format named s.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Claude, Codex, Gemini, Text:
		return f, nil
	}
	return "", fmt.Errorf("%q is not claude, codex, gemini or text", s)
}

// DefaultResume is the arguments that resume a session in f's agent, {session} standing
// for the session id; none for Text.
func DefaultResume(f Format) []string {
	switch f {
	case Claude, Gemini:
		return []string{"--resume", "{session}"}
	case Codex:
		return []string{"resume", "{session}"}
	}
	return nil
}

// Sessions stores the agent's sessions (mynah.ModelSessions).
type Sessions interface {
	ModelSession(ctx context.Context, key string) (mynah.ModelSession, error)
	SaveModelSession(ctx context.Context, s mynah.ModelSession) error
}

// Config configures a Model.
type Config struct {
	Name    string   // the provider's name, in errors
	Command []string // the command and its arguments; the prompt goes to stdin
	Format  Format
	// Resume is appended to Command to resume a session, "{session}" replaced by its id;
	// nil: DefaultResume(Format).
	Resume []string
	Dir    string   // working directory; "": the process's
	Env    []string // added to the process's environment
	// Timeout bounds one call: past it the command is killed; default 5 minutes.
	// IdleTimeout ends a session unused that long: the next call starts a new one with
	// the whole history; default 1 hour.
	Timeout     time.Duration
	IdleTimeout time.Duration
	// ReminderEvery sends the instructions again every that many turns of a session
	// (a session's agent may lose sight of them); 0: only when a session starts.
	ReminderEvery int
	// Sessions keeps sessions across calls and restarts; nil keeps none: every call
	// starts a new session with the whole history.
	Sessions Sessions
	Now      func() time.Time
}

// Model is a command-line agent as an llm.Model. It is safe for concurrent use; calls of
// one conversation are expected one at a time (a lane runs one turn per chat).
type Model struct {
	cfg Config
	mu  sync.Mutex // guards nothing but the order of session saves of concurrent calls
}

// New returns a Model for cfg; it does no I/O.
func New(cfg Config) (*Model, error) {
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return nil, errors.New("cli: Config.Command is required")
	}
	if _, err := ParseFormat(string(cfg.Format)); err != nil {
		return nil, fmt.Errorf("cli: Config.Format: %w", err)
	}
	if cfg.Resume == nil {
		cfg.Resume = DefaultResume(cfg.Format)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Minute
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Name == "" {
		cfg.Name = "cli"
	}
	return &Model{cfg: cfg}, nil
}

// Check reports whether the command can be found: the health check before the first call.
func (m *Model) Check() error {
	if _, err := exec.LookPath(m.cfg.Command[0]); err != nil {
		return fmt.Errorf("%s: %w", m.cfg.Name, err)
	}
	return nil
}

// Generate runs the command once for req and returns its answer.
func (m *Model) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	return m.Stream(ctx, req, nil)
}

// Stream runs the command once for req, calling onText (when not nil) with each piece of
// the answer as the command writes it, and returns the whole answer. A session that fails
// to resume is started again with the whole history, once. Failures are *llm.Error values
// (retryable: the command may succeed when run again).
func (m *Model) Stream(ctx context.Context, req llm.Request, onText func(string)) (*llm.Response, error) {
	sess := m.session(ctx, req.Session)
	alive := sess.ID != "" && len(m.cfg.Resume) > 0 && m.cfg.Now().Sub(sess.Used) < m.cfg.IdleTimeout
	resp, id, err := m.run(ctx, req, sess, alive, onText)
	if err != nil && alive && ctx.Err() == nil {
		// The session may be gone (the agent's store was cleared, it expired there): start
		// a new one, sent everything.
		alive = false
		resp, id, err = m.run(ctx, req, sess, false, onText)
	}
	if err != nil {
		if sess.ID != "" {
			sess.ID = "" // the next call starts afresh, with the whole history
			m.save(ctx, sess)
		}
		return nil, err
	}
	now := m.cfg.Now()
	if !alive {
		sess = mynah.ModelSession{Key: req.Session, Started: now}
	}
	sess.ID = id
	if len(m.cfg.Resume) == 0 {
		sess.ID = "" // a text command keeps no session
	}
	sess.Seen = max(sess.Seen, newest(req.Turns))
	sess.Turns++
	sess.Used = now
	m.save(ctx, sess)
	return resp, nil
}

// session returns the stored session of key, or a new one.
func (m *Model) session(ctx context.Context, key string) mynah.ModelSession {
	if key == "" || m.cfg.Sessions == nil {
		return mynah.ModelSession{Key: key}
	}
	s, err := m.cfg.Sessions.ModelSession(ctx, key)
	if err != nil {
		return mynah.ModelSession{Key: key} // unknown (or unreadable): a new session
	}
	return s
}

func (m *Model) save(ctx context.Context, s mynah.ModelSession) {
	if s.Key == "" || m.cfg.Sessions == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// A session that cannot be saved is started again next time: slower, never wrong.
	_ = m.cfg.Sessions.SaveModelSession(context.WithoutCancel(ctx), s)
}

// run runs the command once: resuming sess with only what it has not seen when alive,
// else with the whole of req. It returns the answer and the agent's session id.
func (m *Model) run(ctx context.Context, req llm.Request, sess mynah.ModelSession, alive bool, onText func(string)) (*llm.Response, string, error) {
	args := append([]string(nil), m.cfg.Command[1:]...)
	var prompt string
	if alive {
		for _, a := range m.cfg.Resume {
			args = append(args, strings.ReplaceAll(a, "{session}", sess.ID))
		}
		remind := m.cfg.ReminderEvery > 0 && sess.Turns > 0 && sess.Turns%m.cfg.ReminderEvery == 0
		prompt = Delta(req, sess.Seen, remind)
	} else {
		prompt = Full(req)
	}
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, m.cfg.Command[0], args...)
	cmd.Dir = m.cfg.Dir
	cmd.Env = append(os.Environ(), m.cfg.Env...)
	cmd.Stdin = strings.NewReader(prompt)
	cmd.WaitDelay = 2 * time.Second // a child keeping the pipes open does not hold the call
	var stderr tailBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", m.fail("starting", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, "", m.fail("starting", err)
	}
	out := parse(m.cfg.Format, stdout, onText)
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return nil, "", &llm.Error{Provider: m.cfg.Name, Message: fmt.Sprintf("killed after %s without an answer", m.cfg.Timeout), Err: ctx.Err()}
	case werr != nil:
		return nil, "", m.fail(fmt.Sprintf("exited: %v: %s", werr, stderr.String()), werr)
	case out.err != nil:
		return nil, "", m.fail(out.err.Error(), out.err)
	case strings.TrimSpace(out.text) == "":
		return nil, "", m.fail("no answer on stdout: "+stderr.String(), llm.ErrMalformed)
	}
	resp := &llm.Response{Text: strings.TrimSpace(out.text), Usage: out.usage, StopReason: "stop", Model: out.model}
	return resp, out.session, nil
}

func (m *Model) fail(msg string, err error) error {
	return &llm.Error{Provider: m.cfg.Name, Message: strings.TrimSpace(msg), Err: err}
}

// tailBuffer keeps the last 2 KB written to it: the end of a failing command's stderr.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2048 {
		t.b = t.b[len(t.b)-2048:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
