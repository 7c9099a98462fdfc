package lane_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// slowModel takes a fixed time per call and records when each target's call started.
type slowModel struct {
	delay   time.Duration
	mu      sync.Mutex
	started map[mynah.MessageID]time.Time
	calls   int
}

var targetRe = regexp.MustCompile(`message_id (\d+)\.`)

func (m *slowModel) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	last := req.Turns[len(req.Turns)-1]
	id, _ := strconv.ParseInt(targetRe.FindStringSubmatch(last.Parts[len(last.Parts)-1].Text)[1], 10, 64)
	m.mu.Lock()
	m.started[mynah.MessageID(id)] = time.Now()
	m.calls++
	m.mu.Unlock()
	select {
	case <-time.After(m.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &llm.Response{Text: "ok"}, nil
}

func (m *slowModel) Stream(ctx context.Context, req llm.Request, _ func(string)) (*llm.Response, error) {
	return m.Generate(ctx, req)
}

// BenchmarkFairness runs the scale: 1,000 active private chats each type a burst
// of 5 messages (200 ms apart, at a random moment of a 40 s window) while one group floods
// (10 addressed messages a second); every turn is held 1 s, as for an agent with debounce: 1s;
// the model takes 500 ms per call and 16 turns run at once. A second run holds nothing: the
// flood then keeps one lane busy, and a burst gets one call only if its chat waits for a
// lane while it is typed. It reports the p50/p99 wait
// from a private chat's turn falling due (1 s after the burst's last message) to its model
// call starting, the model calls per burst (mean and max: 1 each means every burst got one
// answer) and how many calls the flood cost.
//
//	go test -run '^$' -bench Fairness -benchtime 1x ./internal/lane
func BenchmarkFairness(b *testing.B) {
	for _, hold := range []time.Duration{time.Second, 0} {
		b.Run(fmt.Sprintf("debounce=%s", hold), func(b *testing.B) { benchmarkFairness(b, hold) })
	}
}

func benchmarkFairness(b *testing.B, hold time.Duration) {
	const (
		chats, burst, window, floodRate = 1000, 5, 40 * time.Second, 10
		gap                             = 200 * time.Millisecond
	)
	for i := 0; i < b.N; i++ {
		db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "f.db"))
		if err != nil {
			b.Fatal(err)
		}
		model := &slowModel{delay: 500 * time.Millisecond, started: map[mynah.MessageID]time.Time{}}
		tg := &fakeTelegram{got: make(chan struct{}, 1)}
		asm := prompt.NewAssembler(prompt.Agent{Name: "Mynah", Bot: bot, Budget: 8000}, db, prompt.Sources{}, nil)
		r := lane.New(lane.Agent{Name: "Mynah", Bot: bot, Model: model, ModelName: "fake/slow", Prompt: asm}, db, tg, lane.Options{Parallel: 16})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- r.Run(ctx) }()

		// Message ids are unique across chats, so a call's target names its chat: private
		// chat c sends ids c*10+1 … c*10+5.
		rng := rand.New(rand.NewPCG(1, 2))
		type event struct {
			at    time.Duration
			chat  mynah.Chat
			id    mynah.MessageID
			flood bool
		}
		var events []event
		for c := 0; c < chats; c++ {
			start := time.Duration(rng.Int64N(int64(window)))
			chat := mynah.Chat{ID: mynah.ChatID(100000 + c), Type: mynah.ChatPrivate}
			for k := 1; k <= burst; k++ {
				events = append(events, event{at: start + time.Duration(k-1)*gap, chat: chat, id: mynah.MessageID(c*10 + k)})
			}
		}
		group := mynah.Chat{ID: -100999, Type: mynah.ChatSupergroup, Title: "Flood"}
		for k := 0; k < int(window/time.Second)*floodRate; k++ {
			events = append(events, event{at: time.Duration(k) * time.Second / floodRate, chat: group, id: mynah.MessageID(1_000_000 + k), flood: true})
		}
		slices.SortFunc(events, func(a, b event) int { return int(a.at - b.at) })

		due := map[mynah.MessageID]time.Time{} // a burst's last message → when its turn fell due
		start := time.Now()
		b.ResetTimer()
		for n, e := range events {
			time.Sleep(time.Until(start.Add(e.at)))
			sender := mynah.User{ID: mynah.UserID(e.chat.ID), FirstName: "User"}
			if e.flood {
				sender = mynah.User{ID: 555, FirstName: "Flooder"}
			}
			now := time.Now()
			msg := &mynah.Message{Agent: "Mynah", Chat: e.chat, ID: e.id, Sender: sender, Text: "hello there", Time: now}
			turn := &mynah.Turn{Agent: "Mynah", Chat: e.chat.ID, Target: e.id}
			if hold > 0 {
				turn.NotBefore = now.Add(hold)
			}
			if _, err := db.Accept(ctx, "Mynah", int64(n+1), mynah.Intake{Chat: e.chat, Message: msg, Turn: turn}); err != nil {
				b.Fatal(err)
			}
			if !e.flood && e.id%10 == burst {
				due[e.id] = now.Add(hold)
			}
			r.Wake()
		}
		// Let the queue drain.
		deadline := time.Now().Add(2 * time.Minute)
		for {
			model.mu.Lock()
			served := 0
			for id := range due {
				if _, ok := model.started[id]; ok {
					served++
				}
			}
			model.mu.Unlock()
			if served == len(due) || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		b.StopTimer()
		cancel()
		<-done
		var waits []time.Duration
		perChat := map[int]int{}
		floodCalls := 0
		model.mu.Lock()
		for id, d := range due {
			if s, ok := model.started[id]; ok {
				waits = append(waits, max(0, s.Sub(d)))
			}
		}
		for id := range model.started {
			if id >= 1_000_000 {
				floodCalls++
			} else {
				perChat[int(id)/10]++
			}
		}
		model.mu.Unlock()
		if len(waits) != len(due) {
			b.Fatalf("%d of %d bursts answered", len(waits), len(due))
		}
		maxCalls, total := 0, 0
		for _, n := range perChat {
			maxCalls, total = max(maxCalls, n), total+n
		}
		slices.Sort(waits)
		b.ReportMetric(float64(waits[len(waits)/2].Milliseconds()), "p50-wait-ms")
		b.ReportMetric(float64(waits[len(waits)*99/100].Milliseconds()), "p99-wait-ms")
		b.ReportMetric(float64(total)/chats, "calls/burst")
		b.ReportMetric(float64(maxCalls), "max-calls/burst")
		b.ReportMetric(float64(floodCalls), "flood-calls")
		b.ReportMetric(float64(window/time.Second*floodRate), "flood-msgs")
		db.Close()
	}
}
