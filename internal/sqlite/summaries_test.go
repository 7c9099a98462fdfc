package sqlite

import "testing"

// TestSummaryQueryPlans checks that the summarizer's queries search indexes: their cost
// must not grow with the history (see TestQueryPlans).
func TestSummaryQueryPlans(t *testing.T) {
	db := openTemp(t)
	queries := map[string][]any{
		queryLatestRolling:    {"a", 1, 0},
		queryHasSummaries:     {"a", 1, "a", 1},
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
	checkPlans(t, db, queries)
}
