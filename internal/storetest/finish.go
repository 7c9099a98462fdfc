package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

// finish calls FinishTurn or fails the test, and returns the parts it returned.
func finish(t *testing.T, s mynah.Store, turnID int64, parts []mynah.OutPart) []mynah.OutPart {
	t.Helper()
	got, err := s.FinishTurn(t.Context(), turnID, parts)
	if err != nil {
		t.Fatalf("FinishTurn(%d): %v", turnID, err)
	}
	return got
}

// testFinishTurnReturnsParts: FinishTurn returns the parts it enqueued as stored, with
// their ids and in the given order, so the runtime can deliver them without reading the
// outbox again.
func testFinishTurnReturnsParts(t *testing.T, b Backend) {
	s := b.Open(t)
	turns := queueTurns(t, s, agentA, group, 1, 2)
	// The second part leaves chat, thread and agent to the turn; the third comes first in
	// key order but last in the given order.
	defaults := part(turns[0], 1, "two")
	defaults.Agent, defaults.Chat, defaults.ThreadID = "", 0, 0
	parts := []mynah.OutPart{part(turns[0], 0, "one"), defaults, part(turns[0], 9, "ten")}
	parts[2].Key = "a-first-in-key-order"

	got := finish(t, s, turns[0].ID, parts)
	want := slices.Clone(parts)
	want[1].Agent, want[1].Chat, want[1].ThreadID = agentA, turns[0].Chat, turns[0].ThreadID
	if diff := cmp.Diff(got, want, cmpOpts, ignorePartID); diff != "" {
		t.Errorf("FinishTurn returned (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(got, pendingParts(t, s, agentA, 10), cmpOpts); diff != "" {
		t.Errorf("FinishTurn returned other parts than PendingParts (-got +want):\n%s", diff)
	}
	if len(got) == 3 && !(got[0].ID != 0 && got[0].ID < got[1].ID && got[1].ID < got[2].ID) {
		t.Errorf("returned part ids %d, %d, %d: want assigned and increasing", got[0].ID, got[1].ID, got[2].ID)
	}

	// A turn finished without parts (superseded) returns none.
	if got := finish(t, s, turns[1].ID, nil); len(got) != 0 {
		t.Errorf("FinishTurn without parts returned %+v, want none", got)
	}
}

// testFinishTurnReturnsPending: finishing again (a retry after a crash) returns the same
// parts as stored, in the order given this time, leaving out those already sent or
// failed and those never enqueued.
func testFinishTurnReturnsPending(t *testing.T, b Backend) {
	s := b.Open(t)
	turn := queueTurns(t, s, agentA, dm, 1)[0]
	parts := []mynah.OutPart{part(turn, 0, "one"), part(turn, 1, "two"), part(turn, 2, "three"), part(turn, 3, "four")}
	first := finish(t, s, turn.ID, parts)
	if len(first) != len(parts) {
		t.Fatalf("FinishTurn returned %d parts, want %d", len(first), len(parts))
	}
	if diff := cmp.Diff(finish(t, s, turn.ID, parts), first, cmpOpts); diff != "" {
		t.Errorf("second FinishTurn (-got +want):\n%s", diff)
	}
	reversed := slices.Clone(parts)
	slices.Reverse(reversed)
	wantReversed := slices.Clone(first)
	slices.Reverse(wantReversed)
	if diff := cmp.Diff(finish(t, s, turn.ID, reversed), wantReversed, cmpOpts); diff != "" {
		t.Errorf("FinishTurn with the parts reversed (-got +want):\n%s", diff)
	}

	if err := s.MarkSent(t.Context(), first[0].ID, mynah.Message{ID: 2, Sender: bot, Time: at(2), Text: "one"}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkFailed(t.Context(), first[2].ID, "Forbidden: bot was blocked by the user"); err != nil {
		t.Fatal(err)
	}
	// The turn is done: a part not enqueued before is not enqueued now, nor returned.
	late := part(turn, 4, "five")
	got := finish(t, s, turn.ID, append(slices.Clone(parts), late))
	if diff := cmp.Diff(got, []mynah.OutPart{first[1], first[3]}, cmpOpts); diff != "" {
		t.Errorf("FinishTurn after one part was sent and one failed (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(pendingParts(t, s, agentA, 10), []mynah.OutPart{first[1], first[3]}, cmpOpts); diff != "" {
		t.Errorf("PendingParts (-got +want):\n%s", diff)
	}
}

// testFinishTurnReturnsStored: a part whose key is already enqueued comes back as stored,
// not as given, and a key given twice comes back once.
func testFinishTurnReturnsStored(t *testing.T, b Backend) {
	s := b.Open(t)
	turns := queueTurns(t, s, agentA, dm, 1, 2)
	p1 := part(turns[0], 0, "first")
	stored := finish(t, s, turns[0].ID, []mynah.OutPart{p1})

	p2, again := part(turns[1], 0, "second"), part(turns[1], 1, "given twice")
	p2.Key = p1.Key
	dup := again
	dup.Plain, dup.HTML = "the copy", "<i>the copy</i>"
	got := finish(t, s, turns[1].ID, []mynah.OutPart{p2, again, dup})
	if len(got) != 2 {
		t.Fatalf("FinishTurn returned %+v, want two parts", got)
	}
	if diff := cmp.Diff(got[0], stored[0], cmpOpts); diff != "" {
		t.Errorf("part of an enqueued key (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(got[1], again, cmpOpts, ignorePartID); diff != "" {
		t.Errorf("part given twice (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(pendingParts(t, s, agentA, 10), got, cmpOpts); diff != "" {
		t.Errorf("PendingParts (-got +want):\n%s", diff)
	}
}

// finisher is the optional one-transaction finish (see mynah.TurnOutcome).
type finisher interface {
	FinishTurnWith(ctx context.Context, turnID int64, o mynah.TurnOutcome) ([]mynah.OutPart, error)
}

// testFinishTurnWith: a store that finishes a turn with its whole outcome enqueues the
// parts as FinishTurn does and records the prompt (found by the reply once sent);
// finishing again (a retry whose answer was lost) records nothing twice. Skipped for a
// store without FinishTurnWith.
func testFinishTurnWith(t *testing.T, b Backend) {
	s := b.Open(t)
	f, ok := s.(finisher)
	if !ok {
		t.Skip("the store has no FinishTurnWith")
	}
	turn := queueTurns(t, s, agentA, group, 10)[0]
	parts := []mynah.OutPart{part(turn, 0, "one"), part(turn, 1, "two")}
	comp := []byte(`{"tokens":42}`)
	o := mynah.TurnOutcome{
		Parts:  parts,
		Usage:  []mynah.Usage{{Agent: agentA, Chat: group.ID, Model: "openai/m", InputTokens: 42, OutputTokens: 2, Time: at(11)}},
		Prompt: &mynah.PromptRecord{Agent: agentA, Chat: group.ID, Turn: turn.ID, Model: "openai/m", Composition: comp, Time: at(11)},
	}
	got, err := f.FinishTurnWith(t.Context(), turn.ID, o)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, parts, cmpOpts, ignorePartID); diff != "" {
		t.Errorf("FinishTurnWith returned (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(pendingParts(t, s, agentA, 10), got, cmpOpts); diff != "" {
		t.Errorf("PendingParts after FinishTurnWith (-got +want):\n%s", diff)
	}
	if got := pendingTurns(t, s, agentA, 10); len(got) != 0 {
		t.Errorf("PendingTurns after FinishTurnWith = %+v, want none", got)
	}
	again, err := f.FinishTurnWith(t.Context(), turn.ID, mynah.TurnOutcome{Parts: parts,
		Prompt: &mynah.PromptRecord{Agent: agentA, Chat: group.ID, Turn: turn.ID, Model: "openai/other", Composition: []byte(`{}`)}})
	if err != nil {
		t.Fatalf("finishing again: %v", err)
	}
	if diff := cmp.Diff(again, got, cmpOpts); diff != "" {
		t.Errorf("finishing again returned (-got +want):\n%s", diff)
	}
	if err := s.MarkSent(t.Context(), got[0].ID, mynah.Message{Chat: group, ID: 11, Sender: bot, Time: at(11), Text: "one"}); err != nil {
		t.Fatal(err)
	}
	rec, err := s.PromptForReply(t.Context(), agentA, group.ID, 11)
	if err != nil {
		t.Fatalf("PromptForReply: %v", err)
	}
	if rec.Turn != turn.ID || rec.Model != "openai/m" || string(rec.Composition) != string(comp) {
		t.Errorf("prompt record = turn %d, %s, %s; want turn %d, openai/m, %s (the first finish's)", rec.Turn, rec.Model, rec.Composition, turn.ID, comp)
	}
}
