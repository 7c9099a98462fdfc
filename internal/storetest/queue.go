package storetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mynah-ai/mynah"
)

// queueTurns accepts one message with a turn per target in chat and returns the pending
// turns, oldest first.
func queueTurns(t *testing.T, s mynah.Store, agent string, chat mynah.Chat, targets ...int) []mynah.Turn {
	t.Helper()
	for _, id := range targets {
		msg := message(chat, id, fmt.Sprintf("question %d", id))
		update := int64(chat.ID)*1_000_000_000 + int64(id)
		accept(t, s, agent, update, mynah.Intake{Chat: chat, Message: msg,
			Turn: &mynah.Turn{Target: msg.ID, ReplyTo: msg.ID, Created: msg.Time}})
	}
	return pendingTurns(t, s, agent, 100)
}

// part returns a part of the turn with the conventional key.
func part(turn mynah.Turn, i int, text string) mynah.OutPart {
	return mynah.OutPart{Agent: turn.Agent, Chat: turn.Chat, ThreadID: turn.ThreadID,
		Key: fmt.Sprintf("turn-%d-%d", turn.ID, i), HTML: "<b>" + text + "</b>", Plain: text,
		ReplyTo: turn.Target, Created: at(1000 + i)}
}

// ignorePartID ignores what the store assigns: the part id and its turn (checked where it matters).
var ignorePartID = cmpopts.IgnoreFields(mynah.OutPart{}, "ID", "TurnID")

// testTurnQueue: queued turns come back oldest first with what was queued, and leave the
// queue when finished.
func testTurnQueue(t *testing.T, b Backend) {
	s := b.Open(t)
	static := message(group, 3, "/help")
	static.ThreadID = 7
	accept(t, s, agentA, 1, mynah.Intake{Chat: group, Message: message(group, 1, "first")})
	accept(t, s, agentA, 2, mynah.Intake{Chat: group, Message: message(group, 2, "second"),
		Turn: &mynah.Turn{Target: 2, ReplyTo: 2, Created: at(2)}})
	accept(t, s, agentA, 3, mynah.Intake{Chat: group, Message: static,
		Turn: &mynah.Turn{ThreadID: 7, Target: 3, Static: "Commands: /reset", ReplyTo: 3, Created: at(3)}})
	accept(t, s, agentA, 4, mynah.Intake{Chat: dm, Message: message(dm, 4, "private"),
		Turn: &mynah.Turn{Target: 4, Created: at(4), NotBefore: at(5)}})

	got := pendingTurns(t, s, agentA, 10)
	want := []mynah.Turn{
		{Agent: agentA, Chat: group.ID, Target: 2, ReplyTo: 2, Created: at(2)},
		{Agent: agentA, Chat: group.ID, ThreadID: 7, Target: 3, Static: "Commands: /reset", ReplyTo: 3, Created: at(3)},
		{Agent: agentA, Chat: dm.ID, Target: 4, Created: at(4), NotBefore: at(5)}, // held back until then
	}
	if diff := cmp.Diff(got, want, cmpOpts, cmpopts.IgnoreFields(mynah.Turn{}, "ID")); diff != "" {
		t.Fatalf("PendingTurns (-got +want):\n%s", diff)
	}
	if !(got[0].ID < got[1].ID && got[1].ID < got[2].ID) || got[0].ID == 0 {
		t.Errorf("turn ids %d, %d, %d: want assigned and increasing", got[0].ID, got[1].ID, got[2].ID)
	}
	if first := pendingTurns(t, s, agentA, 2); len(first) != 2 || first[0].ID != got[0].ID || first[1].ID != got[1].ID {
		t.Errorf("PendingTurns(limit 2) = %+v, want the two oldest", first)
	}
	if _, err := s.FinishTurn(t.Context(), got[1].ID, []mynah.OutPart{part(got[1], 0, "Commands: /reset")}); err != nil {
		t.Fatal(err)
	}
	left := pendingTurns(t, s, agentA, 10)
	if len(left) != 2 || left[0].ID != got[0].ID || left[1].ID != got[2].ID {
		t.Errorf("PendingTurns after finishing the second = %+v, want the first and third", left)
	}
	if got := pendingTurns(t, s, agentB, 10); len(got) != 0 {
		t.Errorf("another agent's PendingTurns = %+v, want none", got)
	}
}

// testFinishTurnIdempotent: finishing a turn twice (a crash between FinishTurn and its
// acknowledgement) enqueues its parts once.
func testFinishTurnIdempotent(t *testing.T, b Backend) {
	s := b.Open(t)
	turn := queueTurns(t, s, agentA, dm, 1)[0]
	parts := []mynah.OutPart{part(turn, 0, "one"), part(turn, 1, "two")}
	for range 2 {
		if _, err := s.FinishTurn(t.Context(), turn.ID, parts); err != nil {
			t.Fatal(err)
		}
	}
	// A third finish with other parts is a no-op too: the turn is done.
	if _, err := s.FinishTurn(t.Context(), turn.ID, []mynah.OutPart{part(turn, 2, "three")}); err != nil {
		t.Fatal(err)
	}
	got := pendingParts(t, s, agentA, 10)
	if diff := cmp.Diff(got, parts, cmpOpts, ignorePartID); diff != "" {
		t.Errorf("PendingParts (-got +want):\n%s", diff)
	}
	if len(got) == 2 && !(got[0].ID != 0 && got[0].ID < got[1].ID) {
		t.Errorf("part ids %d, %d: want assigned and increasing", got[0].ID, got[1].ID)
	}
	if left := pendingTurns(t, s, agentA, 10); len(left) != 0 {
		t.Errorf("PendingTurns = %+v, want none", left)
	}
}

// testFinishTurnAtomic: a FinishTurn that fails enqueues nothing and leaves the turn
// pending, so it is retried rather than lost.
func testFinishTurnAtomic(t *testing.T, b Backend) {
	s := b.Open(t)
	turn := queueTurns(t, s, agentA, dm, 1)[0]
	bad := part(turn, 1, "no key")
	bad.Key = ""
	if got, err := s.FinishTurn(t.Context(), turn.ID, []mynah.OutPart{part(turn, 0, "fine"), bad}); err == nil || len(got) != 0 {
		t.Fatalf("FinishTurn with a part without a key = %+v, %v; want no parts and an error", got, err)
	}
	if got := pendingParts(t, s, agentA, 10); len(got) != 0 {
		t.Errorf("PendingParts after a failed FinishTurn = %+v, want none", got)
	}
	if got := pendingTurns(t, s, agentA, 10); len(got) != 1 {
		t.Errorf("PendingTurns after a failed FinishTurn = %+v, want the turn", got)
	}
	if _, err := s.FinishTurn(t.Context(), turn.ID, []mynah.OutPart{part(turn, 0, "fine")}); err != nil {
		t.Fatalf("FinishTurn retry: %v", err)
	}
	if got := pendingParts(t, s, agentA, 10); len(got) != 1 {
		t.Errorf("PendingParts after the retry = %+v, want one", got)
	}
}

// testOutboxKeysUnique: a key is enqueued once per agent, even from two turns; the same
// key of another agent is another part.
func testOutboxKeysUnique(t *testing.T, b Backend) {
	s := b.Open(t)
	turns := queueTurns(t, s, agentA, dm, 1, 2)
	p1, p2 := part(turns[0], 0, "first"), part(turns[1], 0, "second")
	p2.Key = p1.Key
	for i, p := range []mynah.OutPart{p1, p2} {
		if _, err := s.FinishTurn(t.Context(), turns[i].ID, []mynah.OutPart{p}); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(pendingParts(t, s, agentA, 10), []mynah.OutPart{p1}, cmpOpts, ignorePartID); diff != "" {
		t.Errorf("PendingParts (-got +want):\n%s", diff)
	}

	tb := queueTurns(t, s, agentB, dm, 1)[0]
	pb := part(tb, 0, "bob's")
	pb.Key = p1.Key
	if _, err := s.FinishTurn(t.Context(), tb.ID, []mynah.OutPart{pb}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pendingParts(t, s, agentB, 10), []mynah.OutPart{pb}, cmpOpts, ignorePartID); diff != "" {
		t.Errorf("another agent's PendingParts (-got +want):\n%s", diff)
	}
}

// testMarkSentIsThePart: a sent message is the part's agent's, in the part's thread when
// it has none of its own, whatever agent the message names.
func testMarkSentIsThePart(t *testing.T, b Backend) {
	s := b.Open(t)
	turn := queueTurns(t, s, agentA, group, 10)[0]
	inTopic := part(turn, 0, "one")
	inTopic.ThreadID = 7
	parts := finish(t, s, turn.ID, []mynah.OutPart{inTopic, part(turn, 1, "two")})
	if err := s.MarkSent(t.Context(), parts[0].ID, mynah.Message{Agent: agentA, Chat: group, ID: 11, Sender: bot, Time: at(11), Text: "one"}); err != nil {
		t.Fatal(err)
	}
	if got := getMessage(t, s, agentA, group.ID, 11); got.ThreadID != 7 || !got.Outgoing || got.Text != "one" {
		t.Errorf("sent message without a thread = %+v, want outgoing %q in the part's thread 7", got, "one")
	}
	if err := s.MarkSent(t.Context(), parts[1].ID, mynah.Message{Agent: agentB, Chat: group, ID: 12, Sender: bot, Time: at(12), Text: "two"}); err != nil {
		t.Fatal(err)
	}
	if got := getMessage(t, s, agentA, group.ID, 12); !got.Outgoing || got.Text != "two" {
		t.Errorf("sent message naming another agent = %+v, want the part's agent's outgoing %q", got, "two")
	}
	if _, err := s.Message(t.Context(), agentB, group.ID, 12); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("the agent the message named has it: Message = %v, want ErrNotFound", err)
	}
	if got := pendingParts(t, s, agentA, 10); len(got) != 0 {
		t.Errorf("PendingParts after both sent = %+v, want none", got)
	}
}

// testMarkSent: a delivered part leaves the queue and the sent message joins the history,
// once, however often delivery is recorded.
func testMarkSent(t *testing.T, b Backend) {
	s := b.Open(t)
	turn := queueTurns(t, s, agentA, group, 10)[0]
	if _, err := s.FinishTurn(t.Context(), turn.ID, []mynah.OutPart{part(turn, 0, "one"), part(turn, 1, "two")}); err != nil {
		t.Fatal(err)
	}
	parts := pendingParts(t, s, agentA, 10)
	if len(parts) != 2 {
		t.Fatalf("PendingParts = %+v, want two", parts)
	}
	// The agent's name comes with the message, as the lanes send it.
	sent := mynah.Message{Agent: agentA, Chat: group, ID: 11, Sender: bot, Time: at(11), Text: "one",
		Entities: []mynah.Entity{{Type: "bold", Offset: 0, Length: 3}},
		ReplyTo:  &mynah.ReplyRef{ID: 10, Sender: alice, Text: "question 10"}}
	if err := s.MarkSent(t.Context(), parts[0].ID, sent); err != nil {
		t.Fatal(err)
	}
	want := sent
	want.Outgoing = true
	if diff := cmp.Diff(getMessage(t, s, agentA, group.ID, 11), want, cmpOpts); diff != "" {
		t.Errorf("sent message (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(pendingParts(t, s, agentA, 10), parts[1:], cmpOpts); diff != "" {
		t.Errorf("PendingParts after MarkSent (-got +want):\n%s", diff)
	}

	// Recording the delivery again, even with another message id, changes nothing.
	again := sent
	again.ID, again.Text = 12, "recorded twice"
	if err := s.MarkSent(t.Context(), parts[0].ID, again); err != nil {
		t.Fatalf("second MarkSent: %v", err)
	}
	if got := ids(history(t, s, agentA, group.ID, 0, 0, 10)); !cmp.Equal(got, []mynah.MessageID{10, 11}) {
		t.Errorf("history after a second MarkSent = %v, want [10 11]", got)
	}

	// A sent message with only an id lands in the part's chat, marked outgoing.
	if err := s.MarkSent(t.Context(), parts[1].ID, mynah.Message{ID: 13, Sender: bot, Time: at(13), Text: "two"}); err != nil {
		t.Fatal(err)
	}
	got := getMessage(t, s, agentA, group.ID, 13)
	if !got.Outgoing || got.Text != "two" || got.Chat.ID != group.ID {
		t.Errorf("second sent message = %+v, want outgoing %q in chat %d", got, "two", group.ID)
	}
	if got := pendingParts(t, s, agentA, 10); len(got) != 0 {
		t.Errorf("PendingParts after all sent = %+v, want none", got)
	}
}

// testMarkFailed: a part that can never be delivered leaves the queue and is not later
// recorded as sent.
func testMarkFailed(t *testing.T, b Backend) {
	s := b.Open(t)
	turn := queueTurns(t, s, agentA, dm, 1)[0]
	if _, err := s.FinishTurn(t.Context(), turn.ID, []mynah.OutPart{part(turn, 0, "one"), part(turn, 1, "two")}); err != nil {
		t.Fatal(err)
	}
	parts := pendingParts(t, s, agentA, 10)
	for range 2 {
		if err := s.MarkFailed(t.Context(), parts[0].ID, "Forbidden: bot was blocked by the user"); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(pendingParts(t, s, agentA, 10), parts[1:], cmpOpts); diff != "" {
		t.Errorf("PendingParts after MarkFailed (-got +want):\n%s", diff)
	}
	if err := s.MarkSent(t.Context(), parts[0].ID, mynah.Message{ID: 2, Sender: bot, Text: "one"}); err != nil {
		t.Fatal(err)
	}
	if got := ids(history(t, s, agentA, dm.ID, 0, 0, 10)); !cmp.Equal(got, []mynah.MessageID{1}) {
		t.Errorf("history after MarkSent of a failed part = %v, want [1]", got)
	}
}
