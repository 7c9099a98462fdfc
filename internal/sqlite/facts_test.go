package sqlite

import (
	"fmt"
	"path/filepath"
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

// TestScopesMigration: facts stored before facts had scopes become private, wherever they
// were learned, and notes indexed before notes had scopes are shown nowhere until a sync
// records theirs.
func TestScopesMigration(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "mynah.db")
	raw := openBefore(t, path, 13)
	for _, q := range []string{
		`INSERT INTO facts (agent, user_id, text, norm, chat_id, message_id, created) VALUES ('a', 42, 'diagnosed with asthma', 'diagnosed with asthma', -100, 5, 0)`,
		`INSERT INTO note_files (agent, kind, path, hash, size, mtime) VALUES ('a', 'episodic', 'door.md', 'h', 1, 0)`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	facts, _, err := db.ListFacts(ctx, "a", 42, 0, 10)
	if err != nil || len(facts) != 1 || facts[0].Scope != mynah.FactPrivate || facts[0].Chat != -100 {
		t.Errorf("the old fact = %+v, %v; want it private, its chat kept", facts, err)
	}
	files, err := db.NoteFiles(ctx, "a")
	if err != nil || len(files) != 1 || files[0].Scope != mynah.NoteUnscoped {
		t.Errorf("the old note = %+v, %v; want it unscoped", files, err)
	}
}
