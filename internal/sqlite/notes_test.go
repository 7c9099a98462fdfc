package sqlite

import (
	"strings"
	"testing"

	"github.com/mynah-ai/mynah"
)

// TestNotesQueryPlans checks that the notes statements search indexes, with an indexed
// note so that the agent has a number.
func TestNotesQueryPlans(t *testing.T) {
	db := openTemp(t)
	if err := db.PutNote(t.Context(), mynah.NoteFile{Agent: "a", Kind: mynah.NoteCurated, Path: "n.md", Hash: "h"},
		[]mynah.NoteChunk{{StartLine: 1, EndLine: 1, Text: "owl", Hash: "h"}}); err != nil {
		t.Fatal(err)
	}
	checkPlans(t, db, map[string][]any{
		queryNoteHash:    {"a", "curated", "n.md"},
		deleteNoteChunks: {"a", "curated", "n.md"},
		deleteNoteFile:   {"a", "curated", "n.md"},
		queryNextChunk:   {1 << noteBits, 2<<noteBits - 1},
		queryNoteFiles:   {"a"},
	})
	// The search reads the keyword index itself (a virtual table "scan" constrained by the
	// match and the agent's rowid range, ranked by FTS5), then looks up each winner.
	plan := queryPlan(t, db, querySearchNotes, `{text} : ("owl")`, 1<<noteBits, 2<<noteBits-1, 10, false, -100)
	for _, want := range []string{"SCAN note_search VIRTUAL TABLE INDEX 32:M1><", "SEARCH sc USING INTEGER PRIMARY KEY",
		"SEARCH sf USING PRIMARY KEY", "SEARCH c USING INTEGER PRIMARY KEY", "SEARCH f USING PRIMARY KEY"} {
		if !strings.Contains(plan, want) {
			t.Errorf("search plan lacks %q: %s", want, plan)
		}
	}
	if strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("search plan sorts: %s", plan)
	}
}
