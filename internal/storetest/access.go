package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

const ttl = time.Hour

var (
	dave  = mynah.User{ID: 8, FirstName: "Dave", Username: "dave"}
	erin  = mynah.User{ID: 9, FirstName: "Erin", LastName: "E."}
	frank = mynah.User{ID: 10, FirstName: "Frank"}
)

func request(t *testing.T, s mynah.Pairings, agent string, u mynah.User, code string, now time.Time) (mynah.Pairing, bool) {
	t.Helper()
	p, created, err := s.RequestPairing(t.Context(), agent, u, code, now, ttl, 3)
	if err != nil {
		t.Fatalf("RequestPairing(%s, user %d, %s): %v", agent, u.ID, code, err)
	}
	return p, created
}

// testPairingSameUser: asking again while a code is pending returns the same code.
func testPairingSameUser(t *testing.T, b Backend) {
	s := b.Open(t)
	p, created := request(t, s, agentA, alice, "AAAAAAAA", at(0))
	want := mynah.Pairing{Agent: agentA, Code: "AAAAAAAA", User: alice, Created: at(0), Expires: at(3600)}
	if diff := cmp.Diff(want, p, cmpOpts); diff != "" || !created {
		t.Errorf("first request (created %t) (-want +got):\n%s", created, diff)
	}
	again, created := request(t, s, agentA, alice, "BBBBBBBB", at(60))
	if diff := cmp.Diff(want, again, cmpOpts); diff != "" || created {
		t.Errorf("second request (created %t) should return the pending code (-want +got):\n%s", created, diff)
	}
}

// testPairingAtMostPending: a fourth stranger is refused while three codes are pending,
// and welcome again once one of them expired.
func testPairingAtMostPending(t *testing.T, b Backend) {
	s := b.Open(t)
	request(t, s, agentA, alice, "AAAAAAAA", at(0))
	request(t, s, agentA, carol, "BBBBBBBB", at(10))
	request(t, s, agentA, dave, "CCCCCCCC", at(20))
	_, _, err := s.RequestPairing(t.Context(), agentA, erin, "DDDDDDDD", at(30), ttl, 3)
	if !errors.Is(err, mynah.ErrPairingsFull) {
		t.Fatalf("fourth pending request: err = %v, want ErrPairingsFull", err)
	}
	// The pending users still get their codes.
	if p, _ := request(t, s, agentA, carol, "EEEEEEEE", at(40)); p.Code != "BBBBBBBB" {
		t.Errorf("carol's code = %s, want BBBBBBBB", p.Code)
	}
	// Another agent has its own limit.
	request(t, s, agentB, erin, "FFFFFFFF", at(40))
	// Alice's code expires at 3600: a slot frees.
	if p, created := request(t, s, agentA, erin, "GGGGGGGG", at(3600)); !created || p.Code != "GGGGGGGG" {
		t.Errorf("after an expiry: %+v created %t, want the new code", p, created)
	}
}

// testPairingExpires: an expired code cannot be approved, and the user gets a new one.
func testPairingExpires(t *testing.T, b Backend) {
	s := b.Open(t)
	request(t, s, agentA, alice, "AAAAAAAA", at(0))
	if _, err := s.ApprovePairing(t.Context(), "AAAAAAAA", at(3600), ""); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("approving an expired code: err = %v, want ErrNotFound", err)
	}
	if p, created := request(t, s, agentA, alice, "BBBBBBBB", at(3601)); !created || p.Code != "BBBBBBBB" {
		t.Errorf("after expiry: %+v created %t, want a new code", p, created)
	}
	if ok, err := s.Approved(t.Context(), agentA, alice.ID); err != nil || ok {
		t.Errorf("Approved = %t, %v; want false", ok, err)
	}
	got, err := s.ListPairings(t.Context(), agentA, at(3602))
	if err != nil || len(got) != 1 || got[0].Code != "BBBBBBBB" {
		t.Errorf("ListPairings = %+v, %v; want only the unexpired code", got, err)
	}
}

// testPairingApprove: an approved user is approved for good; the code works once.
func testPairingApprove(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	request(t, s, agentA, alice, "AAAAAAAA", at(0))
	request(t, s, agentA, carol, "BBBBBBBB", at(1))
	p, err := s.ApprovePairing(ctx, "AAAAAAAA", at(100), "")
	if err != nil {
		t.Fatal(err)
	}
	want := mynah.Pairing{Agent: agentA, Code: "AAAAAAAA", User: alice, Created: at(0), Expires: at(3600), Approved: at(100)}
	if diff := cmp.Diff(want, p, cmpOpts); diff != "" {
		t.Errorf("ApprovePairing (-want +got):\n%s", diff)
	}
	if _, err := s.ApprovePairing(ctx, "AAAAAAAA", at(101), ""); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("approving twice: err = %v, want ErrNotFound", err)
	}
	if _, err := s.ApprovePairing(ctx, "ZZZZZZZZ", at(101), ""); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("approving an unknown code: err = %v, want ErrNotFound", err)
	}
	for _, c := range []struct {
		user mynah.UserID
		want bool
	}{{alice.ID, true}, {carol.ID, false}} {
		if ok, err := s.Approved(ctx, agentA, c.user); err != nil || ok != c.want {
			t.Errorf("Approved(%d) = %t, %v; want %t", c.user, ok, err, c.want)
		}
	}
	// Approval outlives the code's expiry; the approved user frees their pending slot.
	if ok, _ := s.Approved(ctx, agentA, alice.ID); !ok {
		t.Error("approval lost")
	}
	got, err := s.ListPairings(ctx, agentA, at(7200))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]mynah.Pairing{want}, got, cmpOpts); diff != "" {
		t.Errorf("ListPairings after carol's code expired (-want +got):\n%s", diff)
	}
	if got, _ := s.ListPairings(ctx, "", at(2)); len(got) != 2 {
		t.Errorf("ListPairings of every agent = %d pairings, want 2", len(got))
	}
	// No queued turn without a welcome.
	if turns := pendingTurns(t, s, agentA, 10); len(turns) != 0 {
		t.Errorf("approval without a welcome queued %+v", turns)
	}
}

// testPairingApproveWelcome: the welcome is queued as a static turn to the user's private
// chat, so that serve delivers it exactly once.
func testPairingApproveWelcome(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(dm, 1, "hello?"))
	request(t, s, agentA, alice, "AAAAAAAA", at(1))
	if _, err := s.ApprovePairing(t.Context(), "AAAAAAAA", at(2), "You're in."); err != nil {
		t.Fatal(err)
	}
	// A user the agent has no chat with yet works too.
	request(t, s, agentA, frank, "BBBBBBBB", at(3))
	if _, err := s.ApprovePairing(t.Context(), "BBBBBBBB", at(4), "You're in."); err != nil {
		t.Fatal(err)
	}
	got := pendingTurns(t, s, agentA, 10)
	want := []mynah.Turn{
		{Agent: agentA, Chat: mynah.ChatID(alice.ID), Static: "You're in.", Created: at(2)},
		{Agent: agentA, Chat: mynah.ChatID(frank.ID), Static: "You're in.", Created: at(4)},
	}
	if diff := cmp.Diff(want, got, cmpOpts, cmpIgnoreTurnID); diff != "" {
		t.Errorf("queued welcome (-want +got):\n%s", diff)
	}
}

var cmpIgnoreTurnID = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".ID" }, cmp.Ignore())

// testPairingCodesUnique: a code is never stored twice, even for another agent.
func testPairingCodesUnique(t *testing.T, b Backend) {
	s := b.Open(t)
	request(t, s, agentA, alice, "AAAAAAAA", at(0))
	if _, _, err := s.RequestPairing(t.Context(), agentB, carol, "AAAAAAAA", at(1), ttl, 3); err == nil {
		t.Error("a second pairing with the same code was stored")
	}
	if p, _ := request(t, s, agentB, carol, "BBBBBBBB", at(2)); p.Code != "BBBBBBBB" {
		t.Errorf("retry with a fresh code gave %s", p.Code)
	}
}

// testPairingAgentsIsolated: approval for one agent is not approval for another.
func testPairingAgentsIsolated(t *testing.T, b Backend) {
	s := b.Open(t)
	request(t, s, agentA, alice, "AAAAAAAA", at(0))
	p, err := s.ApprovePairing(t.Context(), "AAAAAAAA", at(1), "")
	if err != nil || p.Agent != agentA {
		t.Fatalf("ApprovePairing = %+v, %v", p, err)
	}
	if ok, err := s.Approved(t.Context(), agentB, alice.ID); err != nil || ok {
		t.Errorf("Approved for bob = %t, %v; want false", ok, err)
	}
	if got, err := s.ListPairings(t.Context(), agentB, at(2)); err != nil || len(got) != 0 {
		t.Errorf("bob's pairings = %+v, %v; want none", got, err)
	}
}

// testChatModes: a chat's mode is what was last set, per agent; unset is zero.
func testChatModes(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	got, err := s.ChatMode(ctx, agentA, group.ID)
	if diff := cmp.Diff(mynah.ChatMode{Agent: agentA, Chat: group.ID}, got, cmpOpts); diff != "" || err != nil {
		t.Errorf("unset mode (err %v) (-want +got):\n%s", err, diff)
	}
	for i, m := range []mynah.ChatMode{
		{Agent: agentA, Chat: group.ID, Stopped: true, Updated: at(1)},
		{Agent: agentA, Chat: group.ID, Trigger: "always", Updated: at(2)},
	} {
		if err := s.SetChatMode(ctx, m); err != nil {
			t.Fatal(err)
		}
		got, err := s.ChatMode(ctx, agentA, group.ID)
		if diff := cmp.Diff(m, got, cmpOpts); diff != "" || err != nil {
			t.Errorf("mode %d (err %v) (-want +got):\n%s", i, err, diff)
		}
	}
	if got, err := s.ChatMode(ctx, agentB, group.ID); err != nil || got.Trigger != "" || got.Stopped {
		t.Errorf("bob's mode = %+v, %v; want zero", got, err)
	}
	if err := s.SetChatMode(ctx, mynah.ChatMode{Chat: group.ID}); err == nil {
		t.Error("SetChatMode without an agent succeeded")
	}
}

// testAccessSurvivesReopen: approvals, pending codes and modes outlive a restart.
func testAccessSurvivesReopen(t *testing.T, b Backend) {
	if b.Reopen == nil {
		t.Skip("backend has no Reopen")
	}
	s := b.Open(t)
	request(t, s, agentA, alice, "AAAAAAAA", at(0))
	request(t, s, agentA, carol, "BBBBBBBB", at(0))
	if _, err := s.ApprovePairing(t.Context(), "AAAAAAAA", at(1), ""); err != nil {
		t.Fatal(err)
	}
	if err := s.SetChatMode(t.Context(), mynah.ChatMode{Agent: agentA, Chat: group.ID, Stopped: true}); err != nil {
		t.Fatal(err)
	}
	re := b.Reopen(t, s)
	if ok, err := re.Approved(t.Context(), agentA, alice.ID); err != nil || !ok {
		t.Errorf("Approved after reopen = %t, %v", ok, err)
	}
	if p, created := request(t, re, agentA, carol, "CCCCCCCC", at(2)); created || p.Code != "BBBBBBBB" {
		t.Errorf("carol's pending code after reopen = %s (created %t), want BBBBBBBB", p.Code, created)
	}
	if m, err := re.ChatMode(t.Context(), agentA, group.ID); err != nil || !m.Stopped {
		t.Errorf("mode after reopen = %+v, %v; want stopped", m, err)
	}
}
