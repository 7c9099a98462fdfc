// Package storetest is the conformance suite of the mynah store contracts. Every backend
// (internal/sqlite, internal/postgres, and any fake standing in for them) runs it from its
// own tests:
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, storetest.Backend{Open: openTemp, Reopen: reopen})
//	}
//
// Run is the suite's one entry point: it covers every contract that mynah.Store embeds,
// so a backend that compiles as a mynah.Store is checked against all of them.
//
// The subtests assert what users would notice: an update handled once, history in order
// and never lost or truncated, a reset that hides but keeps, a turn answered once, a reply
// sent once, agents that never see each other's chats.
package storetest

import (
	"testing"

	"github.com/mynah-ai/mynah"
)

// Backend opens the stores under test.
type Backend struct {
	// Open returns a fresh, empty store. It registers the store's Close with t.Cleanup;
	// the suite may close the store earlier, so Close must be safe to call twice.
	Open func(t *testing.T) mynah.Store
	// Reopen closes old and returns a store on the same data, as a restarted process
	// would see it. Nil skips the subtests about surviving a restart.
	Reopen func(t *testing.T, old mynah.Store) mynah.Store
}

// test is one subtest of the suite.
type test struct {
	name string
	fn   func(*testing.T, Backend)
}

// Run runs the conformance suite of every contract of mynah.Store against b, one subtest
// per contract (or pair of contracts) with a subtest per behaviour. Subtests run in
// parallel, each on its own store.
func Run(t *testing.T, b Backend) {
	groups := []struct {
		name  string
		tests []test
	}{
		{"Inbox", []test{
			{"Dedupe", testDedupe},
			{"DedupeSurvivesReopen", testDedupeSurvivesReopen},
			{"DedupeConcurrent", testDedupeConcurrent},
			{"ConcurrentAccepts", testConcurrentAccepts},
			{"InvalidIntakeChangesNothing", testInvalidIntake},
			{"ResentMessageKeepsOneRow", testResentMessage},
			{"ReplayedMessageQueuesOneTurn", testReplayedMessage},
			{"Edit", testEdit},
			{"EditOfUnknownMessage", testEditUnknown},
			{"Reset", testReset},
			{"AcceptReturnsTurn", testAcceptReturnsTurn},
			{"CanceledContext", testCanceledContext},
		}},
		{"Messages", []test{
			{"MessageRoundTrip", testMessageRoundTrip},
			{"History", testHistory},
			{"HistoryLargeChat", testHistoryLargeChat},
			{"UnicodeRoundTrip", testUnicode},
			{"LargeMessage", testLargeMessage},
			{"NotFound", testNotFound},
			{"ChatLatestWins", testChatLatestWins},
		}},
		{"Sessions", []test{
			{"TopicSessions", testTopicSessions},
		}},
		{"Turns", []test{
			{"TurnQueue", testTurnQueue},
			{"FinishTurnIdempotent", testFinishTurnIdempotent},
			{"FinishTurnAtomic", testFinishTurnAtomic},
			{"FinishTurnReturnsParts", testFinishTurnReturnsParts},
			{"FinishTurnReturnsPending", testFinishTurnReturnsPending},
			{"FinishTurnReturnsStored", testFinishTurnReturnsStored},
			{"FinishTurnWith", testFinishTurnWith},
			{"SetPreview", testSetPreview},
		}},
		{"Outbox", []test{
			{"OutboxKeysUnique", testOutboxKeysUnique},
			{"MarkSent", testMarkSent},
			{"MarkSentIsThePart", testMarkSentIsThePart},
			{"MarkFailed", testMarkFailed},
			{"PlanRoundTrip", testPlanRoundTrip},
			{"MarkDone", testMarkDone},
			{"RetryPart", testRetryPart},
		}},
		{"Chats", []test{
			{"Blocked", testBlocked},
			{"AgentsIsolated", testAgentsIsolated},
		}},
		{"UsageLog", []test{
			{"RecordUsage", testRecordUsage},
		}},
		{"PromptLog", []test{
			{"PromptForReply", testPromptForReply},
			{"PromptNewestReply", testPromptNewestReply},
			{"PromptRecordReplaces", testPromptRecordReplaces},
			{"PromptComposition", testPromptComposition},
			{"PromptAgentsIsolated", testPromptAgentsIsolated},
		}},
		{"Access", []test{ // Pairings, ChatModes and GroupApprovals
			{"PairingSameUserSameCode", testPairingSameUser},
			{"PairingAtMostPending", testPairingAtMostPending},
			{"PairingExpires", testPairingExpires},
			{"PairingApprove", testPairingApprove},
			{"PairingApproveWelcome", testPairingApproveWelcome},
			{"PairingCodesUnique", testPairingCodesUnique},
			{"PairingAgentsIsolated", testPairingAgentsIsolated},
			{"ChatModes", testChatModes},
			{"AccessSurvivesReopen", testAccessSurvivesReopen},
			{"GroupUnknown", testGroupUnknown},
			{"GroupAdded", testGroupAdded},
			{"GroupApproveUnknown", testGroupApproveUnknown},
			{"GroupNoticedOnce", testGroupNoticedOnce},
			{"GroupList", testGroupList},
		}},
		{"Facts", []test{
			{"FactRoundTrip", testFactRoundTrip},
			{"FactDedupe", testFactDedupe},
			{"FactCapEvictsOldest", testFactCap},
			{"FactPages", testFactPages},
			{"FactOwnerOnly", testFactOwnerOnly},
			{"FactRemoveOnce", testFactRemoveOnce},
			{"FactRemoveAll", testFactRemoveAll},
			{"FactsOfSeveral", testFactsOf},
			{"FactAgentsIsolated", testFactAgentsIsolated},
			{"FactInvalid", testFactInvalid},
			{"FactsSurviveReopen", testFactsSurviveReopen},
			{"FactScopes", testFactScopes},
		}},
		{"NoteIndex", []test{
			{"NotesSearchable", testNotesSearchable},
			{"NotesReplacedWhole", testNotesReplaced},
			{"NotesSameHashKeepsChunks", testNotesSameHash},
			{"NotesRemoved", testNotesRemoved},
			{"NotesScopedByAgent", testNotesScoped},
			{"NotesBadInput", testNotesBadInput},
			{"NotesVisibleInTheirChats", testNotesVisible},
		}},
		{"HistorySearch", []test{
			{"SearchFindsLiveMessages", testSearchLive},
			{"SearchStemsAndFolds", testSearchStems},
			{"SearchRanksBM25", testSearchRanks},
			{"SearchUnknownTermKeepsOthers", testSearchUnknownTerm},
			{"SearchCountsWhatIsSaid", testSearchCountsSaid},
			{"SearchEscapesSyntax", testSearchEscapes},
			{"SearchFollowsEdits", testSearchEdits},
			{"SearchScopes", testSearchScopes},
			{"SearchContextColumn", testSearchContext},
			{"SearchBoost", testSearchBoost},
			{"SearchBigChat", testSearchBigChat},
			{"SearchCommonTerms", testSearchCommonTerms},
			{"SearchWithin", testSearchWithin},
			{"SearchAsOf", testSearchAsOf},
			{"SearchWithinBusyChat", testSearchWithinBusyChat},
			{"SearchTypos", testSearchTypos},
			{"Around", testAround},
		}},
		{"HistoryImport", []test{
			{"ImportStoresLikeLive", testImportLikeLive},
			{"ImportIdempotent", testImportIdempotent},
			{"ImportKeepsKnown", testImportKeepsKnown},
			{"ImportInvalidChangesNothing", testImportInvalid},
			{"ImportedIsSearchable", testImportSearchable},
		}},
		{"Summaries", []test{
			{"SummaryRoundTrip", testSummaryRoundTrip},
			{"SummaryIdempotent", testSummaryIdempotent},
			{"SummaryLatest", testSummaryLatest},
			{"HasSummaries", testHasSummaries},
			{"SummaryInvalid", testSummaryInvalid},
			{"FlushOnce", testFlushOnce},
			{"SummariesDue", testSummariesDue},
			{"MessagesBetween", testMessagesBetween},
			{"MessagesInPeriod", testMessagesInPeriod},
			{"PromptsAfter", testPromptsAfter},
			{"SummariesSurviveReopen", testSummariesSurviveReopen},
		}},
		{"VectorStore", []test{
			{"VectorsPendingThenSaved", testVectorsPending},
			{"VectorsCachedByText", testVectorsCached},
			{"VectorsScopes", testVectorsScopes},
			{"VectorsRejectEmpty", testVectorsRejectEmpty},
			{"VectorsSurviveReopen", testVectorsSurviveReopen},
		}},
		{"Media", []test{ // MediaNotes and MediaQueue
			{"MediaNoteRoundTrip", testMediaNoteRoundTrip},
			{"MediaNotesList", testMediaNotesList},
			{"MediaQueueJoins", testMediaQueueJoins},
			{"MediaQueueDeferDone", testMediaQueueDeferDone},
			{"SetMediaDescription", testSetMediaDescription},
			{"MediaSurvivesReopen", testMediaSurvivesReopen},
		}},
		{"Crews", []test{ // Crews and ModelSessions
			{"CrewStateRoundTrip", testCrewStateRoundTrip},
			{"CrewQueuesTurn", testCrewQueuesTurn},
			{"CrewMembersSeeEachOther", testCrewMembersSeeEachOther},
			{"CrewShareMessage", testCrewShareMessage},
			{"CrewReset", testCrewReset},
			{"CrewActiveSurvivesReopen", testCrewActiveSurvivesReopen},
			{"ModelSessions", testModelSessions},
		}},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, tt := range g.tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					tt.fn(t, b)
				})
			}
		})
	}
}
