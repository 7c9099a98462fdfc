package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

// testBlocked: a user who blocked the bot stays blocked until unblocked, per agent.
func testBlocked(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	check := func(agent string, want bool) {
		t.Helper()
		if got, err := s.Blocked(ctx, agent, dm.ID); err != nil || got != want {
			t.Errorf("Blocked(%s) = %t, %v; want %t", agent, got, err, want)
		}
	}
	check(agentA, false)
	for _, blocked := range []bool{true, true, false, true} {
		if err := s.SetBlocked(ctx, agentA, dm.ID, blocked); err != nil {
			t.Fatal(err)
		}
		check(agentA, blocked)
		check(agentB, false)
	}
}

// testAgentsIsolated: two agents in the same chat (same chat id, own bots) never see each
// other's messages, sessions, queues or state.
func testAgentsIsolated(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	post(t, s, agentA, message(group, 1, "to ada"))
	post(t, s, agentA, message(group, 2, "to ada again"))
	bobChat := group
	bobChat.Title = "Birds (as bob saw it)"
	post(t, s, agentB, message(bobChat, 1, "to bob"))
	accept(t, s, agentB, 2, mynah.Intake{Chat: bobChat, Message: message(bobChat, 3, "/reset"), Reset: true,
		Turn: &mynah.Turn{Target: 3, Static: "Reset."}})
	if err := s.SetBlocked(ctx, agentB, group.ID, true); err != nil {
		t.Fatal(err)
	}

	if got := getMessage(t, s, agentA, group.ID, 1).Text; got != "to ada" {
		t.Errorf("ada's message 1 = %q", got)
	}
	if got := getMessage(t, s, agentB, group.ID, 1).Text; got != "to bob" {
		t.Errorf("bob's message 1 = %q", got)
	}
	if got := ids(history(t, s, agentA, group.ID, 0, 0, 10)); !cmp.Equal(got, []mynah.MessageID{1, 2}) {
		t.Errorf("ada's history = %v, want [1 2]", got)
	}
	if got := ids(history(t, s, agentB, group.ID, 0, 0, 10)); !cmp.Equal(got, []mynah.MessageID{1, 3}) {
		t.Errorf("bob's history = %v, want [1 3]", got)
	}
	if c, err := s.Chat(ctx, agentA, group.ID); err != nil || c.Title != group.Title {
		t.Errorf("ada's chat = %+v, %v; want title %q", c, err, group.Title)
	}
	if sess, err := s.Session(ctx, agentA, group.ID, 0); err != nil || sess.Start != 0 {
		t.Errorf("ada's session = %+v, %v; want Start 0", sess, err)
	}
	if sess, err := s.Session(ctx, agentB, group.ID, 0); err != nil || sess.Start != 3 {
		t.Errorf("bob's session = %+v, %v; want Start 3", sess, err)
	}
	if got := pendingTurns(t, s, agentA, 10); len(got) != 0 {
		t.Errorf("ada's turns = %+v, want none", got)
	}
	if got := pendingTurns(t, s, agentB, 10); len(got) != 1 || got[0].Agent != agentB {
		t.Errorf("bob's turns = %+v, want one of bob's", got)
	}
	if blocked, err := s.Blocked(ctx, agentA, group.ID); err != nil || blocked {
		t.Errorf("ada blocked = %t, %v; want false", blocked, err)
	}
	// A part for the turn of one agent cannot be enqueued for another.
	turn := pendingTurns(t, s, agentB, 1)[0]
	p := part(turn, 0, "Reset.")
	p.Agent = agentA
	if _, err := s.FinishTurn(ctx, turn.ID, []mynah.OutPart{p}); err == nil {
		t.Errorf("FinishTurn of bob's turn with a part for ada succeeded, want an error")
	}
}

// testRecordUsage: usage rows are accepted for any chat, including none.
func testRecordUsage(t *testing.T, b Backend) {
	s := b.Open(t)
	for _, u := range []mynah.Usage{
		{Agent: agentA, Chat: dm.ID, Model: "openai/gpt-4.1", InputTokens: 1200, OutputTokens: 80, CachedTokens: 1024, Time: at(1)},
		{Agent: agentA, Model: "anthropic/claude", InputTokens: 10, OutputTokens: 1, Time: at(2)},
		{Agent: agentB, Chat: group.ID, Model: "gemini/flash", InputTokens: 1, Time: at(3)},
	} {
		if err := s.RecordUsage(t.Context(), u); err != nil {
			t.Errorf("RecordUsage(%+v): %v", u, err)
		}
	}
}

// testCanceledContext: a cancelled caller gets its context's error, and nothing happens.
func testCanceledContext(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if ok, err := s.Accept(ctx, agentA, 1, mynah.Intake{Chat: dm, Message: message(dm, 1, "x")}); ok || !errors.Is(err, context.Canceled) {
		t.Errorf("Accept with a cancelled context = %t, %v; want context.Canceled", ok, err)
	}
	if _, err := s.History(ctx, agentA, dm.ID, 0, 0, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("History with a cancelled context: err = %v, want context.Canceled", err)
	}
	accept(t, s, agentA, 1, mynah.Intake{Chat: dm, Message: message(dm, 1, "x")})
}
