package storetest

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mynah-ai/mynah"
)

// agentC is a third agent, outside the crews of these tests unless one names it.
const agentC = "cid"

// crewOf returns a first state of crew "team" in group with members.
func crewOf(members ...string) mynah.CrewState {
	s := mynah.CrewState{Crew: "team", Chat: group.ID}
	for _, m := range members {
		s.Members = append(s.Members, mynah.CrewMember{Agent: m})
	}
	return s
}

// saveCrew calls SaveCrew or fails the test. The store is the only instance: a turn it
// queues is its to run, so queue.ID must be the turn's id.
func saveCrew(t *testing.T, s mynah.Store, st mynah.CrewState, queue *mynah.Turn, reset mynah.MessageID) mynah.CrewState {
	t.Helper()
	got, err := s.SaveCrew(t.Context(), st, queue, reset)
	if err != nil {
		t.Fatalf("SaveCrew(version %d): %v", st.Version, err)
	}
	if queue != nil && (queue.ID == 0 || queue.ID != got.Turn) {
		t.Errorf("SaveCrew queued turn %d, set queue.ID %d: a lone instance runs what it queues", got.Turn, queue.ID)
	}
	return got
}

func crewState(t *testing.T, s mynah.Store, crew string, chat mynah.ChatID) mynah.CrewState {
	t.Helper()
	got, err := s.CrewState(t.Context(), crew, chat)
	if err != nil {
		t.Fatalf("CrewState(%s, %d): %v", crew, chat, err)
	}
	return got
}

// testCrewStateRoundTrip: a crew's state comes back as saved, with its version counting
// the saves; a save over a version that is no longer the stored one changes nothing.
func testCrewStateRoundTrip(t *testing.T, b Backend) {
	s := b.Open(t)
	zero := crewState(t, s, "team", group.ID)
	if diff := cmp.Diff(zero, mynah.CrewState{Crew: "team", Chat: group.ID}, cmpOpts); diff != "" {
		t.Errorf("state of a crew never saved (-got +want):\n%s", diff)
	}
	st := crewOf(agentA, agentB, agentC)
	st.Thread, st.Cycle, st.Active, st.Round, st.Next, st.Closing = 7, 3, true, 2, 1, true
	st.Outcome, st.Target, st.Asked, st.Replied, st.Command, st.Session = mynah.CrewPassed, 40, 37, 38, 39, 12
	st.Spoke, st.Passed, st.Failed, st.Ended = []string{agentA}, []string{agentB}, []string{agentC}, "every member passed"
	st.Members[1].LastSeen, st.Members[1].Turns = 41, 5
	st.Updated = at(50)
	saved := saveCrew(t, s, st, nil, 0)
	want := st
	want.Version = 1
	if diff := cmp.Diff(saved, want, cmpOpts); diff != "" {
		t.Errorf("SaveCrew returned (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(crewState(t, s, "team", group.ID), want, cmpOpts); diff != "" {
		t.Errorf("CrewState after SaveCrew (-got +want):\n%s", diff)
	}

	// Another lane read version 1 too and saved first: the stale save is refused.
	next := saved
	next.Round = 3
	next.Members = next.Members[:2] // a member left the configuration
	second := saveCrew(t, s, next, nil, 0)
	stale := saved
	stale.Round = 9
	if _, err := s.SaveCrew(t.Context(), stale, &mynah.Turn{Agent: agentA, Target: 40}, 0); !errors.Is(err, mynah.ErrConflict) {
		t.Errorf("SaveCrew over a stale version: %v, want ErrConflict", err)
	}
	got := crewState(t, s, "team", group.ID)
	if got.Version != 2 || got.Round != 3 || len(got.Members) != 2 || got.Members[1].Turns != 5 {
		t.Errorf("state after a refused save = version %d round %d members %+v, want version 2, round 3, two members",
			got.Version, got.Round, got.Members)
	}
	if diff := cmp.Diff(got, second, cmpOpts); diff != "" {
		t.Errorf("CrewState differs from what the second save returned (-got +want):\n%s", diff)
	}
	if n := len(pendingTurns(t, s, agentA, 10)); n != 0 {
		t.Errorf("a refused save queued %d turns, want none", n)
	}
	// Other crews and chats are their own.
	if other := crewState(t, s, "team", dm.ID); other.Version != 0 || other.Members != nil {
		t.Errorf("state of the crew in another chat = %+v, want zero", other)
	}
	for _, bad := range []mynah.CrewState{{Crew: "team", Chat: group.ID, Version: 2}, crewOf(agentA, agentA)} {
		bad.Version = 2
		if _, err := s.SaveCrew(t.Context(), bad, nil, 0); err == nil {
			t.Errorf("SaveCrew of members %+v: no error, want one", bad.Members)
		}
	}
}

// testCrewQueuesTurn: a save that queues a member's turn does both or neither, and the
// state names the turn; the turn's progress (answered, delivered) can be followed.
func testCrewQueuesTurn(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(group, 10, "team, plan the trip"))
	st := crewOf(agentA, agentB)
	st.Cycle, st.Active, st.Round, st.Target = 1, true, 1, 10
	st.Outcome = mynah.CrewSpoke // a queued turn has no outcome yet
	saved := saveCrew(t, s, st, &mynah.Turn{Agent: agentB, Target: 10, ReplyTo: 10, Created: at(11)}, 0)
	turns := pendingTurns(t, s, agentB, 10)
	if len(turns) != 1 {
		t.Fatalf("pending turns of the member = %+v, want the one queued", turns)
	}
	want := mynah.Turn{ID: saved.Turn, Agent: agentB, Chat: group.ID, Target: 10, ReplyTo: 10, Created: at(11)}
	if diff := cmp.Diff(turns[0], want, cmpOpts); diff != "" || saved.Turn == 0 {
		t.Errorf("queued turn (-got +want):\n%s(state's turn %d)", diff, saved.Turn)
	}
	if saved.Outcome != "" || crewState(t, s, "team", group.ID).Turn != saved.Turn {
		t.Errorf("state after queueing: turn %d outcome %q, want the queued turn and no outcome", saved.Turn, saved.Outcome)
	}

	status := func() mynah.CrewTurn {
		t.Helper()
		got, err := s.CrewTurn(t.Context(), saved.Turn)
		if err != nil {
			t.Fatalf("CrewTurn(%d): %v", saved.Turn, err)
		}
		return got
	}
	if got := status(); got != (mynah.CrewTurn{}) {
		t.Errorf("CrewTurn of a queued turn = %+v, want not done", got)
	}
	parts := finish(t, s, saved.Turn, []mynah.OutPart{part(turns[0], 0, "one"), part(turns[0], 1, "two")})
	if got := status(); got != (mynah.CrewTurn{Done: true, Pending: 2}) {
		t.Errorf("CrewTurn of an answered turn = %+v, want done with 2 pending", got)
	}
	if err := s.MarkSent(t.Context(), parts[0].ID, mynah.Message{Chat: group, ID: 12, Sender: bot, Time: at(12), Text: "one"}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkFailed(t.Context(), parts[1].ID, "rejected"); err != nil {
		t.Fatal(err)
	}
	if got := status(); got != (mynah.CrewTurn{Done: true, Sent: 1}) {
		t.Errorf("CrewTurn of a delivered turn = %+v, want done, 1 sent, none pending", got)
	}
	if _, err := s.CrewTurn(t.Context(), saved.Turn+1000); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("CrewTurn of an unknown turn: %v, want ErrNotFound", err)
	}
}

// testCrewMembersSeeEachOther: what one member sends in the crew's chat is in every other
// member's view at once, as an inbound message from its bot with its Telegram id, once;
// agents outside the crew, and other chats, see nothing of it.
func testCrewMembersSeeEachOther(t *testing.T, b Backend) {
	s := b.Open(t)
	saveCrew(t, s, crewOf(agentA, agentB), nil, 0)
	turn := queueTurns(t, s, agentA, group, 10)[0]
	dmTurn := queueTurns(t, s, agentA, dm, 20)[0]
	parts := finish(t, s, turn.ID, []mynah.OutPart{part(turn, 0, "one"), part(turn, 1, "two")})
	dmParts := finish(t, s, dmTurn.ID, []mynah.OutPart{part(dmTurn, 0, "private")})
	sent := mynah.Message{Agent: agentA, Chat: group, ID: 11, Sender: bot, Time: at(11), Text: "one",
		ReplyTo: &mynah.ReplyRef{ID: 10, Sender: alice, Text: "question 10"}}
	if err := s.MarkSent(t.Context(), parts[0].ID, sent); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkSent(t.Context(), parts[0].ID, sent); err != nil { // a retry records nothing twice
		t.Fatal(err)
	}
	if err := s.MarkSent(t.Context(), dmParts[0].ID, mynah.Message{Chat: dm, ID: 21, Sender: bot, Time: at(21), Text: "private"}); err != nil {
		t.Fatal(err)
	}
	want := sent
	want.Agent = agentB
	if diff := cmp.Diff(getMessage(t, s, agentB, group.ID, 11), want, cmpOpts, cmpopts.IgnoreFields(mynah.Chat{}, "Title", "IsForum")); diff != "" {
		t.Errorf("the other member's view of the message (-got +want):\n%s", diff)
	}
	if got := getMessage(t, s, agentA, group.ID, 11); !got.Outgoing {
		t.Errorf("the sender's own view: Outgoing false, want true")
	}
	if got := ids(history(t, s, agentB, group.ID, 0, 0, 10)); !cmp.Equal(got, []mynah.MessageID{11}) {
		t.Errorf("the other member's history = %v, want [11] once", got)
	}
	if got := history(t, s, agentC, group.ID, 0, 0, 10); len(got) != 0 {
		t.Errorf("an agent outside the crew sees %v", ids(got))
	}
	if got := history(t, s, agentB, dm.ID, 0, 0, 10); len(got) != 0 {
		t.Errorf("the other member sees the sender's private chat: %v", ids(got))
	}

	// Telegram delivered the second message to the other member too (bot-to-bot mode):
	// its view keeps one row.
	second := mynah.Message{Chat: group, ID: 13, Sender: bot, Time: at(13), Text: "two"}
	post(t, s, agentB, &second)
	if err := s.MarkSent(t.Context(), parts[1].ID, second); err != nil {
		t.Fatal(err)
	}
	if got := ids(history(t, s, agentB, group.ID, 0, 0, 10)); !cmp.Equal(got, []mynah.MessageID{11, 13}) {
		t.Errorf("the other member's history = %v, want [11 13]", got)
	}
}

// testCrewShareMessage: a message shared with members lands in each view that lacks it,
// inbound, once.
func testCrewShareMessage(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(group, 5, "hello team"))
	msg := *message(group, 5, "hello team")
	msg.Outgoing = true // ignored
	for range 2 {
		if err := s.ShareMessage(t.Context(), []string{agentA, agentB}, msg); err != nil {
			t.Fatal(err)
		}
	}
	want := *message(group, 5, "hello team")
	for _, agent := range []string{agentA, agentB} {
		want.Agent = agent
		if diff := cmp.Diff(history(t, s, agent, group.ID, 0, 0, 10), []mynah.Message{want}, cmpOpts); diff != "" {
			t.Errorf("%s's history (-got +want):\n%s", agent, diff)
		}
	}
	if err := s.ShareMessage(t.Context(), []string{agentB}, mynah.Message{ID: 6}); err == nil {
		t.Error("ShareMessage without a chat: no error")
	}
}

// testCrewReset: /crew reset starts every member's session anew in the chat, keeping every
// message.
func testCrewReset(t *testing.T, b Backend) {
	s := b.Open(t)
	for _, agent := range []string{agentA, agentB} {
		post(t, s, agent, message(group, 1, "old"))
		post(t, s, agent, message(group, 2, "/crew reset"))
	}
	st := crewOf(agentA, agentB)
	st.Session = 2
	saveCrew(t, s, st, nil, 2)
	for _, agent := range []string{agentA, agentB} {
		sess, err := s.Session(t.Context(), agent, group.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if sess.Start != 2 {
			t.Errorf("%s's session starts after %d, want 2", agent, sess.Start)
		}
		if got := ids(history(t, s, agent, group.ID, 0, 0, 10)); !cmp.Equal(got, []mynah.MessageID{1, 2}) {
			t.Errorf("%s's history = %v, want every message kept", agent, got)
		}
	}
	if sess, err := s.Session(t.Context(), agentC, group.ID, 0); err != nil || sess.Start != 0 {
		t.Errorf("an agent outside the crew: session %+v, %v; want untouched", sess, err)
	}
}

// testCrewActiveSurvivesReopen: the cycles under way are found again after a restart.
func testCrewActiveSurvivesReopen(t *testing.T, b Backend) {
	if b.Reopen == nil {
		t.Skip("backend cannot reopen")
	}
	s := b.Open(t)
	post(t, s, agentA, message(group, 10, "go"))
	running := crewOf(agentA, agentB)
	running.Active, running.Cycle, running.Round, running.Target = true, 1, 1, 10
	running = saveCrew(t, s, running, &mynah.Turn{Agent: agentA, Target: 10}, 0)
	idle := crewOf(agentA, agentB)
	idle.Crew = "quiet"
	saveCrew(t, s, idle, nil, 0)
	s = b.Reopen(t, s)
	got, err := s.ActiveCrews(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, []mynah.CrewState{running}, cmpOpts); diff != "" {
		t.Errorf("ActiveCrews after reopening (-got +want):\n%s", diff)
	}
	if turns := pendingTurns(t, s, agentA, 10); len(turns) != 1 || turns[0].ID != running.Turn {
		t.Errorf("pending turns after reopening = %+v, want the member's turn %d", turns, running.Turn)
	}
}

// testModelSessions: a command-line agent's session comes back as saved, and a save
// replaces it.
func testModelSessions(t *testing.T, b Backend) {
	s := b.Open(t)
	if _, err := s.ModelSession(t.Context(), "ada/42/0/0"); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("ModelSession of an unknown key: %v, want ErrNotFound", err)
	}
	ms := mynah.ModelSession{Key: "ada/42/0/0", ID: "3f2a-session", Seen: 17, Turns: 4, Started: at(1), Used: at(9)}
	for range 2 {
		if err := s.SaveModelSession(t.Context(), ms); err != nil {
			t.Fatal(err)
		}
		got, err := s.ModelSession(t.Context(), ms.Key)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(got, ms, cmpOpts); diff != "" {
			t.Errorf("ModelSession (-got +want):\n%s", diff)
		}
		ms.ID, ms.Seen, ms.Turns = "", 20, 0 // expired: started again later
	}
	if err := s.SaveModelSession(t.Context(), mynah.ModelSession{}); err == nil {
		t.Error("SaveModelSession without a key: no error")
	}
}
