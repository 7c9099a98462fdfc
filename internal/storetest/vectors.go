package storetest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

// fakeVector is a vector derived from text, distinct for distinct test texts.
func fakeVector(text string) []float32 {
	v := make([]float32, 4)
	for i, r := range text {
		v[i%4] += float32(r)
	}
	return v
}

func pendingVectors(t *testing.T, s mynah.VectorStore, agent, model string, limit int) []mynah.VectorItem {
	t.Helper()
	items, _, err := s.PendingVectors(t.Context(), agent, model, limit)
	if err != nil {
		t.Fatalf("PendingVectors: %v", err)
	}
	return items
}

// embedAll embeds every pending item of agent with fakeVector, batch by batch, and
// returns how many it embedded (cached ones not counted).
func embedAll(t *testing.T, s mynah.VectorStore, agent, model string) int {
	t.Helper()
	n := 0
	var last mynah.VectorCursor = -1
	for range 1000 {
		items, cur, err := s.PendingVectors(t.Context(), agent, model, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) == 0 && cur == last {
			return n
		}
		last = cur
		for i := range items {
			if items[i].Vector == nil {
				items[i].Vector = fakeVector(items[i].Text)
				n++
			}
		}
		if err := s.SaveVectors(t.Context(), agent, model, items, cur); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("PendingVectors never caught up")
	return n
}

func loadIDs(t *testing.T, s mynah.VectorStore, scope mynah.VectorScope) []int64 {
	t.Helper()
	vs, err := s.LoadVectors(t.Context(), scope)
	if err != nil {
		t.Fatalf("LoadVectors(%+v): %v", scope, err)
	}
	var out []int64
	for i, v := range vs {
		if i > 0 && v.Seq <= vs[i-1].Seq {
			t.Errorf("vectors out of save order: seq %d after %d", v.Seq, vs[i-1].Seq)
		}
		out = append(out, v.ID)
	}
	return out
}

func testVectorsPending(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(dm, 1, "first words"))
	post(t, s, agentB, message(dm, 2, "another agent's words"))
	post(t, s, agentA, message(dm, 3, ""))
	post(t, s, agentA, message(dm, 4, "second words"))
	items := pendingVectors(t, s, agentA, "m1", 10)
	var ids []int64
	for _, it := range items {
		if it.Kind != mynah.VectorMessage || it.Chat != dm.ID || it.Vector != nil {
			t.Errorf("pending item %+v: want a message of the dm without a vector", it)
		}
		ids = append(ids, it.ID)
	}
	if diff := cmp.Diff(ids, []int64{1, 4}); diff != "" {
		t.Errorf("pending (-got +want); other agents' and empty messages are not embedded:\n%s", diff)
	}
	if got := embedAll(t, s, agentA, "m1"); got != 2 {
		t.Errorf("embedded %d texts, want 2", got)
	}
	vs, err := s.LoadVectors(t.Context(), mynah.VectorScope{Agent: agentA, Model: "m1", Chat: dm.ID})
	if err != nil || len(vs) != 2 {
		t.Fatalf("LoadVectors: %d vectors, %v; want 2", len(vs), err)
	}
	if diff := cmp.Diff(vs[1].Vector, fakeVector("second words")); diff != "" {
		t.Errorf("stored vector (-got +want):\n%s", diff)
	}
	if !vs[0].Time.Equal(at(1)) {
		t.Errorf("vector time %v, want the message's %v", vs[0].Time, at(1))
	}
	if items := pendingVectors(t, s, agentA, "m1", 10); len(items) != 0 {
		t.Errorf("%d items pending after saving them all", len(items))
	}
	// Another model needs its own vectors; the next message is pending for both.
	if items := pendingVectors(t, s, agentA, "m2", 10); len(items) != 2 {
		t.Errorf("%d items pending for another model, want 2", len(items))
	}
	post(t, s, agentA, message(dm, 5, "third words"))
	if items := pendingVectors(t, s, agentA, "m1", 10); len(items) != 1 || items[0].ID != 5 {
		t.Errorf("after a new message pending %+v, want message 5", items)
	}
	after := vs[1].Seq
	embedAll(t, s, agentA, "m1")
	if got := loadIDs(t, s, mynah.VectorScope{Agent: agentA, Model: "m1", After: after}); !cmp.Equal(got, []int64{5}) {
		t.Errorf("vectors after seq %d: %v, want only the new [5]", after, got)
	}
}

func testVectorsCached(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(dm, 1, "the same words"))
	post(t, s, agentA, message(group, 2, "the same words"))
	post(t, s, agentA, message(group, 3, "other words"))
	embedAll(t, s, agentA, "m1")
	post(t, s, agentA, message(dm, 4, "the same words"))
	items := pendingVectors(t, s, agentA, "m1", 10)
	if len(items) != 1 || items[0].ID != 4 {
		t.Fatalf("pending %+v, want message 4", items)
	}
	if diff := cmp.Diff(items[0].Vector, fakeVector("the same words")); diff != "" {
		t.Errorf("a text embedded before comes back with its vector (-got +want):\n%s", diff)
	}
	if got := embedAll(t, s, agentA, "m1"); got != 0 {
		t.Errorf("embedded %d texts again, want 0", got)
	}
	if got := loadIDs(t, s, mynah.VectorScope{Agent: agentA, Model: "m1"}); len(got) != 4 {
		t.Errorf("agent's vectors %v, want all 4 messages", got)
	}
}

func testVectorsScopes(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(dm, 1, "in the dm"))
	post(t, s, agentA, message(group, 2, "in the group"))
	post(t, s, agentB, message(group, 3, "bob's group"))
	embedAll(t, s, agentA, "m1")
	embedAll(t, s, agentB, "m1")
	for _, c := range []struct {
		scope mynah.VectorScope
		want  []int64
	}{
		{mynah.VectorScope{Agent: agentA, Model: "m1"}, []int64{1, 2}},
		{mynah.VectorScope{Agent: agentA, Model: "m1", Chat: group.ID}, []int64{2}},
		{mynah.VectorScope{Agent: agentB, Model: "m1"}, []int64{3}},
		{mynah.VectorScope{Agent: agentA, Model: "m2"}, nil},
		{mynah.VectorScope{Agent: agentA, Model: "m1", Kind: mynah.VectorNote}, nil},
	} {
		if diff := cmp.Diff(loadIDs(t, s, c.scope), c.want); diff != "" {
			t.Errorf("LoadVectors(%+v) (-got +want):\n%s", c.scope, diff)
		}
	}
}

func testVectorsRejectEmpty(t *testing.T, b Backend) {
	s := b.Open(t)
	post(t, s, agentA, message(dm, 1, "words"))
	items, cur, err := s.PendingVectors(t.Context(), agentA, "m1", 10)
	if err != nil || len(items) != 1 {
		t.Fatalf("pending %d items, %v", len(items), err)
	}
	if err := s.SaveVectors(t.Context(), agentA, "m1", items, cur); err == nil {
		t.Error("saving an item without a vector succeeded")
	}
	if got := pendingVectors(t, s, agentA, "m1", 10); len(got) != 1 {
		t.Errorf("after a failed save %d items pending, want the 1 still", len(got))
	}
}

// testVectorsSurviveReopen: saved vectors and the cursor outlive a restart.
func testVectorsSurviveReopen(t *testing.T, b Backend) {
	if b.Reopen == nil {
		t.Skip("backend has no Reopen")
	}
	s := b.Open(t)
	post(t, s, agentA, message(dm, 1, "kept across restarts"))
	embedAll(t, s, agentA, "m1")
	s = b.Reopen(t, s)
	if got := loadIDs(t, s, mynah.VectorScope{Agent: agentA, Model: "m1"}); !cmp.Equal(got, []int64{1}) {
		t.Errorf("after reopen: vectors of %v, want [1]", got)
	}
	if items := pendingVectors(t, s, agentA, "m1", 10); len(items) != 0 {
		t.Errorf("after reopen: %d items pending again", len(items))
	}
}
