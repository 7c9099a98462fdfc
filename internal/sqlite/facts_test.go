package sqlite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah"
)

// TestFactQueryPlans: every prompt reads the facts of the people in the window, and every
// add counts and may evict; none of that may scan the table or sort in a temporary b-tree.
func TestFactQueryPlans(t *testing.T) {
	db := openTemp(t)
	for q, args := range map[string][]any{
		queryFactNorm:  {"a", 1, "x"},
		countFacts:     {"a", 1},
		evictFacts:     {"a", 1, 1},
		deleteFact:     {1, "a", 1},
		deleteAllFacts: {"a", 1},
		queryFacts:     {"a", 1, 10, 0},
		queryRemoval:   {"a", "k"},
		queryFactsOf:   {"a", "[1,2]"},
	} {
		// json_each, the list of people, is scanned; the facts table never is.
		if joined := queryPlan(t, db, q, args...); strings.Contains(joined, "SCAN facts") || strings.Contains(joined, "TEMP B-TREE") {
			t.Errorf("query scans or sorts:\n%s\nplan: %s", q, joined)
		}
	}
}

// BenchmarkFactsOf is the facts layer's read per group turn: 20 people with 100 facts
// each, among 10,000 people's facts.
func BenchmarkFactsOf(b *testing.B) {
	db := openTemp(b)
	ctx := b.Context()
	for u := 1; u <= 100; u++ {
		for i := range mynah.DefaultMaxFacts {
			if _, _, err := db.AddFact(ctx, mynah.Fact{Agent: "a", User: mynah.UserID(u), Text: fmt.Sprintf("fact %d of %d", i, u)}, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
	users := make([]mynah.UserID, 20)
	for i := range users {
		users[i] = mynah.UserID(i*5 + 1)
	}
	b.ResetTimer()
	for b.Loop() {
		got, err := db.FactsOf(ctx, "a", users)
		if err != nil || len(got) != 20*mynah.DefaultMaxFacts {
			b.Fatalf("FactsOf = %d facts, %v", len(got), err)
		}
	}
}

// BenchmarkAddFact is the remember tool's write at the cap: dedupe, insert, count, evict.
func BenchmarkAddFact(b *testing.B) {
	db := openTemp(b)
	ctx := b.Context()
	i := 0
	for b.Loop() {
		i++
		if _, _, err := db.AddFact(ctx, mynah.Fact{Agent: "a", User: 1, Text: fmt.Sprintf("fact %d", i)}, 0); err != nil {
			b.Fatal(err)
		}
	}
}
