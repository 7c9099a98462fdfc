package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mynah-ai/mynah"
)

func rolling(chat mynah.ChatID, thread int64, first, last int) mynah.Summary {
	return mynah.Summary{Agent: agentA, Chat: chat, Thread: thread, Kind: mynah.SummaryRolling,
		First: mynah.MessageID(first), Last: mynah.MessageID(last), From: at(first), To: at(last),
		Text: fmt.Sprintf("They talked about birds (messages %d to %d).", first, last), Model: "openai/gpt-test", Created: at(1000 + last)}
}

func periodic(chat mynah.ChatID, kind mynah.SummaryKind, end time.Time, days int) mynah.Summary {
	return mynah.Summary{Agent: agentA, Chat: chat, Kind: kind, First: 1, Last: 9,
		From: end.AddDate(0, 0, -days), To: end, Text: fmt.Sprintf("The %s up to %s.", kind, end.Format(time.DateOnly)),
		Model: "openai/gpt-test", Created: end.Add(time.Minute)}
}

func addSummary(t *testing.T, s mynah.Summaries, sum mynah.Summary, wantAdded bool) mynah.Summary {
	t.Helper()
	got, added, err := s.AddSummary(t.Context(), sum)
	if err != nil {
		t.Fatalf("AddSummary(%s %d–%d): %v", sum.Kind, sum.First, sum.Last, err)
	}
	if added != wantAdded {
		t.Fatalf("AddSummary(%s %d–%d) added = %v, want %v", sum.Kind, sum.First, sum.Last, added, wantAdded)
	}
	return got
}

func latest(t *testing.T, s mynah.Summaries, chat mynah.ChatID, thread int64, kind mynah.SummaryKind) mynah.Summary {
	t.Helper()
	got, err := s.LatestSummary(t.Context(), agentA, chat, thread, kind)
	if err != nil {
		t.Fatalf("LatestSummary(%d, thread %d, %s): %v", chat, thread, kind, err)
	}
	return got
}

func claimFlush(t *testing.T, s mynah.Summaries, chat mynah.ChatID, thread int64, first mynah.MessageID, want bool) {
	t.Helper()
	got, err := s.ClaimFlush(t.Context(), agentA, chat, thread, first, at(5000))
	if err != nil {
		t.Fatalf("ClaimFlush(%d, %d, %d): %v", chat, thread, first, err)
	}
	if got != want {
		t.Errorf("ClaimFlush(%d, thread %d, from %d) = %v, want %v", chat, thread, first, got, want)
	}
}

// testSummaryRoundTrip: a summary comes back as stored, with its id.
func testSummaryRoundTrip(t *testing.T, b Backend) {
	s := b.Open(t)
	want := rolling(group.ID, 7, 3, 120)
	got := addSummary(t, s, want, true)
	if got.ID == 0 {
		t.Error("AddSummary returned no id")
	}
	want.ID = got.ID
	if diff := cmp.Diff(got, want, cmpOpts); diff != "" {
		t.Errorf("AddSummary returned (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(latest(t, s, group.ID, 7, mynah.SummaryRolling), want, cmpOpts); diff != "" {
		t.Errorf("LatestSummary (-got +want):\n%s", diff)
	}
}

// testSummaryIdempotent: writing the same summary twice (two processes, or a retry after a
// crash) stores it once and returns the first.
func testSummaryIdempotent(t *testing.T, b Backend) {
	s := b.Open(t)
	first := addSummary(t, s, rolling(dm.ID, 0, 1, 50), true)
	again := rolling(dm.ID, 0, 1, 50)
	again.Text = "a second wording"
	if got := addSummary(t, s, again, false); !cmp.Equal(got, first, cmpOpts) {
		t.Errorf("second AddSummary returned %+v, want the first %+v", got, first)
	}
	end := t0.AddDate(0, 0, 7)
	week := addSummary(t, s, periodic(dm.ID, mynah.SummaryWeek, end, 7), true)
	dup := periodic(dm.ID, mynah.SummaryWeek, end, 7)
	dup.Last = 12
	if got := addSummary(t, s, dup, false); !cmp.Equal(got, week, cmpOpts) {
		t.Errorf("second week summary of one period returned %+v, want the first %+v", got, week)
	}
	// The same period end of another kind is another summary.
	addSummary(t, s, periodic(dm.ID, mynah.SummaryMonth, end, 30), true)
}

// testSummaryLatest: the latest of each kind, per chat and topic, per agent.
func testSummaryLatest(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	if _, err := s.LatestSummary(ctx, agentA, group.ID, 0, mynah.SummaryRolling); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("LatestSummary of a chat without summaries: %v, want ErrNotFound", err)
	}
	addSummary(t, s, rolling(group.ID, 0, 1, 40), true)
	newer := addSummary(t, s, rolling(group.ID, 0, 1, 90), true)
	topic := addSummary(t, s, rolling(group.ID, 5, 2, 95), true)
	end := t0.AddDate(0, 0, 10)
	addSummary(t, s, periodic(group.ID, mynah.SummaryWeek, end.AddDate(0, 0, -3), 7), true)
	week := addSummary(t, s, periodic(group.ID, mynah.SummaryWeek, end, 7), true)
	month := addSummary(t, s, periodic(group.ID, mynah.SummaryMonth, end.AddDate(0, 0, -1), 30), true)
	for _, c := range []struct {
		thread int64
		kind   mynah.SummaryKind
		want   mynah.Summary
	}{
		{0, mynah.SummaryRolling, newer},
		{5, mynah.SummaryRolling, topic},
		{0, mynah.SummaryWeek, week},
		{0, mynah.SummaryMonth, month},
	} {
		if got := latest(t, s, group.ID, c.thread, c.kind); !cmp.Equal(got, c.want, cmpOpts) {
			t.Errorf("LatestSummary(thread %d, %s) = %+v, want %+v", c.thread, c.kind, got, c.want)
		}
	}
	if _, err := s.LatestSummary(ctx, agentB, group.ID, 0, mynah.SummaryRolling); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("another agent's LatestSummary: %v, want ErrNotFound", err)
	}
}

// testSummaryInvalid: a summary without what identifies it is refused.
func testSummaryInvalid(t *testing.T, b Backend) {
	s := b.Open(t)
	for name, mod := range map[string]func(*mynah.Summary){
		"no agent":     func(s *mynah.Summary) { s.Agent = "" },
		"no chat":      func(s *mynah.Summary) { s.Chat = 0 },
		"no text":      func(s *mynah.Summary) { s.Text = "  " },
		"no last":      func(s *mynah.Summary) { s.Last = 0 },
		"unknown kind": func(s *mynah.Summary) { s.Kind = "year" },
		"first › last": func(s *mynah.Summary) { s.First = 200 },
	} {
		sum := rolling(dm.ID, 0, 1, 50)
		mod(&sum)
		if _, _, err := s.AddSummary(t.Context(), sum); err == nil {
			t.Errorf("AddSummary with %s succeeded, want an error", name)
		}
	}
}

// testFlushOnce: the memory flush of one compaction is claimed once.
func testFlushOnce(t *testing.T, b Backend) {
	s := b.Open(t)
	claimFlush(t, s, dm.ID, 0, 1, true)
	claimFlush(t, s, dm.ID, 0, 1, false)
	claimFlush(t, s, dm.ID, 0, 51, true)
	claimFlush(t, s, dm.ID, 3, 1, true)
	claimFlush(t, s, group.ID, 0, 1, true)
}

// testSummariesDue: a chat is due for the period ending at end when it was active since
// its last summary of that kind and within the period.
func testSummariesDue(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	quiet := mynah.Chat{ID: 77, Type: mynah.ChatPrivate}
	for i := 1; i <= 3; i++ {
		post(t, s, agentA, message(dm, i, "hello"))    // at(1..3)
		post(t, s, agentA, message(group, i, "chirp")) // at(1..3)
		post(t, s, agentA, &mynah.Message{Chat: quiet, ID: mynah.MessageID(i), Sender: carol, Time: t0.AddDate(0, 0, -20), Text: "old"})
	}
	due := func(kind mynah.SummaryKind, end, since time.Time) []mynah.ChatID {
		t.Helper()
		got, err := s.SummariesDue(ctx, agentA, kind, end, since, 10)
		if err != nil {
			t.Fatalf("SummariesDue: %v", err)
		}
		return got
	}
	sortIDs := cmpopts.SortSlices(func(a, b mynah.ChatID) bool { return a < b })
	end := t0.Add(time.Hour)
	if got, want := due(mynah.SummaryWeek, end, end.AddDate(0, 0, -7)), []mynah.ChatID{group.ID, dm.ID}; !cmp.Equal(got, want, sortIDs) {
		t.Errorf("due before any summary = %v, want %v (the quiet chat has nothing in the week)", got, want)
	}
	addSummary(t, s, periodic(dm.ID, mynah.SummaryWeek, end, 7), true)
	if got, want := due(mynah.SummaryWeek, end, end.AddDate(0, 0, -7)), []mynah.ChatID{group.ID}; !cmp.Equal(got, want, sortIDs) {
		t.Errorf("due after the dm's week summary = %v, want %v", got, want)
	}
	if got, want := due(mynah.SummaryMonth, end, end.AddDate(0, 0, -30)), []mynah.ChatID{group.ID, dm.ID, quiet.ID}; !cmp.Equal(got, want, sortIDs) {
		t.Errorf("month summaries due = %v, want %v", got, want)
	}
	// The next period: due only with messages after the last summary.
	next := end.AddDate(0, 0, 3)
	if got := due(mynah.SummaryWeek, next, next.AddDate(0, 0, -7)); containsChat(got, dm.ID) {
		t.Errorf("dm due again without new messages: %v", got)
	}
	post(t, s, agentA, &mynah.Message{Chat: dm, ID: 10, Sender: alice, Time: end.Add(time.Hour), Text: "back"})
	if got := due(mynah.SummaryWeek, next, next.AddDate(0, 0, -7)); !containsChat(got, dm.ID) {
		t.Errorf("dm not due after a new message: %v", got)
	}
	if got, err := s.SummariesDue(ctx, agentB, mynah.SummaryWeek, end, end.AddDate(0, 0, -7), 10); err != nil || len(got) != 0 {
		t.Errorf("another agent's due chats = %v, %v; want none", got, err)
	}
}

func containsChat(ids []mynah.ChatID, id mynah.ChatID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// testMessagesBetween: an open id range of a chat or topic, oldest first, limited.
func testMessagesBetween(t *testing.T, b Backend) {
	s := b.Open(t)
	for i := 1; i <= 20; i++ {
		m := message(group, i, fmt.Sprintf("m%d", i))
		if i%2 == 0 {
			m.ThreadID = 5
		}
		post(t, s, agentA, m)
	}
	between := func(thread int64, after, before, limit int) []mynah.MessageID {
		t.Helper()
		got, err := s.MessagesBetween(t.Context(), agentA, group.ID, thread, mynah.MessageID(after), mynah.MessageID(before), limit)
		if err != nil {
			t.Fatalf("MessagesBetween: %v", err)
		}
		return ids(got)
	}
	for _, c := range []struct {
		thread               int64
		after, before, limit int
		want                 []mynah.MessageID
	}{
		{0, 3, 8, 100, []mynah.MessageID{4, 5, 6, 7}},
		{0, 3, 8, 2, []mynah.MessageID{4, 5}},
		{5, 3, 12, 100, []mynah.MessageID{4, 6, 8, 10}},
		{0, 7, 8, 100, nil},
		{0, 0, 100, 0, nil},
	} {
		if got := between(c.thread, c.after, c.before, c.limit); !cmp.Equal(got, c.want, cmpopts.EquateEmpty()) {
			t.Errorf("MessagesBetween(thread %d, %d, %d, limit %d) = %v, want %v", c.thread, c.after, c.before, c.limit, got, c.want)
		}
	}
}

// testMessagesInPeriod: the messages of a period, found walking back from the newest.
func testMessagesInPeriod(t *testing.T, b Backend) {
	s := b.Open(t)
	for i := 1; i <= 500; i++ {
		post(t, s, agentA, &mynah.Message{Chat: dm, ID: mynah.MessageID(i), Sender: alice, Time: t0.Add(time.Duration(i) * time.Hour), Text: "x"})
	}
	period := func(from, to, limit int) []mynah.MessageID {
		t.Helper()
		got, err := s.MessagesInPeriod(t.Context(), agentA, dm.ID, t0.Add(time.Duration(from)*time.Hour), t0.Add(time.Duration(to)*time.Hour), limit)
		if err != nil {
			t.Fatalf("MessagesInPeriod: %v", err)
		}
		return ids(got)
	}
	if got, want := period(10, 14, 100), []mynah.MessageID{11, 12, 13, 14}; !cmp.Equal(got, want) {
		t.Errorf("MessagesInPeriod(10h, 14h] = %v, want %v", got, want)
	}
	if got, want := period(10, 14, 2), []mynah.MessageID{13, 14}; !cmp.Equal(got, want) {
		t.Errorf("MessagesInPeriod(10h, 14h], limit 2 = %v, want the newest %v", got, want)
	}
	if got := period(490, 1000, 100); len(got) != 10 || got[0] != 491 || got[9] != 500 {
		t.Errorf("MessagesInPeriod(490h, …] = %v, want 491…500", got)
	}
	if got := period(600, 700, 100); len(got) != 0 {
		t.Errorf("MessagesInPeriod of an empty period = %v", got)
	}
}

// testPromptsAfter: prompt records after a turn, in turn order, with their topic.
func testPromptsAfter(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	msg := message(group, 30, "in a topic")
	msg.ThreadID = 5
	accept(t, s, agentA, 1, mynah.Intake{Chat: group, Message: msg, Turn: &mynah.Turn{Target: 30, ThreadID: 5, Created: msg.Time}})
	turns := queueTurns(t, s, agentA, dm, 31, 32)
	if len(turns) != 3 {
		t.Fatalf("queued %d turns, want 3", len(turns))
	}
	for i, turn := range turns {
		recordPrompt(t, s, promptRecord(turn, "openai/gpt-test", "hi", i))
	}
	if last, err := s.LastTurn(ctx, agentA); err != nil || last != turns[2].ID {
		t.Errorf("LastTurn = %d, %v; want %d", last, err, turns[2].ID)
	}
	got, err := s.PromptsAfter(ctx, agentA, turns[0].ID-1, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []mynah.PromptRef{
		{Turn: turns[0].ID, Chat: group.ID, Thread: 5, Composition: promptRecord(turns[0], "", "hi", 0).Composition},
		{Turn: turns[1].ID, Chat: dm.ID, Composition: promptRecord(turns[1], "", "hi", 1).Composition},
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("PromptsAfter (-got +want):\n%s", diff)
	}
	if got, err := s.PromptsAfter(ctx, agentA, turns[2].ID, 10); err != nil || len(got) != 0 {
		t.Errorf("PromptsAfter the last turn = %v, %v; want none", got, err)
	}
	if last, err := s.LastTurn(ctx, agentB); err != nil || last != 0 {
		t.Errorf("LastTurn of an agent without prompts = %d, %v; want 0", last, err)
	}
}

// testHasSummaries: a chat has summaries once one of either family (rolling, periodic)
// is stored, for its agent only.
func testHasSummaries(t *testing.T, b Backend) {
	s := b.Open(t)
	has := func(agent string, chat mynah.ChatID) bool {
		t.Helper()
		ok, err := s.HasSummaries(t.Context(), agent, chat)
		if err != nil {
			t.Fatalf("HasSummaries(%s, %d): %v", agent, chat, err)
		}
		return ok
	}
	if has(agentA, group.ID) || has(agentA, dm.ID) {
		t.Fatal("HasSummaries before any summary: want false")
	}
	addSummary(t, s, periodic(dm.ID, mynah.SummaryWeek, t0.AddDate(0, 0, 7), 7), true)
	addSummary(t, s, rolling(group.ID, 5, 1, 40), true)
	if !has(agentA, group.ID) || !has(agentA, dm.ID) {
		t.Error("HasSummaries after a rolling and a periodic summary: want true for both chats")
	}
	if has(agentB, group.ID) {
		t.Error("another agent's HasSummaries: want false")
	}
}

// testSummariesSurviveReopen: summaries and claimed flushes outlive a restart.
func testSummariesSurviveReopen(t *testing.T, b Backend) {
	if b.Reopen == nil {
		t.Skip("backend has no Reopen")
	}
	s := b.Open(t)
	sum := addSummary(t, s, rolling(group.ID, 0, 1, 40), true)
	claimFlush(t, s, group.ID, 0, 1, true)
	re := b.Reopen(t, s)
	if got := latest(t, re, group.ID, 0, mynah.SummaryRolling); !cmp.Equal(got, sum, cmpOpts) {
		t.Errorf("after reopen, latest rolling summary = %+v, want %+v", got, sum)
	}
	claimFlush(t, re, group.ID, 0, 1, false)
}
