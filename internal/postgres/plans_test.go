package postgres

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestQueryPlans: every query the pipeline runs per message (intake, the prompt's reads,
// the queues, delivery, search) is served by an index. Sequential scans are priced out
// (enable_seqscan off), so a plan that still reads a table whole, or sorts one, has no
// index to use: its cost would grow with the history. Sorts are priced out too: a plan
// that still sorts has no index giving the order.
func TestQueryPlans(t *testing.T) {
	db, _ := openTemp(t)
	ctx := t.Context()
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET enable_seqscan = off; SET enable_sort = off`); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, `RESET enable_seqscan; RESET enable_sort`) //nolint:errcheck // the connection goes back to the pool
	probeCond, probeArgs := searchScope{agent: "a", chat: 1}.where(3)
	exactCond, exactArgs := searchScope{agent: "a", chat: 1}.exact(3)
	now := time.Now()
	queries := map[string][]any{
		queryMessage:       {"a", 1, 1},
		queryHistory:       {"a", 1, 0, 50},
		queryHistoryThread: {"a", 1, 7, 0, 50},
		queryPendingTurns:  {"a", 0, 10},
		queryClaimedTurns:  {"a", 1, 0, 10, []int64{1}, now},
		queryDueAt:         {"a", 0},
		queryCrewPeers:     {"a", 1},
		queryPendingParts:  {"a", 10},
		queryClaimedParts:  {"a", 1, 10, []int64{1}, now},
		queryPart:          {1},
		queryPartByKey:     {"a", "turn/1/0"},
		queryTurnClaim:     {1},
		queryTurnRenew:     {1, 1},
		finishPrompt:       {"a", 1, 1, "m", "", 0, 0, 0, 0, 0},
		claimChat:          {"a", 1, 1},
		insertMessageAccepted: {"a", 1, 1, 0, 2, "", "", "", false, 0, nil, "", nil, nil, nil, nil, false, 0, "private", "", "", false,
			[]int64{2}, []string{""}, []string{""}, []string{""}, []bool{false}},
		queryChat:           {"a", 1},
		querySession:        {"a", 1, 0},
		queryBlocked:        {"a", 1},
		queryChatMode:       {"a", 1},
		queryApproved:       {"a", 1},
		queryPromptForReply: {"a", 11, 0},
		queryFactsOf:        {"a", []int64{1, 2}},
		queryHasSummaries:   {"a", 1},
		queryLatestRolling:  {"a", 1, 0},
		queryLatestPeriodic: {"a", 1, 0, "week"},
		updateEdited:        {"", "", "", 0, "a", 1, 1},
		insertMessageInChat: {"a", 1, 1, 0, 2, "", "", "", false, 0, nil, "", nil, nil, nil, nil, false, 0, "private", "", "", false},
		queryIndexSource:    {"a", 1, []int64{1}},
		queryChatStats:      {"a", 1},
		queryBefore:         {"a", 1, 5, 3},
		queryFrom:           {"a", 1, 5, 3},
		queryStoredMedia:    {"a", 1, 1},
		queryPendingMedia:   {0, 10},
		queryVectorPending:  {0, "a", "m", 1000, 64},
		`SELECT 1 FROM message_search WHERE ` + probeCond + ` AND doc @@ $1::tsquery LIMIT $2`:                          append([]any{"'owl'", 500}, probeArgs...),
		`SELECT 1 FROM message_search WHERE ` + exactCond + ` AND doc @@ $1::tsquery ORDER BY message_id DESC LIMIT $2`: append([]any{"'owl'", 500}, exactArgs...),
	}
	for q, args := range queries {
		rows, err := conn.Query(ctx, "EXPLAIN "+q, args...)
		if err != nil {
			t.Errorf("EXPLAIN %s: %v", q, err)
			continue
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Errorf("EXPLAIN %s: %v", q, err)
			continue
		}
		plan := strings.Join(lines, "\n")
		// A claim sorts the chats with pending work, to lock their claims in order: few
		// rows, read through the pending partial indexes.
		claims := q == queryClaimedTurns || q == queryClaimedParts
		if strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Sort") && !claims {
			t.Errorf("query reads a table whole or sorts it:\n%s\nplan:\n%s", q, plan)
		}
	}
}
