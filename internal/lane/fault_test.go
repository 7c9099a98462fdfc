package lane_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// The tests of this file run in synthetic time (testing/synctest): a storm of minutes
// passes in an instant, and what they assert does not depend on the machine's speed.

// start runs r until the returned stop is called; stop returns once Run has.
func start(t *testing.T, r *lane.Runner) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	return func() {
		t.Helper()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// settle lets synthetic time pass by d and waits until every goroutine is idle.
func settle(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

// outageModel fails with a 500 until its outage ends, then answers "answer <n>", n
// counting its calls. It records the calls.
type outageModel struct {
	mu    sync.Mutex
	until time.Time
	calls []time.Time
}

func (m *outageModel) Generate(context.Context, llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, time.Now())
	if time.Now().Before(m.until) {
		return nil, &llm.Error{Provider: "fake", Status: 500, Message: "outage"}
	}
	return &llm.Response{Text: fmt.Sprintf("answer %d", len(m.calls))}, nil
}

func (m *outageModel) Stream(ctx context.Context, req llm.Request, _ func(string)) (*llm.Response, error) {
	return m.Generate(ctx, req)
}

func (m *outageModel) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.calls)
}

// faultRunner is a runner of agent Mynah over db with the given models.
func faultRunner(t *testing.T, db *sqlite.DB, store lane.Store, tg lane.Telegram, models []lane.Model, opts lane.Options) *lane.Runner {
	t.Helper()
	if store == nil {
		store = db
	}
	asm := prompt.NewAssembler(prompt.Agent{Name: "Mynah", Bot: bot, Budget: 10000}, db, prompt.Sources{}, nil)
	return lane.New(lane.Agent{Name: "Mynah", Bot: bot, Models: models, Apology: "sorry", Prompt: asm}, store, tg, opts)
}

// message queues a message of user in chat with a turn to answer it.
func message(t *testing.T, db *sqlite.DB, update int64, chat mynah.Chat, user mynah.User, id mynah.MessageID, text string) {
	t.Helper()
	msg := &mynah.Message{Agent: "Mynah", Chat: chat, ID: id, Sender: user, Text: text, Time: time.Now()}
	turn := &mynah.Turn{Agent: "Mynah", Chat: chat.ID, Target: id}
	if _, err := db.Accept(t.Context(), "Mynah", update, mynah.Intake{Chat: chat, Users: []mynah.User{user}, Message: msg, Turn: turn}); err != nil {
		t.Fatal(err)
	}
}

// TestOutageIsAnsweredAfterRecovery: during a 60 s provider outage the message waits
// (no apology) and is answered once the provider is back, within the retry window.
func TestOutageIsAnsweredAfterRecovery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := openDB(t)
		model := &outageModel{until: time.Now().Add(60 * time.Second)}
		tg := &fakeTelegram{}
		r := faultRunner(t, db, nil, tg, []lane.Model{{Model: model, Name: "fake/m", ID: "m"}}, lane.Options{})
		message(t, db, 1, dm, alice, 1, "are you there?")
		stop := start(t, r)
		settle(59 * time.Second)
		if sent := tg.Sent(); len(sent) != 0 {
			t.Errorf("sent %q during the outage, want nothing yet", texts(sent))
		}
		settle(2 * time.Minute)
		stop()
		// Tries at 0, 5, 15, 35 s fail; the one at 75 s is answered.
		if got := texts(tg.Sent()); strings.Join(got, "|") != "answer 5" {
			t.Errorf("sent %q, want the answer of the fifth call and no apology", got)
		}
	})
}

// TestNewMessageEndsOutageWait: a message that arrives while an earlier one waits for
// the provider is answered at once when the provider is back, with one answer for both.
func TestNewMessageEndsOutageWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := openDB(t)
		model := &outageModel{until: time.Now().Add(2 * time.Second)}
		tg := &fakeTelegram{}
		r := faultRunner(t, db, nil, tg, []lane.Model{{Model: model, Name: "fake/m", ID: "m"}}, lane.Options{})
		message(t, db, 1, dm, alice, 1, "first")
		stop := start(t, r)
		settle(3 * time.Second) // the first try failed; the next is due at 5 s
		message(t, db, 2, dm, alice, 2, "second")
		r.Wake()
		settle(0)
		if got := texts(tg.Sent()); strings.Join(got, "|") != "answer 2" {
			t.Errorf("sent %q at 3 s, want one answer for both messages at once", got)
		}
		settle(time.Minute)
		stop()
		if n := model.Calls(); n != 2 {
			t.Errorf("%d model calls, want 2: the failed one and the answer", n)
		}
	})
}

// recordingMetrics records the model calls reported.
type recordingMetrics struct {
	mu    sync.Mutex
	calls []string // "model:ok" or "model:error"
}

func (m *recordingMetrics) ModelCall(err error, u mynah.Usage, _ time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.calls = append(m.calls, u.Model+":"+result)
}

func (m *recordingMetrics) Task(mynah.TaskKind, string) {}

// usageStore records the usage written through it.
type usageStore struct {
	lane.Store
	mu    sync.Mutex
	usage []mynah.Usage
}

func (s *usageStore) RecordUsage(ctx context.Context, u mynah.Usage) error {
	s.mu.Lock()
	s.usage = append(s.usage, u)
	s.mu.Unlock()
	return s.Store.RecordUsage(ctx, u)
}

// TestFallbackModel: a call the primary model fails moves on to the fallback at once; the
// usage is recorded under the fallback's name, each call reported under its model's, and
// the request carries each model's own ID.
func TestFallbackModel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := openDB(t)
		primary := &fakeModel{err: &llm.Error{Provider: "fake", Status: 503, Message: "down"}}
		fallback := &fakeModel{}
		store := &usageStore{Store: db}
		metrics := &recordingMetrics{}
		tg := &fakeTelegram{}
		r := faultRunner(t, db, store, tg, []lane.Model{
			{Model: primary, Name: "big/primary", ID: "primary-1"},
			{Model: fallback, Name: "small/fallback", ID: "fallback-1"},
		}, lane.Options{Metrics: metrics})
		message(t, db, 1, dm, alice, 1, "hello")
		stop := start(t, r)
		settle(time.Second)
		stop()
		if got := texts(tg.Sent()); strings.Join(got, "|") != "answer" {
			t.Errorf("sent %q, want the fallback's answer at once", got)
		}
		if p, f := primary.Requests(), fallback.Requests(); len(p) != 1 || len(f) != 1 || p[0].Model != "primary-1" || f[0].Model != "fallback-1" {
			t.Errorf("requests: primary %d, fallback %d; want one each with the model's own ID", len(p), len(f))
		}
		if got := strings.Join(metrics.calls, " "); got != "big/primary:error small/fallback:ok" {
			t.Errorf("model calls reported: %s", got)
		}
		if len(store.usage) != 1 || store.usage[0].Model != "small/fallback" {
			t.Errorf("usage recorded %+v, want one record of small/fallback", store.usage)
		}
	})
}

// finishFailing is a store whose FinishTurn fails its first fails calls, as on a full
// disk.
type finishFailing struct {
	lane.Store
	mu    sync.Mutex
	fails int
	tries []time.Time
}

func (s *finishFailing) FinishTurn(ctx context.Context, id int64, parts []mynah.OutPart) ([]mynah.OutPart, error) {
	s.mu.Lock()
	s.tries = append(s.tries, time.Now())
	failing := len(s.tries) <= s.fails
	s.mu.Unlock()
	if failing {
		return nil, errors.New("database or disk is full")
	}
	return s.Store.FinishTurn(ctx, id, parts)
}

// TestStoreFailureKeepsAnswer: when the store cannot finish a turn the model answered,
// the answer is kept and the write retried with growing pauses: one model call, the
// reply delivered once the store works again.
func TestStoreFailureKeepsAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := openDB(t)
		store := &finishFailing{Store: db, fails: 5}
		model := &fakeModel{}
		tg := &fakeTelegram{}
		r := faultRunner(t, db, store, tg, []lane.Model{{Model: model, Name: "fake/m", ID: "m"}}, lane.Options{})
		message(t, db, 1, dm, alice, 1, "hello")
		stop := start(t, r)
		settle(2 * time.Minute)
		stop()
		if n := len(model.Requests()); n != 1 {
			t.Errorf("%d model calls, want 1: the answer is kept while the store fails", n)
		}
		if got := texts(tg.Sent()); strings.Join(got, "|") != "answer" {
			t.Errorf("sent %q, want the answer once", got)
		}
		var gaps []time.Duration
		for i := 1; i < len(store.tries); i++ {
			gaps = append(gaps, store.tries[i].Sub(store.tries[i-1]))
		}
		if want := []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second}; !slices.Equal(gaps, want) {
			t.Errorf("pauses between store writes %v, want %v", gaps, want)
		}
	})
}

// scanCounting counts the runner's scans of the turn queue; past limit it reports the
// runner spinning and makes each scan take a second, so synthetic time goes on.
type scanCounting struct {
	lane.Store
	t     *testing.T
	limit int
	mu    sync.Mutex
	scans int
}

func (s *scanCounting) PendingTurns(ctx context.Context, agent string, now time.Time, limit int) ([]mynah.Turn, error) {
	s.mu.Lock()
	s.scans++
	n := s.scans
	s.mu.Unlock()
	if n == s.limit {
		s.t.Errorf("%d scans: the runner spins", s.limit)
	}
	if n >= s.limit {
		time.Sleep(time.Second)
	}
	return s.Store.PendingTurns(ctx, agent, now, limit)
}

// TestCommandBehindHeldTurnWaits: a command's reply queued behind a held turn — part
// of a paste held for the rest, or a message waiting for the provider — waits its turn
// without the runner rescanning in a loop (it replaces nothing, unlike a new message).
func TestCommandBehindHeldTurnWaits(t *testing.T) {
	for _, c := range []struct {
		name      string
		notBefore time.Duration // the message's turn is held this long
		outage    time.Duration // the provider fails this long
	}{
		{"paste", 30 * time.Second, 0},
		{"outage", 0, 30 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				db := openDB(t)
				store := &scanCounting{Store: db, t: t, limit: 1000}
				model := &outageModel{until: time.Now().Add(c.outage)}
				tg := &fakeTelegram{}
				r := faultRunner(t, db, store, tg, []lane.Model{{Model: model, Name: "fake/m", ID: "m"}}, lane.Options{})
				msg := &mynah.Message{Agent: "Mynah", Chat: dm, ID: 1, Sender: alice, Text: "a long paste", Time: time.Now()}
				turn := &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 1}
				if c.notBefore > 0 {
					turn.NotBefore = time.Now().Add(c.notBefore)
				}
				if _, err := db.Accept(t.Context(), "Mynah", 1, mynah.Intake{Chat: dm, Message: msg, Turn: turn}); err != nil {
					t.Fatal(err)
				}
				accept(t, db, 2, 2, "/help", &mynah.Turn{Agent: "Mynah", Chat: dm.ID, Target: 2, Static: "help text"})
				stop := start(t, r)
				settle(time.Minute)
				stop()
				if got := texts(tg.Sent()); len(got) != 2 || got[1] != "help text" {
					t.Errorf("sent %q, want the answer, then the help", got)
				}
			})
		})
	}
}
