package crew_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/crew"
	"github.com/mynah-ai/mynah/internal/ingest"
	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

var (
	group = mynah.Chat{ID: -100500, Type: mynah.ChatSupergroup, Title: "Workshop"}
	alice = mynah.User{ID: 42, FirstName: "Alice", Username: "alice"}
)

// rig runs a crew in one process as serve does: one store, and per member its lanes,
// its ingest and a model answering as the test says, on a fake Telegram that numbers the
// group's messages as Telegram does (one sequence for every bot and user).
type rig struct {
	t      *testing.T
	db     *sqlite.DB
	engine *crew.Engine
	names  []string
	bots   map[string]mynah.User
	models map[string]*model
	ins    map[string]*ingest.Ingester
	tg     *world

	stop    context.CancelFunc
	stopped chan struct{}
	update  atomic.Int64
}

// reply is what a member's model answers to a request (its index among the member's
// calls); a non-nil error fails the call.
type reply func(req llm.Request, n int) (string, error)

func newRig(t *testing.T, c crew.Crew, replies map[string]reply) *rig {
	t.Helper()
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "crew.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r := &rig{t: t, db: db, bots: map[string]mynah.User{}, models: map[string]*model{}, ins: map[string]*ingest.Ingester{},
		tg: &world{db: db, sent: make(chan struct{}, 1)}}
	for i, m := range c.Members {
		r.names = append(r.names, m.Agent)
		r.bots[m.Agent] = mynah.User{ID: mynah.UserID(9000 + i), FirstName: m.Agent, Username: strings.ToLower(m.Agent) + "_bot", IsBot: true}
		r.models[m.Agent] = &model{answer: replies[m.Agent]}
	}
	r.engine, err = crew.New([]crew.Crew{c}, db, crew.Options{Poll: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r.start()
	return r
}

// start runs the engine and every member's lanes until stopAll.
func (r *rig) start() {
	ctx, cancel := context.WithCancel(r.t.Context())
	r.stop, r.stopped = cancel, make(chan struct{})
	var wg sync.WaitGroup
	for _, name := range r.names {
		bot := r.bots[name]
		asm := prompt.NewAssembler(prompt.Agent{Name: name, Bot: bot, Budget: 100000, System: prompt.SystemParts{Instructions: "You are " + name + "."}}, r.db, prompt.Sources{}, nil)
		runner := lane.New(lane.Agent{Name: name, Bot: bot, Model: r.models[name], ModelName: "fake/" + name, ModelID: name, Apology: "sorry", Prompt: asm},
			r.db, r.tg.as(bot), lane.Options{Crew: r.engine, Poll: 50 * time.Millisecond, Grace: 200 * time.Millisecond})
		r.engine.Join(name, bot, runner)
		r.ins[name] = ingest.New(ingest.Agent{Name: name, Bot: bot}, r.db, ingest.Options{Queued: runner.Queued, Crew: r.engine})
		wg.Add(1)
		go func() { defer wg.Done(); _ = runner.Run(ctx) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); _ = r.engine.Run(ctx) }()
	go func() { wg.Wait(); close(r.stopped) }()
	r.t.Cleanup(r.stopAll)
}

func (r *rig) stopAll() {
	if r.stop != nil {
		r.stop()
		<-r.stopped
		r.stop = nil
	}
}

// say posts text from alice in the group, as every member's bot receives it.
func (r *rig) say(text string) mynah.MessageID {
	r.t.Helper()
	id := r.tg.nextID()
	msg := mynah.Message{Chat: group, ID: id, Sender: alice, Time: time.Now(), Text: text}
	msg.Entities = append(msg.Entities, mentions(text)...)
	for _, name := range r.names {
		u := mynah.Update{ID: r.update.Add(1), Kind: "message", Chat: group, Users: []mynah.User{alice}, Message: &msg}
		if cmd, _, _ := strings.Cut(text, " "); strings.HasPrefix(cmd, "/") {
			u.Message.Entities = []mynah.Entity{{Type: "bot_command", Offset: 0, Length: len(cmd)}}
		}
		if err := r.ins[name].Handle(r.t.Context(), u); err != nil {
			r.t.Fatal(err)
		}
	}
	return id
}

// mentions returns the mention entities of text's @words.
func mentions(text string) []mynah.Entity {
	var out []mynah.Entity
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || (i > 0 && text[i-1] != ' ') {
			continue
		}
		j := i + 1
		for j < len(text) && (text[j] == '_' || text[j] >= 'a' && text[j] <= 'z' || text[j] >= '0' && text[j] <= '9') {
			j++
		}
		out = append(out, mynah.Entity{Type: "mention", Offset: i, Length: j - i})
	}
	return out
}

// state returns the crew's state in the group.
func (r *rig) state(name string) mynah.CrewState {
	r.t.Helper()
	st, err := r.db.CrewState(r.t.Context(), name, group.ID)
	if err != nil {
		r.t.Fatal(err)
	}
	return st
}

// waitFor waits until ok holds, checking whenever something was sent and every 20 ms.
func (r *rig) waitFor(what string, ok func() bool) {
	r.t.Helper()
	deadline := time.After(20 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !ok() {
		select {
		case <-deadline:
			r.t.Fatalf("waiting for %s: timed out; sent:\n%s", what, strings.Join(r.tg.lines(), "\n"))
		case <-tick.C:
		case <-r.tg.sent:
		}
	}
}

// waitEnded waits until cycle n of crew name is over and returns the state.
func (r *rig) waitEnded(name string, n int64) mynah.CrewState {
	r.t.Helper()
	var st mynah.CrewState
	r.waitFor(fmt.Sprintf("cycle %d to end", n), func() bool {
		st = r.state(name)
		return st.Cycle >= n && !st.Active
	})
	return st
}

// model is a member's fake model.
type model struct {
	answer reply
	mu     sync.Mutex
	reqs   []llm.Request
}

func (m *model) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	n := len(m.reqs)
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	type answer struct {
		text string
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		text, err := m.answer(req, n)
		got <- answer{text, err}
	}()
	select {
	case <-ctx.Done(): // a model that hangs is given up, as the real ones are
		return nil, ctx.Err()
	case a := <-got:
		if a.err != nil {
			return nil, a.err
		}
		return &llm.Response{Text: a.text, Usage: llm.Usage{InputTokens: 10, OutputTokens: 2}}, nil
	}
}

func (m *model) Stream(ctx context.Context, req llm.Request, onText func(string)) (*llm.Response, error) {
	return m.Generate(ctx, req)
}

func (m *model) requests() []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]llm.Request(nil), m.reqs...)
}

// world is the fake Telegram: message ids per chat shared by every bot, and the messages
// each bot sent, in order.
type world struct {
	db   *sqlite.DB
	mu   sync.Mutex
	next mynah.MessageID
	log  []sent
	sent chan struct{}
	// hold, when set, is called with each text before it is sent: a test holds a send
	// there to see what happens meanwhile.
	hold func(text string)
}

type sent struct {
	bot     mynah.User
	id      mynah.MessageID
	text    string
	replyTo mynah.MessageID
}

func (w *world) nextID() mynah.MessageID {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next++
	return w.next
}

// lines returns what the bots sent, as "Name: text".
func (w *world) lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, s := range w.log {
		out = append(out, s.bot.FirstName+": "+s.text)
	}
	return out
}

func (w *world) as(bot mynah.User) lane.Telegram { return botTelegram{w, bot} }

type botTelegram struct {
	w   *world
	bot mynah.User
}

func (b botTelegram) Send(_ context.Context, o mynah.Outgoing) (mynah.Message, error) {
	b.w.mu.Lock()
	hold := b.w.hold
	b.w.mu.Unlock()
	if hold != nil {
		hold(o.Text)
	}
	b.w.mu.Lock()
	b.w.next++
	id := b.w.next
	b.w.log = append(b.w.log, sent{bot: b.bot, id: id, text: o.Text, replyTo: o.ReplyTo})
	b.w.mu.Unlock()
	select {
	case b.w.sent <- struct{}{}:
	default:
	}
	return mynah.Message{Chat: mynah.Chat{ID: o.Chat, Type: mynah.ChatSupergroup}, ID: id, Sender: b.bot, Text: o.Text, Time: time.Now()}, nil
}

func (botTelegram) Typing(context.Context, mynah.ChatID, int64) error { return nil }

func (b botTelegram) Sticker(ctx context.Context, chat mynah.ChatID, thread int64, set, emoji string, replyTo mynah.MessageID) (mynah.Message, error) {
	return b.Send(ctx, mynah.Outgoing{Chat: chat, Text: "sticker " + emoji})
}

func (botTelegram) React(context.Context, mynah.ChatID, mynah.MessageID, string) error { return nil }
