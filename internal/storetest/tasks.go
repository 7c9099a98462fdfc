package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mynah-ai/mynah"
)

// testPlanRoundTrip: every kind of task comes back from the outbox as it was planned,
// with its dependencies, and a static turn keeps its keyboard and edit target.
func testPlanRoundTrip(t *testing.T, b Backend) {
	s := b.Open(t)
	keyboard := [][]mynah.Button{{{Text: "◀", Data: "mem:p:1:42"}, {Text: "▶", Data: "mem:p:3:42"}}}
	accept(t, s, agentA, 1, mynah.Intake{Chat: dm, Message: message(dm, 1, "hi"),
		Turn: &mynah.Turn{Target: 1, Static: "page 2", Buttons: keyboard, Edit: 9, Created: at(1)}})
	turn := pendingTurns(t, s, agentA, 10)[0]
	if diff := cmp.Diff(turn.Buttons, keyboard); diff != "" || turn.Edit != 9 {
		t.Errorf("static turn keyboard (-got +want):\n%s\nedit %d, want 9", diff, turn.Edit)
	}
	plan := []mynah.OutPart{
		{Key: "p/0", Kind: mynah.TaskReact, Emoji: "👍", Target: 1, Created: at(2)},
		{Key: "p/1", Kind: mynah.TaskWait, Wait: 1500 * time.Millisecond, DependsOn: []string{"p/0"}, Created: at(2)},
		{Key: "p/2", HTML: "<b>hi</b>", Plain: "hi", ReplyTo: 1, Buttons: keyboard, DependsOn: []string{"p/1"}, Created: at(2)},
		{Key: "p/3", Kind: mynah.TaskSticker, StickerSet: "MrRibbit", Emoji: "💻", Created: at(2)},
		{Key: "p/4", Kind: mynah.TaskSchedule, Plain: "drink water", At: at(3600), Created: at(2)},
		{Key: "p/5", Plain: "page 3", Edit: 7, Created: at(2)},
	}
	got, err := s.FinishTurn(t.Context(), turn.ID, plan)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]mynah.OutPart, len(plan))
	for i, p := range plan {
		p.Agent, p.Chat = agentA, dm.ID
		want[i] = p
	}
	if diff := cmp.Diff(got, want, cmpOpts, ignorePartID); diff != "" {
		t.Errorf("FinishTurn (-got +want):\n%s", diff)
	}
	pending := pendingParts(t, s, agentA, 10)
	if diff := cmp.Diff(pending, want, cmpOpts, ignorePartID); diff != "" {
		t.Errorf("PendingParts (-got +want):\n%s", diff)
	}
	for _, p := range append(got, pending...) {
		if p.TurnID != turn.ID {
			t.Errorf("part %s: TurnID %d, want the turn's %d", p.Key, p.TurnID, turn.ID)
		}
	}
}

// testMarkDone: a task that sends nothing leaves the outbox when done; a schedule queues
// its reminder in the same step, which stays out of the queue until due, and marking the
// part again queues nothing more.
func testMarkDone(t *testing.T, b Backend) {
	s := b.Open(t)
	accept(t, s, agentA, 1, mynah.Intake{Chat: dm, Message: message(dm, 1, "remind me"),
		Turn: &mynah.Turn{Target: 1, Created: at(1)}})
	turn := pendingTurns(t, s, agentA, 10)[0]
	parts, err := s.FinishTurn(t.Context(), turn.ID, []mynah.OutPart{
		{Key: "r/0", Kind: mynah.TaskReact, Emoji: "👍", Target: 1},
		{Key: "r/1", Kind: mynah.TaskSchedule, Plain: "drink water", At: at(3600)},
	})
	if err != nil || len(parts) != 2 {
		t.Fatalf("FinishTurn = %v, %v", parts, err)
	}
	if err := s.MarkDone(t.Context(), parts[0].ID, nil); err != nil {
		t.Fatal(err)
	}
	due := at(3600)
	reminder := &mynah.Turn{Static: "drink water", Due: due, Created: at(2)}
	for range 2 {
		if err := s.MarkDone(t.Context(), parts[1].ID, reminder); err != nil {
			t.Fatal(err)
		}
	}
	if left := pendingParts(t, s, agentA, 10); len(left) != 0 {
		t.Errorf("PendingParts after MarkDone = %+v, want none", left)
	}
	before, err := s.PendingTurns(t.Context(), agentA, due.Add(-time.Millisecond), 10)
	if err != nil || len(before) != 0 {
		t.Errorf("PendingTurns before the reminder is due = %+v, %v; want none", before, err)
	}
	next, err := s.NextDue(t.Context(), agentA, at(10))
	if err != nil || !next.Equal(due) {
		t.Errorf("NextDue = %v, %v; want %v", next, err, due)
	}
	if next, err := s.NextDue(t.Context(), agentB, at(10)); err != nil || !next.IsZero() {
		t.Errorf("another agent's NextDue = %v, %v; want zero", next, err)
	}
	after, err := s.PendingTurns(t.Context(), agentA, due, 10)
	if err != nil || len(after) != 1 || after[0].Static != "drink water" || after[0].Chat != dm.ID || !after[0].Due.Equal(due) {
		t.Fatalf("PendingTurns once due = %+v, %v; want the one reminder in the chat", after, err)
	}
	if next, err := s.NextDue(t.Context(), agentA, due); err != nil || !next.IsZero() {
		t.Errorf("NextDue once due = %v, %v; want zero", next, err)
	}
}

// testRetryPart: failed attempts are counted per part and survive in the stored part.
func testRetryPart(t *testing.T, b Backend) {
	s := b.Open(t)
	accept(t, s, agentA, 1, mynah.Intake{Chat: dm, Message: message(dm, 1, "hi"),
		Turn: &mynah.Turn{Target: 1, Created: at(1)}})
	turn := pendingTurns(t, s, agentA, 10)[0]
	parts, err := s.FinishTurn(t.Context(), turn.ID, []mynah.OutPart{part(turn, 0, "hello")})
	if err != nil {
		t.Fatal(err)
	}
	for want := 1; want <= 3; want++ {
		n, err := s.RetryPart(t.Context(), parts[0].ID, "connection reset")
		if err != nil || n != want {
			t.Fatalf("RetryPart = %d, %v; want %d", n, err, want)
		}
	}
	if got := pendingParts(t, s, agentA, 10); len(got) != 1 || got[0].Attempts != 3 {
		t.Errorf("PendingParts = %+v, want the part with 3 attempts", got)
	}
	if _, err := s.RetryPart(t.Context(), 987654, "x"); err == nil {
		t.Error("RetryPart of an unknown part: want an error")
	}
}

// testSetPreview: the message previewing a turn's answer is kept with the turn, so a
// retried turn finds it; an unknown turn is not found.
func testSetPreview(t *testing.T, b Backend) {
	s := b.Open(t)
	accept(t, s, agentA, 1, mynah.Intake{Chat: group, Message: message(group, 1, "@bot hi"),
		Turn: &mynah.Turn{Target: 1, ReplyTo: 1, Created: at(1)}})
	turn := pendingTurns(t, s, agentA, 10)[0]
	if err := s.SetPreview(t.Context(), turn.ID, 55); err != nil {
		t.Fatal(err)
	}
	if got := pendingTurns(t, s, agentA, 10); len(got) != 1 || got[0].Preview != 55 {
		t.Errorf("PendingTurns = %+v, want the turn with preview 55", got)
	}
	if err := s.SetPreview(t.Context(), 987654, 1); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("SetPreview of an unknown turn = %v, want ErrNotFound", err)
	}
}
