package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// scriptModel answers each call with answer and records the requests. When gate is set,
// each call first reports on entered and waits for gate.
type scriptModel struct {
	answer  func(n int, req llm.Request) (*llm.Response, error)
	entered chan struct{}
	gate    chan struct{}

	mu   sync.Mutex
	reqs []llm.Request
}

func (m *scriptModel) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	n := len(m.reqs)
	m.mu.Unlock()
	if m.gate != nil {
		m.entered <- struct{}{}
		select {
		case <-m.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return m.answer(n, req)
}

func (m *scriptModel) Stream(ctx context.Context, req llm.Request, _ func(string)) (*llm.Response, error) {
	return m.Generate(ctx, req)
}

func (m *scriptModel) requests() []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]llm.Request(nil), m.reqs...)
}

// summaries splits the recorded requests into memory flushes (they offer tools) and
// summary calls.
func (m *scriptModel) split() (flushes, summaries []llm.Request) {
	for _, r := range m.requests() {
		if len(r.Tools) > 0 {
			flushes = append(flushes, r)
		} else {
			summaries = append(summaries, r)
		}
	}
	return flushes, summaries
}

// summarize answers every summary call with "SUMMARY n" and ends every flush at once.
func summarize(n int, req llm.Request) (*llm.Response, error) {
	if len(req.Tools) > 0 {
		return &llm.Response{}, nil
	}
	return &llm.Response{Text: fmt.Sprintf("SUMMARY %d", n), Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}}, nil
}

// chatter stores messages first..last of chat, alice and the agent taking turns, a minute
// apart from start.
func chatter(t *testing.T, db *sqlite.DB, chat mynah.Chat, first, last int, start time.Time) {
	t.Helper()
	for i := first; i <= last; i++ {
		m := msg(chat, i, alice, fmt.Sprintf("alice says %d", i))
		if i%2 == 0 {
			m = msg(chat, i, agentBot, fmt.Sprintf("mynah says %d", i))
		}
		m.Time = start.Add(time.Duration(i) * time.Minute)
		if _, err := db.Accept(t.Context(), "Mynah", int64(chat.ID)*10000+int64(i), mynah.Intake{Chat: chat, Users: []mynah.User{m.Sender}, Message: &m}); err != nil {
			t.Fatal(err)
		}
	}
}

// shown is the prompt record of a turn whose prompt showed messages first..last.
func shown(chat mynah.ChatID, turn int64, first, last int) mynah.PromptRef {
	c := prompt.Composition{Target: mynah.MessageID(last)}
	for i := first; i <= last; i++ {
		c.Messages = append(c.Messages, mynah.MessageID(i))
	}
	b, _ := json.Marshal(c)
	return mynah.PromptRef{Turn: turn, Chat: chat, Composition: b}
}

func newSummarizer(db *sqlite.DB, model llm.Model, mod func(*memory.SummaryConfig)) *memory.Summarizer {
	cfg := memory.SummaryConfig{Agent: "Mynah", Model: model, ModelName: "fake/m", ModelID: "m", Rolling: true}
	if mod != nil {
		mod(&cfg)
	}
	return memory.NewSummarizer(cfg, db)
}

func compact(t *testing.T, s *memory.Summarizer, ref mynah.PromptRef) bool {
	t.Helper()
	wrote, err := s.Compact(t.Context(), ref)
	if err != nil {
		t.Fatalf("Compact: %v", err)
	}
	return wrote
}

func latestSummary(t *testing.T, db *sqlite.DB, chat mynah.ChatID, kind mynah.SummaryKind) mynah.Summary {
	t.Helper()
	s, err := db.LatestSummary(t.Context(), "Mynah", chat, 0, kind)
	if err != nil {
		t.Fatalf("LatestSummary(%s): %v", kind, err)
	}
	return s
}

// TestCompactIncludesPreviousSummary: each compaction summarizes the messages left out
// since the last one together with the last summary, and covers everything from the
// session start; the raw messages stay stored.
func TestCompactIncludesPreviousSummary(t *testing.T) {
	db := openStore(t)
	chatter(t, db, factsDM, 1, 60, t0)
	model := &scriptModel{answer: summarize}
	s := newSummarizer(db, model, nil)

	if !compact(t, s, shown(factsDM.ID, 1, 31, 60)) {
		t.Fatal("no compaction with 30 messages left out")
	}
	first := latestSummary(t, db, factsDM.ID, mynah.SummaryRolling)
	if first.First != 1 || first.Last != 30 || first.Text != "SUMMARY 1" {
		t.Errorf("first summary covers %d–%d with %q, want 1–30 with SUMMARY 1", first.First, first.Last, first.Text)
	}

	if !compact(t, s, shown(factsDM.ID, 2, 55, 60)) {
		t.Fatal("no second compaction with 24 more messages left out")
	}
	_, reqs := model.split()
	if len(reqs) != 2 {
		t.Fatalf("%d summary calls, want 2", len(reqs))
	}
	in := reqs[1].Turns[0].Parts[0].Text
	for _, want := range []string{"Previous summary (messages 1–30", "SUMMARY 1", "[#31 ", "alice says 31", "[#54 "} {
		if !strings.Contains(in, want) {
			t.Errorf("second summary request lacks %q:\n%s", want, in)
		}
	}
	for _, not := range []string{"[#30 ", "[#55 "} {
		if strings.Contains(in, not) {
			t.Errorf("second summary request holds %q, outside the range to compact:\n%s", not, in)
		}
	}
	second := latestSummary(t, db, factsDM.ID, mynah.SummaryRolling)
	if second.First != 1 || second.Last != 54 || second.Text != "SUMMARY 2" || !second.From.Equal(first.From) {
		t.Errorf("second summary = %d–%d from %v, %q; want 1–54 from %v, SUMMARY 2", second.First, second.Last, second.From, second.Text, first.From)
	}
	hist, err := db.History(t.Context(), "Mynah", factsDM.ID, 0, 0, 100)
	if err != nil || len(hist) != 60 {
		t.Errorf("after compaction the chat has %d messages stored (%v), want all 60", len(hist), err)
	}
}

// TestNoCompaction: nothing is summarized when the prompt showed the whole session, or
// when what it left out is too little to be worth a call.
func TestNoCompaction(t *testing.T) {
	db := openStore(t)
	chatter(t, db, factsDM, 1, 60, t0)
	model := &scriptModel{answer: summarize}
	s := newSummarizer(db, model, nil)
	for _, ref := range []mynah.PromptRef{
		shown(factsDM.ID, 1, 1, 60),  // everything shown
		shown(factsDM.ID, 2, 11, 60), // 10 left out, a few tokens
	} {
		if compact(t, s, ref) {
			t.Errorf("compacted after a prompt showing %s", ref.Composition)
		}
	}
	if got := model.requests(); len(got) != 0 {
		t.Errorf("%d model calls, want none", len(got))
	}
	// After a reset the previous session is not compacted into the new one.
	if _, err := db.Accept(t.Context(), "Mynah", 999999, mynah.Intake{Chat: factsDM, Message: ptr(msg(factsDM, 61, alice, "/new")), Reset: true}); err != nil {
		t.Fatal(err)
	}
	chatter(t, db, factsDM, 62, 70, t0)
	if compact(t, s, shown(factsDM.ID, 3, 65, 70)) {
		t.Error("compacted messages of the previous session")
	}
}

func ptr[T any](v T) *T { return &v }

// TestFlushOnce: before a compaction the model gets one silent turn with only the
// remember tool, whose calls store facts; after a failed summary call the retry (by a
// restarted process) does not flush the same range again.
func TestFlushOnce(t *testing.T) {
	db := openStore(t)
	chatter(t, db, factsDM, 1, 60, t0)
	failSummary := true
	var mu sync.Mutex
	model := &scriptModel{answer: func(n int, req llm.Request) (*llm.Response, error) {
		if len(req.Tools) > 0 {
			if len(req.Turns) == 1 { // the first round: save a fact
				return &llm.Response{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "remember", Arguments: json.RawMessage(`{"message_id":29,"fact":"Keeps bees on the roof."}`)}}}, nil
			}
			return &llm.Response{}, nil
		}
		mu.Lock()
		defer mu.Unlock()
		if failSummary {
			return nil, errors.New("provider down")
		}
		return &llm.Response{Text: "SUMMARY"}, nil
	}}
	withRemember := func(c *memory.SummaryConfig) { c.Remember = memory.NewRemember(db, 0) }
	ref := shown(factsDM.ID, 1, 31, 60)
	if _, err := newSummarizer(db, model, withRemember).Compact(t.Context(), ref); err == nil {
		t.Fatal("Compact succeeded although the summary call failed")
	}
	mu.Lock()
	failSummary = false
	mu.Unlock()
	if !compact(t, newSummarizer(db, model, withRemember), ref) {
		t.Fatal("the retry wrote no summary")
	}

	flushes, _ := model.split()
	if len(flushes) != 2 { // one turn: the tool call and the answer after its result
		t.Fatalf("%d flush calls, want 2 (one flush of two rounds)", len(flushes))
	}
	f := flushes[0]
	if got := []string{f.Tools[0].Name}; len(f.Tools) != 1 || got[0] != "remember" {
		t.Errorf("the flush offers tools %v, want only remember", f.Tools)
	}
	if in := f.Turns[0].Parts[0].Text; !strings.Contains(in, "alice says 1\n") || !strings.Contains(in, "[#30 ") || strings.Contains(in, "[#31 ") {
		t.Errorf("the flush does not show exactly the messages to compact:\n%s", in)
	}
	res := flushes[1].Turns[len(flushes[1].Turns)-1].Parts[0].ToolResult
	if res == nil || res.IsError {
		t.Errorf("the remember call's result = %+v, want a success", res)
	}
	facts, _, err := db.ListFacts(t.Context(), "Mynah", alice.ID, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 || facts[0].Text != "Keeps bees on the roof." || facts[0].Chat != factsDM.ID {
		t.Errorf("facts about alice = %+v, want the one the flush saved", facts)
	}
}

// TestPeriodicDueAcrossRestart: a week summary is written once per period, also by a
// restarted summarizer, and again only when the chat was active since.
func TestPeriodicDueAcrossRestart(t *testing.T) {
	db := openStore(t)
	week := memory.Period{Every: 72 * time.Hour, Span: 7 * 24 * time.Hour}
	now := memory.PeriodEnd(week, t0).Add(time.Hour) // a day later is still the same period
	end := memory.PeriodEnd(week, now)
	chatter(t, db, factsGroup, 1, 10, end.Add(-8*time.Minute)) // 1–8 inside the period, 9 and 10 after
	chatter(t, db, factsDM, 1, 3, end.Add(-8*24*time.Hour))    // before it: a quiet chat
	model := &scriptModel{answer: summarize}
	clock := func() time.Time { return now }
	start := func() *memory.Summarizer {
		return newSummarizer(db, model, func(c *memory.SummaryConfig) { c.Rolling, c.Week, c.Now = false, week, clock })
	}
	tick := func(s *memory.Summarizer) {
		t.Helper()
		if err := s.Tick(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	tick(start())
	_, reqs := model.split()
	if len(reqs) != 1 {
		t.Fatalf("%d summary calls, want 1 (the group's week)", len(reqs))
	}
	got := latestSummary(t, db, factsGroup.ID, mynah.SummaryWeek)
	if !got.To.Equal(end) || !got.From.Equal(end.Add(-week.Span)) || got.First != 1 || got.Last != 8 {
		// messages 9 and 10 are after the period's end
		t.Errorf("week summary covers %v–%v, messages %d–%d; want %v–%v, 1–8", got.From, got.To, got.First, got.Last, end.Add(-week.Span), end)
	}

	now = now.Add(24 * time.Hour)
	tick(start()) // restarted, same period
	if _, reqs = model.split(); len(reqs) != 1 {
		t.Fatalf("after a restart in the same period: %d summary calls, want still 1", len(reqs))
	}
	now = end.Add(week.Every + time.Minute)
	s := start()
	tick(s) // the next period: messages 9 and 10 are in it
	if _, reqs = model.split(); len(reqs) != 2 {
		t.Fatalf("in the next period: %d summary calls, want 2", len(reqs))
	}
	now = now.Add(week.Every)
	tick(s) // a third period, no new messages
	if _, reqs = model.split(); len(reqs) != 2 {
		t.Errorf("without new messages: %d summary calls, want still 2", len(reqs))
	}
	if _, err := db.LatestSummary(t.Context(), "Mynah", factsDM.ID, 0, mynah.SummaryWeek); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("the quiet chat got a week summary (%v)", err)
	}
}

// TestOneSummaryPerChatAtOnce: while a summary of a chat is being written, another one of
// the same chat is skipped without calling the model.
func TestOneSummaryPerChatAtOnce(t *testing.T) {
	db := openStore(t)
	chatter(t, db, factsDM, 1, 60, t0)
	model := &scriptModel{answer: summarize, entered: make(chan struct{}), gate: make(chan struct{})}
	s := newSummarizer(db, model, nil)
	done := make(chan bool)
	go func() {
		wrote, _ := s.Compact(context.Background(), shown(factsDM.ID, 1, 31, 60))
		done <- wrote
	}()
	<-model.entered // the compaction is waiting for the model
	wrote, err := s.Period(t.Context(), factsDM.ID, mynah.SummaryWeek, t0, t0.Add(24*time.Hour))
	if err != nil || wrote {
		t.Errorf("Period during a compaction of the chat = %v, %v; want skipped", wrote, err)
	}
	if n := len(model.requests()); n != 1 {
		t.Errorf("%d model calls while the chat was busy, want 1", n)
	}
	close(model.gate)
	if !<-done {
		t.Error("the first compaction wrote nothing")
	}
	go func() { <-model.entered }()
	if wrote, err := s.Period(t.Context(), factsDM.ID, mynah.SummaryWeek, t0, t0.Add(24*time.Hour)); err != nil || !wrote {
		t.Errorf("Period after the compaction = %v, %v; want written", wrote, err)
	}
}

// TestSummaryLayer: the layer shows the month, week and rolling summaries with what they
// cover, and no rolling summary of an earlier session.
func TestSummaryLayer(t *testing.T) {
	db := openStore(t)
	chatter(t, db, factsDM, 1, 60, t0)
	add := func(s mynah.Summary) mynah.Summary {
		t.Helper()
		s.Agent, s.Chat, s.Model = "Mynah", factsDM.ID, "fake/m"
		got, _, err := db.AddSummary(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	roll := add(mynah.Summary{Kind: mynah.SummaryRolling, First: 1, Last: 30, From: t0, To: t0.Add(48 * time.Hour), Text: "They met."})
	wk := add(mynah.Summary{Kind: mynah.SummaryWeek, First: 1, Last: 60, From: t0.Add(-7 * 24 * time.Hour), To: t0.Add(72 * time.Hour), Text: "A calm week."})
	layer := memory.NewSummaryLayer(db, nil)
	q := prompt.Query{Agent: "Mynah", Chat: factsDM, Target: msg(factsDM, 60, alice, "")}
	items, err := layer.Items(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf("summary:%d|Last week: summary of messages 1–60, 22 Feb – 4 Mar 2026: A calm week.", wk.ID),
		fmt.Sprintf("summary:%d|Earlier in this conversation: summary of messages 1–30, 1 Mar – 3 Mar 2026: They met.", roll.ID),
	}
	var got []string
	for _, it := range items {
		got = append(got, it.ID+"|"+it.Text)
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("layer items (-got +want):\n%s", diff)
	}
	if _, err := db.Accept(t.Context(), "Mynah", 999999, mynah.Intake{Chat: factsDM, Message: ptr(msg(factsDM, 61, alice, "/new")), Reset: true}); err != nil {
		t.Fatal(err)
	}
	items, err = layer.Items(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if got := itemIDs(items); !cmp.Equal(got, []string{fmt.Sprintf("summary:%d", wk.ID)}) {
		t.Errorf("after a reset the layer shows %v, want only the week summary", got)
	}
}
