package sqlite

import (
	"strings"
	"testing"

	"github.com/mynah-ai/mynah/internal/storetest"
)

func TestSummaryStore(t *testing.T) { storetest.RunSummaries(t, backend()) }

// TestSummaryQueryPlans checks that the summarizer's queries search indexes: their cost
// must not grow with the history (see TestQueryPlans).
func TestSummaryQueryPlans(t *testing.T) {
	db := openTemp(t)
	ctx := t.Context()
	queries := map[string][]any{
		queryLatestRolling:    {"a", 1, 0},
		queryLatestPeriodic:   {"a", 1, 0, "week"},
		queryExistingRolling:  {"a", 1, 0, 5},
		queryExistingPeriodic: {"a", 1, 0, "week", 5},
		querySummariesDue:     {"a", "week", 10, 5, 10},
		queryBetween:          {"a", 1, 0, 10, 50},
		queryBetweenThread:    {"a", 1, 7, 0, 10, 50},
		queryOlder:            {"a", 1, 100, 50},
		queryPromptsAfter:     {"a", 0, 50},
		queryLastTurn:         {"a"},
	}
	for q, args := range queries {
		if strings.Contains(q, "LIMIT ?") {
			t.Errorf("query binds LIMIT ?, which SQLite re-prepares on every call; write LIMIT +?:\n%s", q)
		}
		rows, err := db.read.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		joined := strings.Join(plan, "; ")
		if strings.Contains(joined, "SCAN ") || strings.Contains(joined, "TEMP B-TREE") {
			t.Errorf("query scans or sorts:\n%s\nplan: %s", q, joined)
		}
		t.Logf("%s", joined)
	}
}
