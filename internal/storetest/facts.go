package storetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

func addFact(t *testing.T, s mynah.Facts, f mynah.Fact, maxFacts int) mynah.Fact {
	t.Helper()
	got, added, err := s.AddFact(t.Context(), f, maxFacts)
	if err != nil {
		t.Fatalf("AddFact(%q): %v", f.Text, err)
	}
	if !added {
		t.Fatalf("AddFact(%q) = not added, want added", f.Text)
	}
	return got
}

func listFacts(t *testing.T, s mynah.Facts, agent string, user mynah.UserID, offset, limit int) []mynah.Fact {
	t.Helper()
	got, _, err := s.ListFacts(t.Context(), agent, user, offset, limit)
	if err != nil {
		t.Fatalf("ListFacts(%s, %d): %v", agent, user, err)
	}
	return got
}

func factTexts(fs []mynah.Fact) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Text
	}
	return out
}

func testFactRoundTrip(t *testing.T, b Backend) {
	s := b.Open(t)
	in := mynah.Fact{Agent: agentA, User: alice.ID, Text: "  has a cat called Miso ", Chat: group.ID, Message: 77, Created: at(5)}
	got := addFact(t, s, in, 0)
	want := in
	want.ID, want.Text = got.ID, "has a cat called Miso"
	want.Scope = mynah.FactPrivate // a fact nobody scoped stays in its owner's private chat
	if got.ID == 0 || !cmp.Equal(got, want, cmpOpts) {
		t.Errorf("AddFact returned %+v, want %+v with an id", got, want)
	}
	list, total, err := s.ListFacts(t.Context(), agentA, alice.ID, 0, 10)
	if err != nil || total != 1 {
		t.Fatalf("ListFacts = %v, total %d, %v", list, total, err)
	}
	if diff := cmp.Diff(list, []mynah.Fact{want}, cmpOpts); diff != "" {
		t.Errorf("stored fact (-got +want):\n%s", diff)
	}
}

func testFactDedupe(t *testing.T, b Backend) {
	s := b.Open(t)
	first := addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: "Likes green tea."}, 0)
	for _, again := range []string{"likes green tea", "LIKES   green\ttea!", "Likes green tea…"} {
		got, added, err := s.AddFact(t.Context(), mynah.Fact{Agent: agentA, User: alice.ID, Text: again}, 0)
		if err != nil || added || got.ID != first.ID || got.Text != first.Text {
			t.Errorf("AddFact(%q) = %+v, added %v, %v; want the first fact, not added", again, got, added, err)
		}
	}
	// Different facts, and the same fact about somebody else, are added.
	addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: "likes black tea"}, 0)
	addFact(t, s, mynah.Fact{Agent: agentA, User: carol.ID, Text: "Likes green tea."}, 0)
	if got := factTexts(listFacts(t, s, agentA, alice.ID, 0, 10)); !cmp.Equal(got, []string{"Likes green tea.", "likes black tea"}) {
		t.Errorf("alice's facts = %q", got)
	}
}

func testFactCap(t *testing.T, b Backend) {
	s := b.Open(t)
	for i := 1; i <= 5; i++ {
		addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: fmt.Sprintf("fact %d", i)}, 3)
	}
	got, total, err := s.ListFacts(t.Context(), agentA, alice.ID, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if total != 3 || !cmp.Equal(factTexts(got), []string{"fact 3", "fact 4", "fact 5"}) {
		t.Errorf("after 5 adds with cap 3: %q (total %d), want the newest 3", factTexts(got), total)
	}
	// A repeat of a kept fact evicts nothing; another user's facts are not touched.
	addFact(t, s, mynah.Fact{Agent: agentA, User: carol.ID, Text: "carol's"}, 3)
	if _, added, err := s.AddFact(t.Context(), mynah.Fact{Agent: agentA, User: alice.ID, Text: "Fact 3."}, 3); err != nil || added {
		t.Fatalf("repeat: added %v, %v", added, err)
	}
	if got := factTexts(listFacts(t, s, agentA, alice.ID, 0, 10)); !cmp.Equal(got, []string{"fact 3", "fact 4", "fact 5"}) {
		t.Errorf("after a repeat: %q", got)
	}
	// The default cap is DefaultMaxFacts.
	for i := range mynah.DefaultMaxFacts + 2 {
		addFact(t, s, mynah.Fact{Agent: agentB, User: alice.ID, Text: fmt.Sprintf("b %d", i)}, 0)
	}
	if _, total, _ := s.ListFacts(t.Context(), agentB, alice.ID, 0, 1); total != mynah.DefaultMaxFacts {
		t.Errorf("with the default cap: %d facts, want %d", total, mynah.DefaultMaxFacts)
	}
}

func testFactPages(t *testing.T, b Backend) {
	s := b.Open(t)
	for i := 1; i <= 25; i++ {
		addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: fmt.Sprintf("fact %02d", i)}, 0)
	}
	for _, tc := range []struct {
		offset, limit int
		first, n      int
	}{{0, 10, 1, 10}, {10, 10, 11, 10}, {20, 10, 21, 5}, {30, 10, 0, 0}, {0, 0, 0, 0}} {
		got, total, err := s.ListFacts(t.Context(), agentA, alice.ID, tc.offset, tc.limit)
		if err != nil || total != 25 || len(got) != tc.n {
			t.Errorf("ListFacts(offset %d, limit %d) = %d facts, total %d, %v; want %d, 25", tc.offset, tc.limit, len(got), total, err, tc.n)
			continue
		}
		if tc.n > 0 && got[0].Text != fmt.Sprintf("fact %02d", tc.first) {
			t.Errorf("ListFacts(offset %d) starts with %q, want fact %02d", tc.offset, got[0].Text, tc.first)
		}
	}
}

func testFactOwnerOnly(t *testing.T, b Backend) {
	s := b.Open(t)
	f := addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: "afraid of geese"}, 0)
	if _, err := s.RemoveFact(t.Context(), agentA, carol.ID, f.ID, ""); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("carol removing alice's fact: %v, want ErrNotFound", err)
	}
	if _, err := s.RemoveFact(t.Context(), agentB, alice.ID, f.ID, ""); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("another agent removing alice's fact: %v, want ErrNotFound", err)
	}
	if got := listFacts(t, s, agentA, alice.ID, 0, 10); len(got) != 1 {
		t.Fatalf("the fact is gone after refused removals: %v", got)
	}
	got, err := s.RemoveFact(t.Context(), agentA, alice.ID, f.ID, "")
	if err != nil || !cmp.Equal(got, f, cmpOpts) {
		t.Errorf("RemoveFact by its owner = %+v, %v; want %+v", got, err, f)
	}
	if got := listFacts(t, s, agentA, alice.ID, 0, 10); len(got) != 0 {
		t.Errorf("after removal: %v", got)
	}
	if _, err := s.RemoveFact(t.Context(), agentA, alice.ID, f.ID, ""); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("removing twice: %v, want ErrNotFound", err)
	}
}

func testFactRemoveOnce(t *testing.T, b Backend) {
	s := b.Open(t)
	first := addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: "first"}, 0)
	second := addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: "second"}, 0)
	if _, err := s.RemoveFact(t.Context(), agentA, alice.ID, first.ID, "update:9"); err != nil {
		t.Fatal(err)
	}
	// Delivered again: "/forget 1" now points at the second fact, which must stay.
	got, err := s.RemoveFact(t.Context(), agentA, alice.ID, second.ID, "update:9")
	if err != nil || got.ID != first.ID || got.User != alice.ID {
		t.Errorf("repeated removal = %+v, %v; want the first removal's fact %d", got, err, first.ID)
	}
	if left := factTexts(listFacts(t, s, agentA, alice.ID, 0, 10)); !cmp.Equal(left, []string{"second"}) {
		t.Errorf("after a repeated removal: %q, want [second]", left)
	}
	// The key is per agent.
	addFact(t, s, mynah.Fact{Agent: agentB, User: alice.ID, Text: "b"}, 0)
	bf := listFacts(t, s, agentB, alice.ID, 0, 1)[0]
	if _, err := s.RemoveFact(t.Context(), agentB, alice.ID, bf.ID, "update:9"); err != nil {
		t.Errorf("the same key for another agent: %v", err)
	}
}

func testFactRemoveAll(t *testing.T, b Backend) {
	s := b.Open(t)
	for i := range 3 {
		addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: fmt.Sprintf("a%d", i)}, 0)
	}
	addFact(t, s, mynah.Fact{Agent: agentA, User: carol.ID, Text: "carol keeps hers"}, 0)
	n, err := s.RemoveAllFacts(t.Context(), agentA, alice.ID, "cb:1")
	if err != nil || n != 3 {
		t.Fatalf("RemoveAllFacts = %d, %v; want 3", n, err)
	}
	addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: "learned later"}, 0)
	if n, err := s.RemoveAllFacts(t.Context(), agentA, alice.ID, "cb:1"); err != nil || n != 3 {
		t.Errorf("repeated RemoveAllFacts = %d, %v; want the first count, 3", n, err)
	}
	if got := factTexts(listFacts(t, s, agentA, alice.ID, 0, 10)); !cmp.Equal(got, []string{"learned later"}) {
		t.Errorf("a repeated removal removed a newer fact: %q", got)
	}
	if got := listFacts(t, s, agentA, carol.ID, 0, 10); len(got) != 1 {
		t.Errorf("carol's facts after alice forgot hers: %v", got)
	}
	if n, err := s.RemoveAllFacts(t.Context(), agentA, bot.ID, ""); err != nil || n != 0 {
		t.Errorf("RemoveAllFacts of nobody's = %d, %v", n, err)
	}
}

func testFactsOf(t *testing.T, b Backend) {
	s := b.Open(t)
	addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: "alice 1"}, 0)
	addFact(t, s, mynah.Fact{Agent: agentA, User: carol.ID, Text: "carol 1"}, 0)
	addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: "alice 2"}, 0)
	addFact(t, s, mynah.Fact{Agent: agentA, User: dave.ID, Text: "dave 1"}, 0)
	got, err := s.FactsOf(t.Context(), agentA, []mynah.UserID{carol.ID, 12345, alice.ID, carol.ID})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"carol 1", "alice 1", "alice 2"}; !cmp.Equal(factTexts(got), want) {
		t.Errorf("FactsOf(carol, unknown, alice, carol) = %q, want %q", factTexts(got), want)
	}
	if got, err := s.FactsOf(t.Context(), agentA, nil); err != nil || len(got) != 0 {
		t.Errorf("FactsOf(nobody) = %v, %v", got, err)
	}
}

func testFactAgentsIsolated(t *testing.T, b Backend) {
	s := b.Open(t)
	addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: "told ada"}, 0)
	if got, total, err := s.ListFacts(t.Context(), agentB, alice.ID, 0, 10); err != nil || total != 0 || len(got) != 0 {
		t.Errorf("bob sees ada's facts: %v, %d, %v", got, total, err)
	}
	if got, err := s.FactsOf(t.Context(), agentB, []mynah.UserID{alice.ID}); err != nil || len(got) != 0 {
		t.Errorf("bob's FactsOf sees ada's facts: %v, %v", got, err)
	}
	if n, err := s.RemoveAllFacts(t.Context(), agentB, alice.ID, ""); err != nil || n != 0 {
		t.Errorf("bob's RemoveAllFacts = %d, %v", n, err)
	}
	if got := listFacts(t, s, agentA, alice.ID, 0, 10); len(got) != 1 {
		t.Errorf("ada's facts after bob's removal: %v", got)
	}
}

func testFactInvalid(t *testing.T, b Backend) {
	s := b.Open(t)
	for _, f := range []mynah.Fact{
		{Agent: agentA, User: alice.ID, Text: "  "},
		{Agent: agentA, User: alice.ID, Text: "..."},
		{Agent: "", User: alice.ID, Text: "x"},
		{Agent: agentA, User: 0, Text: "x"},
		{Agent: agentA, User: alice.ID, Text: strings.Repeat("é", mynah.MaxFactLength+1)},
		{Agent: agentA, User: alice.ID, Text: "x", Scope: mynah.FactChat},
		{Agent: agentA, User: alice.ID, Text: "x", Chat: group.ID, Scope: "everyone"},
	} {
		if _, _, err := s.AddFact(t.Context(), f, 0); err == nil {
			t.Errorf("AddFact(%+v) succeeded, want an error", f)
		}
	}
	if got := listFacts(t, s, agentA, alice.ID, 0, 10); len(got) != 0 {
		t.Errorf("invalid facts were stored: %v", got)
	}
	long := strings.Repeat("é", mynah.MaxFactLength)
	addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: long}, 0)
}

// testFactsSurviveReopen: facts outlive a restart.
func testFactsSurviveReopen(t *testing.T, b Backend) {
	if b.Reopen == nil {
		t.Skip("backend has no Reopen")
	}
	s := b.Open(t)
	f := addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: "keeps bees"}, 0)
	re := b.Reopen(t, s)
	if got := listFacts(t, re, agentA, alice.ID, 0, 10); !cmp.Equal(got, []mynah.Fact{f}, cmpOpts) {
		t.Errorf("after reopen: %v, want %v", got, f)
	}
}

// testFactScopes: a fact keeps where it may be shown, and saying a fact again to share it
// shares it; saying it again without asking to share narrows nothing and widens nothing.
func testFactScopes(t *testing.T, b Backend) {
	s := b.Open(t)
	private := addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: "diagnosed with asthma", Chat: mynah.ChatID(alice.ID),
		Message: 3, Scope: mynah.FactPrivate, Created: at(1)}, 0)
	inGroup := addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: "brings the cake on Fridays", Chat: group.ID,
		Message: 4, Scope: mynah.FactChat, Created: at(2)}, 0)
	shared := addFact(t, s, mynah.Fact{Agent: agentA, User: alice.ID, Text: "prefers to be called Ali", Chat: group.ID,
		Message: 5, Scope: mynah.FactShared, Created: at(3)}, 0)
	want := []mynah.Fact{private, inGroup, shared}
	if diff := cmp.Diff(listFacts(t, s, agentA, alice.ID, 0, 10), want, cmpOpts); diff != "" {
		t.Errorf("ListFacts (-got +want):\n%s", diff)
	}
	of, err := s.FactsOf(t.Context(), agentA, []mynah.UserID{alice.ID})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(of, want, cmpOpts); diff != "" {
		t.Errorf("FactsOf (-got +want):\n%s", diff)
	}

	// Said again in a group, the private fact stays private.
	got, added, err := s.AddFact(t.Context(), mynah.Fact{Agent: agentA, User: alice.ID, Text: "Diagnosed with asthma.", Chat: group.ID,
		Scope: mynah.FactChat}, 0)
	if err != nil || added || got.Scope != mynah.FactPrivate || got.ID != private.ID {
		t.Errorf("the private fact said in a group = %+v, added %v, %v; want it unchanged", got, added, err)
	}
	// Asked to be shared, it is shared.
	got, added, err = s.AddFact(t.Context(), mynah.Fact{Agent: agentA, User: alice.ID, Text: "diagnosed with asthma", Scope: mynah.FactShared}, 0)
	if err != nil || added || got.Scope != mynah.FactShared || got.ID != private.ID {
		t.Errorf("the private fact shared = %+v, added %v, %v; want it shared", got, added, err)
	}
	if list := listFacts(t, s, agentA, alice.ID, 0, 1); len(list) != 1 || list[0].Scope != mynah.FactShared {
		t.Errorf("after sharing: %+v", list)
	}
}
