package storetest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

// testGroupUnknown: a group never recorded reads as a zero record, not an error.
func testGroupUnknown(t *testing.T, b Backend) {
	s := b.Open(t)
	got, err := s.GroupApproval(t.Context(), agentA, group.ID)
	want := mynah.GroupApproval{Agent: agentA, Chat: mynah.Chat{ID: group.ID}}
	if diff := cmp.Diff(want, got, cmpOpts); diff != "" || err != nil {
		t.Errorf("unknown group (err %v) (-want +got):\n%s", err, diff)
	}
	if got, err := s.ListGroupApprovals(t.Context(), ""); err != nil || len(got) != 0 {
		t.Errorf("ListGroupApprovals = %+v, %v; want none", got, err)
	}
}

// testGroupAdded: the latest adder is kept with the title; an approval survives a new
// adder, and the first approval stands.
func testGroupAdded(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	if err := s.GroupAdded(ctx, agentA, group, carol, at(1)); err != nil {
		t.Fatal(err)
	}
	g, err := s.GroupApproval(ctx, agentA, group.ID)
	want := mynah.GroupApproval{Agent: agentA, Chat: mynah.Chat{ID: group.ID, Title: group.Title}, AddedBy: carol, Added: at(1)}
	if diff := cmp.Diff(want, g, cmpOpts); diff != "" || err != nil {
		t.Errorf("after GroupAdded (err %v) (-want +got):\n%s", err, diff)
	}
	g, err = s.ApproveGroup(ctx, agentA, group.ID, alice.ID, at(2))
	want.Approved, want.ApprovedBy = at(2), alice.ID
	if diff := cmp.Diff(want, g, cmpOpts); diff != "" || err != nil {
		t.Errorf("ApproveGroup (err %v) (-want +got):\n%s", err, diff)
	}
	if g, err = s.ApproveGroup(ctx, agentA, group.ID, 0, at(3)); err != nil || !g.Approved.Equal(at(2)) || g.ApprovedBy != alice.ID {
		t.Errorf("approving again = %+v, %v; want the first approval kept", g, err)
	}
	renamed := group
	renamed.Title = "Birds and bees"
	if err := s.GroupAdded(ctx, agentA, renamed, alice, at(4)); err != nil {
		t.Fatal(err)
	}
	g, err = s.GroupApproval(ctx, agentA, group.ID)
	want.Chat.Title, want.AddedBy, want.Added = renamed.Title, alice, at(4)
	if diff := cmp.Diff(want, g, cmpOpts); diff != "" || err != nil {
		t.Errorf("re-added (err %v) (-want +got):\n%s", err, diff)
	}
	if got, err := s.GroupApproval(ctx, agentB, group.ID); err != nil || !got.Approved.IsZero() || got.AddedBy.ID != 0 {
		t.Errorf("bob's record of the group = %+v, %v; want zero", got, err)
	}
}

// testGroupApproveUnknown: the operator may approve a group no agent has seen yet.
func testGroupApproveUnknown(t *testing.T, b Backend) {
	s := b.Open(t)
	g, err := s.ApproveGroup(t.Context(), agentA, -100555, 0, at(5))
	want := mynah.GroupApproval{Agent: agentA, Chat: mynah.Chat{ID: -100555}, Approved: at(5)}
	if diff := cmp.Diff(want, g, cmpOpts); diff != "" || err != nil {
		t.Errorf("ApproveGroup of an unknown group (err %v) (-want +got):\n%s", err, diff)
	}
	if _, err := s.ApproveGroup(t.Context(), "", -100555, 0, at(5)); err == nil {
		t.Error("ApproveGroup without an agent succeeded")
	}
}

// testGroupNoticedOnce: the owner is told about a waiting group once, also after a
// restart, and per agent.
func testGroupNoticedOnce(t *testing.T, b Backend) {
	s := b.Open(t)
	notice := func(s mynah.Store, agent string, sec int) bool {
		t.Helper()
		first, err := s.NoticeGroup(t.Context(), agent, group, at(sec))
		if err != nil {
			t.Fatal(err)
		}
		return first
	}
	if !notice(s, agentA, 1) {
		t.Error("first notice: want true")
	}
	if notice(s, agentA, 2) {
		t.Error("second notice: want false")
	}
	if !notice(s, agentB, 3) {
		t.Error("another agent's first notice: want true")
	}
	if b.Reopen != nil {
		s = b.Reopen(t, s)
		if notice(s, agentA, 4) {
			t.Error("notice after reopen: want false")
		}
	}
	g, err := s.GroupApproval(t.Context(), agentA, group.ID)
	if err != nil || !g.Noticed.Equal(at(1)) || g.Chat.Title != group.Title {
		t.Errorf("record = %+v, %v; want noticed at 1 with the title", g, err)
	}
}

// testGroupList: groups are listed per agent or all, in the order they were recorded.
func testGroupList(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	other := mynah.Chat{ID: -100999, Type: mynah.ChatGroup, Title: "Other"}
	if _, err := s.NoticeGroup(ctx, agentA, other, at(1)); err != nil {
		t.Fatal(err)
	}
	if err := s.GroupAdded(ctx, agentA, group, carol, at(2)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApproveGroup(ctx, agentB, group.ID, 0, at(3)); err != nil {
		t.Fatal(err)
	}
	chats := func(gs []mynah.GroupApproval) []mynah.ChatID {
		var out []mynah.ChatID
		for _, g := range gs {
			out = append(out, g.Chat.ID)
		}
		return out
	}
	got, err := s.ListGroupApprovals(ctx, agentA)
	if diff := cmp.Diff([]mynah.ChatID{other.ID, group.ID}, chats(got)); diff != "" || err != nil {
		t.Errorf("ada's groups (err %v) (-want +got):\n%s", err, diff)
	}
	got, err = s.ListGroupApprovals(ctx, "")
	if err != nil || len(got) != 3 || got[2].Agent != agentB || got[2].Approved.IsZero() {
		t.Errorf("every agent's groups = %+v, %v", got, err)
	}
}
