package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/cli"
)

// TestMain lets the test binary play the command-line agents: run with FAKE_CLI set to an
// output format, it is a fake agent speaking that format (fakeAgent).
func TestMain(m *testing.M) {
	if f := os.Getenv("FAKE_CLI"); f != "" {
		os.Exit(fakeAgent(cli.Format(f)))
	}
	os.Exit(m.Run())
}

// call is what the fake agent was run with.
type call struct {
	Args  []string
	Stdin string
}

// fakeAgent records its arguments and stdin in FAKE_CLI_DIR, then answers "answer N"
// (N counting its calls) in format f, with a session id: the resumed one, or a new one.
// FAKE_CLI_SLEEP makes it hang first; FAKE_CLI_LOST makes every resume fail, as an agent
// whose session store was cleared does.
func fakeAgent(f cli.Format) int {
	stdin, _ := io.ReadAll(os.Stdin)
	dir := os.Getenv("FAKE_CLI_DIR")
	entries, _ := os.ReadDir(dir)
	n := len(entries) + 1
	data, _ := json.Marshal(call{Args: os.Args[1:], Stdin: string(stdin)})
	os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d.json", n)), data, 0o644)
	if d, err := time.ParseDuration(os.Getenv("FAKE_CLI_SLEEP")); err == nil {
		time.Sleep(d)
	}
	session := fmt.Sprintf("sess-%d", n)
	for i, a := range os.Args {
		if (a == "--resume" || a == "resume") && i+1 < len(os.Args) {
			if os.Getenv("FAKE_CLI_LOST") != "" {
				fmt.Fprintln(os.Stderr, "No conversation found with session ID:", os.Args[i+1])
				return 1
			}
			session = os.Args[i+1]
		}
	}
	answer := fmt.Sprintf("answer %d", n)
	out := os.Stdout
	switch f {
	case cli.Claude:
		fmt.Fprintf(out, `{"type":"system","subtype":"init","session_id":%q,"model":"claude-test","tools":["Bash"]}`+"\n", session)
		fmt.Fprintf(out, `{"type":"assistant","message":{"content":[{"type":"text","text":"thinking…"}]},"session_id":%q}`+"\n", session)
		fmt.Fprintf(out, `{"type":"assistant","message":{"content":[{"type":"text","text":%q}]},"session_id":%q}`+"\n", answer, session)
		fmt.Fprintf(out, `{"type":"result","subtype":"success","is_error":false,"result":%q,"session_id":%q,"usage":{"input_tokens":12,"cache_read_input_tokens":100,"output_tokens":5}}`+"\n", answer, session)
	case cli.Codex:
		fmt.Fprintf(out, `{"type":"thread.started","thread_id":%q}`+"\n", session)
		fmt.Fprintln(out, `{"type":"turn.started"}`)
		fmt.Fprintln(out, `{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Thinking**"}}`)
		fmt.Fprintf(out, `{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":%q}}`+"\n", answer)
		fmt.Fprintln(out, `{"type":"turn.completed","usage":{"input_tokens":112,"cached_input_tokens":100,"output_tokens":5}}`)
	case cli.Gemini:
		fmt.Fprintf(out, `{"type":"init","timestamp":"2025-10-10T12:00:00Z","session_id":%q,"model":"gemini-test"}`+"\n", session)
		fmt.Fprintln(out, `{"type":"message","role":"user","content":"(the prompt)"}`)
		for _, piece := range strings.SplitAfter(answer, " ") {
			fmt.Fprintf(out, `{"type":"message","role":"assistant","content":%q,"delta":true}`+"\n", piece)
		}
		fmt.Fprintln(out, `{"type":"result","status":"success","stats":{"total_tokens":117,"input_tokens":112,"output_tokens":5}}`)
	default:
		fmt.Fprint(out, answer)
	}
	return 0
}

// sessions is an in-memory mynah.ModelSessions.
type sessions struct {
	mu sync.Mutex
	m  map[string]mynah.ModelSession
}

func (s *sessions) ModelSession(_ context.Context, key string) (mynah.ModelSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms, ok := s.m[key]
	if !ok {
		return ms, mynah.ErrNotFound
	}
	return ms, nil
}

func (s *sessions) SaveModelSession(_ context.Context, ms mynah.ModelSession) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]mynah.ModelSession{}
	}
	s.m[ms.Key] = ms
	return nil
}

// rig is a fake agent of one format, its calls and sessions, and a clock.
type rig struct {
	t        *testing.T
	dir      string
	cfg      cli.Config
	sessions *sessions
	now      time.Time
}

func newRig(t *testing.T, f cli.Format, env ...string) *rig {
	r := &rig{t: t, dir: t.TempDir(), sessions: &sessions{}, now: time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)}
	r.cfg = cli.Config{Name: "fake", Command: []string{os.Args[0], "-p"}, Format: f, Sessions: r.sessions,
		Env: append([]string{"FAKE_CLI=" + string(f), "FAKE_CLI_DIR=" + r.dir}, env...), Now: func() time.Time { return r.now }}
	return r
}

func (r *rig) model() *cli.Model {
	m, err := cli.New(r.cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

// calls returns what the fake agent was run with, in order.
func (r *rig) calls() []call {
	entries, _ := os.ReadDir(r.dir)
	var out []call
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(r.dir, e.Name()))
		var c call
		json.Unmarshal(data, &c)
		out = append(out, c)
	}
	return out
}

// request is a crew member's request after messages 1..n of chat -100: alice's on odd
// ids, the agent's own on even ids, and the closing line.
func request(n int) llm.Request {
	req := llm.Request{System: "You are Coder.", Session: "Coder/-100/0/0"}
	for i := 1; i <= n; i++ {
		if i%2 == 0 {
			req.Turns = append(req.Turns, llm.Text(llm.Assistant, fmt.Sprintf("my answer %d", i)))
			continue
		}
		req.Turns = append(req.Turns, llm.Turn{Role: llm.User, Parts: []llm.Part{
			{Text: fmt.Sprintf(`[meta] message_id=%d name="Alice"`, i)}, {Text: fmt.Sprintf("question %d", i)}}})
	}
	last := &req.Turns[len(req.Turns)-1]
	last.Parts = append(last.Parts, llm.Part{Text: fmt.Sprintf("[system] Consider responding to message with message_id %d.", n)})
	return req
}

// TestFormats: each format's answer, session id and usage are read, and its answer is
// streamed as the agent writes it.
func TestFormats(t *testing.T) {
	for _, c := range []struct {
		format   cli.Format
		usage    llm.Usage
		streamed []string
	}{
		{cli.Claude, llm.Usage{InputTokens: 112, OutputTokens: 5, CachedTokens: 100}, []string{"thinking…", "answer 1"}},
		{cli.Codex, llm.Usage{InputTokens: 112, OutputTokens: 5, CachedTokens: 100}, []string{"answer 1"}},
		{cli.Gemini, llm.Usage{InputTokens: 112, OutputTokens: 5}, []string{"answer ", "1"}},
		{cli.Text, llm.Usage{}, nil},
	} {
		t.Run(string(c.format), func(t *testing.T) {
			r := newRig(t, c.format)
			var streamed []string
			resp, err := r.model().Stream(t.Context(), request(1), func(s string) { streamed = append(streamed, s) })
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != "answer 1" || resp.Usage != c.usage {
				t.Errorf("answer %q, usage %+v; want \"answer 1\", %+v", resp.Text, resp.Usage, c.usage)
			}
			if c.format != cli.Text && !slices.Equal(streamed, c.streamed) {
				t.Errorf("streamed %q, want %q", streamed, c.streamed)
			}
			s, err := r.sessions.ModelSession(t.Context(), "Coder/-100/0/0")
			switch {
			case err != nil:
				t.Errorf("no session stored: %v", err)
			case c.format == cli.Text && s.ID != "":
				t.Errorf("a text command keeps no session, stored %q", s.ID)
			case c.format != cli.Text && s.ID != "sess-1":
				t.Errorf("session %q, want sess-1", s.ID)
			}
		})
	}
}

// TestSessionDelta: a live session is resumed and sent only the messages it has not seen,
// also by a new process (the session is stored); a new one is sent the instructions and
// the whole history; the instructions come again every ReminderEvery turns.
func TestSessionDelta(t *testing.T) {
	r := newRig(t, cli.Claude)
	r.cfg.ReminderEvery = 2
	m := r.model()
	for _, n := range []int{1, 3} {
		if _, err := m.Generate(t.Context(), request(n)); err != nil {
			t.Fatal(err)
		}
	}
	// A restart: a new Model on the same store.
	if _, err := r.model().Generate(t.Context(), request(5)); err != nil {
		t.Fatal(err)
	}
	calls := r.calls()
	if len(calls) != 3 {
		t.Fatalf("%d calls", len(calls))
	}
	first, second, third := calls[0], calls[1], calls[2]
	if slices.Contains(first.Args, "--resume") || !strings.Contains(first.Stdin, "You are Coder.") || !strings.Contains(first.Stdin, "question 1") {
		t.Errorf("first call %v:\n%s", first.Args, first.Stdin)
	}
	if !slices.Equal(second.Args, []string{"-p", "--resume", "sess-1"}) {
		t.Errorf("second call's arguments %v, want the session resumed", second.Args)
	}
	for _, old := range []string{"You are Coder.", "question 1", "my answer 2"} {
		if strings.Contains(second.Stdin, old) {
			t.Errorf("the resumed session was sent %q again:\n%s", old, second.Stdin)
		}
	}
	if !strings.Contains(second.Stdin, "question 3") || !strings.HasSuffix(second.Stdin, "[system] Consider responding to message with message_id 3.\n") {
		t.Errorf("second call's prompt:\n%s", second.Stdin)
	}
	// The third turn of the session reminds the agent of its instructions (every 2).
	if !slices.Equal(third.Args, []string{"-p", "--resume", "sess-1"}) || !strings.Contains(third.Stdin, "## Your instructions (a reminder)\n\nYou are Coder.") ||
		strings.Contains(third.Stdin, "question 3") || !strings.Contains(third.Stdin, "question 5") {
		t.Errorf("third call %v:\n%s", third.Args, third.Stdin)
	}
	s, _ := r.sessions.ModelSession(t.Context(), "Coder/-100/0/0")
	if s.ID != "sess-1" || s.Seen != 5 || s.Turns != 3 {
		t.Errorf("stored session %+v", s)
	}

	// Another conversation has its own session.
	other := request(1)
	other.Session = "Coder/-200/0/0"
	if _, err := m.Generate(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	if c := r.calls()[3]; slices.Contains(c.Args, "--resume") {
		t.Errorf("another chat resumed this one's session: %v", c.Args)
	}
}

// TestSessionRestarts: a session idle past IdleTimeout, or one the agent cannot resume,
// is started again with the whole history; the new session is kept.
func TestSessionRestarts(t *testing.T) {
	r := newRig(t, cli.Codex)
	r.cfg.IdleTimeout = time.Hour
	m := r.model()
	m.Generate(t.Context(), request(1))
	r.now = r.now.Add(2 * time.Hour)
	if _, err := m.Generate(t.Context(), request(3)); err != nil {
		t.Fatal(err)
	}
	if c := r.calls()[1]; slices.Contains(c.Args, "resume") || !strings.Contains(c.Stdin, "question 1") {
		t.Errorf("an expired session was resumed (%v):\n%s", c.Args, c.Stdin)
	}

	lost := newRig(t, cli.Gemini, "FAKE_CLI_LOST=1")
	lm := lost.model()
	lm.Generate(t.Context(), request(1))
	resp, err := lm.Generate(t.Context(), request(3))
	if err != nil {
		t.Fatalf("a lost session fails the call: %v", err)
	}
	calls := lost.calls()
	if len(calls) != 3 || !slices.Contains(calls[1].Args, "--resume") || slices.Contains(calls[2].Args, "--resume") ||
		!strings.Contains(calls[2].Stdin, "question 1") || resp.Text != "answer 3" {
		t.Errorf("after a failed resume: %d calls, last %v, answer %q", len(calls), calls[len(calls)-1].Args, resp.Text)
	}
	if s, _ := lost.sessions.ModelSession(t.Context(), "Coder/-100/0/0"); s.ID != "sess-3" {
		t.Errorf("session after the restart: %q, want sess-3", s.ID)
	}
}

// TestTimeout: an agent that hangs is killed at Timeout, with a retryable error, and its
// session is sent the whole history next time.
func TestTimeout(t *testing.T) {
	r := newRig(t, cli.Claude)
	m := r.model()
	m.Generate(t.Context(), request(1))
	r.cfg.Env = append(r.cfg.Env, "FAKE_CLI_SLEEP=20s")
	r.cfg.Timeout = 300 * time.Millisecond
	started := time.Now()
	_, err := r.model().Generate(t.Context(), request(3))
	var le *llm.Error
	if !errors.As(err, &le) || !le.Retryable() || !strings.Contains(le.Error(), "killed after 300ms") {
		t.Fatalf("a hanging agent: %v, want a retryable *llm.Error saying it was killed", err)
	}
	if d := time.Since(started); d > 10*time.Second {
		t.Errorf("the call took %v: the agent was not killed", d)
	}
	if s, _ := r.sessions.ModelSession(t.Context(), "Coder/-100/0/0"); s.ID != "" {
		t.Errorf("session %q kept after the agent was killed, want none", s.ID)
	}
}

// TestBadConfig: a missing command or an unknown format is refused; a command that does
// not exist fails the health check and every call, clearly.
func TestBadConfig(t *testing.T) {
	if _, err := cli.New(cli.Config{Format: cli.Claude}); err == nil {
		t.Error("no command: no error")
	}
	if _, err := cli.New(cli.Config{Command: []string{"claude"}, Format: "yaml"}); err == nil {
		t.Error("unknown format: no error")
	}
	m, err := cli.New(cli.Config{Name: "ghost", Command: []string{"/no/such/agent"}, Format: cli.Text})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Check(); err == nil {
		t.Error("Check of a missing command: no error")
	}
	if _, err := m.Generate(t.Context(), request(1)); err == nil || !strings.Contains(err.Error(), "ghost") {
		t.Errorf("calling a missing command: %v", err)
	}
}
