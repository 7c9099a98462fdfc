package sqlite

import (
	"strings"
	"testing"
)

// TestAccessQueryPlans: the lookups ingest runs per message search an index.
func TestAccessQueryPlans(t *testing.T) {
	db := openTemp(t)
	for q, args := range map[string][]any{
		queryUserPending: {"a", 1, 0},
		countPending:     {"a", 0},
		queryApproved:    {"a", 1},
		queryChatMode:    {"a", 1},
		queryPairing:     {"ABCDEFGH"},
	} {
		var plan []string
		rows, err := db.read.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if joined := strings.Join(plan, "; "); strings.Contains(joined, "SCAN ") || strings.Contains(joined, "TEMP B-TREE") {
			t.Errorf("query scans or sorts:\n%s\nplan: %s", q, joined)
		}
	}
}
