package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// stmts are the statements the pipeline runs, each prepared once (see stmt): parsing the
// SQL again on every call cost about a fifth of mynah's CPU under load. Writer statements
// run inside transactions through txn.stmt; reader statements run on the pool, where
// database/sql prepares each on a connection the first time it runs there and reuses it
// afterwards. Every field is set by newStmts; all are safe for concurrent use.
//
// A bound limit is written LIMIT +?, never LIMIT ?: SQLite (3.53, as bundled) plans a
// plain LIMIT ? for the value bound at the time and marks the statement to be prepared
// again whenever that parameter is bound anew, which is every call. The unary plus hides
// the value from the planner; the plans do not depend on it (TestQueryPlans).
type stmts struct {
	// On the writer.
	insertUpdate, upsertChat, upsertUser, insertSession, insertTurn *stmt
	insertMessage, updateEdited, ensureChat                         *stmt
	queryTurn, finishTurn, insertPart, queryPartByKey               *stmt
	queryPart, markSent, markFailed, upsertState, insertUsage       *stmt
	upsertPrompt                                                    *stmt
	userPending, countPending, insertPairing, queryPairing          *stmt
	approvePairing, setChatMode                                     *stmt
	insertUserIfNew                                                 *stmt
	markDone, retryPart, setPreview                                 *stmt
	indexedThroughW, unindexed, insertSearchAgent, insertSearchChat *stmt
	insertSearchDoc, setIndexedThrough, mergeSearch, totalChanges   *stmt
	insertFact, queryFactNorm, countFactsTx, evictFacts, deleteFact *stmt
	deleteAllFacts, queryRemoval, insertRemoval, shareFact          *stmt
	savepoint, releaseSavepoint, rollbackToSave                     *stmt // group commit (commit.go)
	// On the reader pool.
	message, history, historyThread, pendingTurns, pendingParts *stmt
	chat, session, blocked, promptForReply                      *stmt
	approved, pairings, chatMode                                *stmt
	chatScope, agentScope, search, searchFiltered, before, from *stmt
	probe, searchRecent, searchRecentFiltered, messagesByKey    *stmt
	idAtOrAfter, idRange                                        *stmt
	dueAt, indexedThrough, lastRowid                            *stmt
	countFacts, listFacts, factsOf                              *stmt
	// Summaries (summaries.go).
	insertSummary, existingRolling, existingPeriodic, insertFlush *stmt
	latestRolling, latestPeriodic, summariesDue, between          *stmt
	hasSummaries                                                  *stmt
	betweenThread, older, promptsAfter, lastTurn                  *stmt
	// Notes (notes.go).
	agentNoW, noteHash, upsertNoteFile, deleteNoteChunks, deleteNoteFile *stmt
	nextNoteChunk, insertNoteChunk, noteFiles, searchNotes               *stmt
	// Vectors (vectors.go).
	insertVector, insertVectorItem, setVectorProgress        *stmt
	vectorProgress, vectorPending, vectorByHash, vectorsChat *stmt
	vectorsAgent                                             *stmt
	// Media (media.go).
	insertMediaWork, upsertMediaNote, deleteMediaNote, deferMedia *stmt
	doneMedia, queryStoredMedia, setStoredMedia                   *stmt
	mediaNote, pendingMedia                                       *stmt
	// Crews (crew.go): read in every MarkSent.
	crewPeers *stmt

	all []*stmt // every statement above, for close

	write    *sql.DB
	prepping chan struct{} // closed when prepareWriter is done; nil when it never ran
}

// newStmts returns the statements of stmts on write or read, none prepared yet: a reader
// statement is prepared on its first use, the writer's by prepareWriter.
func newStmts(write, read *sql.DB) *stmts {
	s := &stmts{write: write}
	for _, p := range []struct {
		dst   **stmt
		on    *sql.DB
		query string
	}{
		{&s.savepoint, write, savepoint},
		{&s.releaseSavepoint, write, releaseSavepoint},
		{&s.rollbackToSave, write, rollbackToSave},
		{&s.insertUpdate, write, insertUpdate},
		{&s.upsertChat, write, upsertChat},
		{&s.upsertUser, write, upsertUser},
		{&s.insertSession, write, insertSession},
		{&s.insertTurn, write, insertTurn},
		{&s.insertMessage, write, insertMessage},
		{&s.updateEdited, write, updateEdited},
		{&s.ensureChat, write, ensureChat},
		{&s.queryTurn, write, queryTurn},
		{&s.finishTurn, write, finishTurn},
		{&s.insertPart, write, insertPart},
		{&s.queryPartByKey, write, queryPartByKey},
		{&s.queryPart, write, queryPart},
		{&s.markSent, write, markSent},
		{&s.markFailed, write, markFailed},
		{&s.upsertState, write, upsertState},
		{&s.insertUsage, write, insertUsage},
		{&s.upsertPrompt, write, upsertPrompt},
		{&s.userPending, write, queryUserPending},
		{&s.countPending, write, countPending},
		{&s.insertPairing, write, insertPairing},
		{&s.queryPairing, write, queryPairing},
		{&s.approvePairing, write, approvePairing},
		{&s.setChatMode, write, upsertChatMode},
		{&s.markDone, write, markDone},
		{&s.retryPart, write, retryPart},
		{&s.setPreview, write, setPreview},
		{&s.indexedThroughW, write, queryIndexedThrough},
		{&s.unindexed, write, queryUnindexed},
		{&s.insertSearchAgent, write, insertSearchAgent},
		{&s.insertSearchChat, write, insertSearchChat},
		{&s.insertSearchDoc, write, insertSearchDoc},
		{&s.setIndexedThrough, write, setIndexedThrough},
		{&s.mergeSearch, write, mergeSearch},
		{&s.totalChanges, write, queryTotalChanges},
		{&s.insertFact, write, insertFact},
		{&s.queryFactNorm, write, queryFactNorm},
		{&s.countFactsTx, write, countFacts},
		{&s.evictFacts, write, evictFacts},
		{&s.deleteFact, write, deleteFact},
		{&s.deleteAllFacts, write, deleteAllFacts},
		{&s.shareFact, write, shareFact},
		{&s.queryRemoval, write, queryRemoval},
		{&s.insertRemoval, write, insertRemoval},
		{&s.countFacts, read, countFacts},
		{&s.listFacts, read, queryFacts},
		{&s.factsOf, read, queryFactsOf},
		{&s.message, read, queryMessage},
		{&s.history, read, queryHistory},
		{&s.historyThread, read, queryHistoryThread},
		{&s.pendingTurns, read, queryPendingTurns},
		{&s.pendingParts, read, queryPendingParts},
		{&s.chat, read, queryChat},
		{&s.session, read, querySession},
		{&s.blocked, read, queryBlocked},
		{&s.promptForReply, read, queryPromptForReply},
		{&s.approved, read, queryApproved},
		{&s.pairings, read, queryPairings},
		{&s.chatMode, read, queryChatMode},
		{&s.insertUserIfNew, write, insertUserIfNew},
		{&s.chatScope, read, queryChatScope},
		{&s.agentScope, read, queryAgentScope},
		{&s.search, read, querySearch},
		{&s.searchFiltered, read, querySearchFiltered},
		{&s.before, read, queryBefore},
		{&s.from, read, queryFrom},
		{&s.probe, read, queryProbe},
		{&s.searchRecent, read, querySearchRecent},
		{&s.searchRecentFiltered, read, querySearchRecentFiltered},
		{&s.messagesByKey, read, queryMessagesByKey},
		{&s.idAtOrAfter, read, queryIDAtOrAfter},
		{&s.idRange, read, queryIDRange},
		{&s.dueAt, read, queryDueAt},
		{&s.indexedThrough, read, queryIndexedThrough},
		{&s.lastRowid, read, queryLastRowid},
		{&s.insertSummary, write, insertSummary},
		{&s.existingRolling, write, queryExistingRolling},
		{&s.existingPeriodic, write, queryExistingPeriodic},
		{&s.insertFlush, write, insertFlush},
		{&s.latestRolling, read, queryLatestRolling},
		{&s.hasSummaries, read, queryHasSummaries},
		{&s.latestPeriodic, read, queryLatestPeriodic},
		{&s.summariesDue, read, querySummariesDue},
		{&s.between, read, queryBetween},
		{&s.betweenThread, read, queryBetweenThread},
		{&s.older, read, queryOlder},
		{&s.promptsAfter, read, queryPromptsAfter},
		{&s.lastTurn, read, queryLastTurn},
		{&s.agentNoW, write, queryAgentScope},
		{&s.noteHash, write, queryNoteHash},
		{&s.upsertNoteFile, write, upsertNoteFile},
		{&s.deleteNoteChunks, write, deleteNoteChunks},
		{&s.deleteNoteFile, write, deleteNoteFile},
		{&s.nextNoteChunk, write, queryNextChunk},
		{&s.insertNoteChunk, write, insertNoteChunk},
		{&s.noteFiles, read, queryNoteFiles},
		{&s.searchNotes, read, querySearchNotes},
		{&s.insertVector, write, insertVector},
		{&s.insertVectorItem, write, insertVectorItem},
		{&s.setVectorProgress, write, setVectorProgress},
		{&s.vectorProgress, read, queryVectorProgress},
		{&s.vectorPending, read, queryVectorPending},
		{&s.vectorByHash, read, queryVectorByHash},
		{&s.vectorsChat, read, queryVectorsChat},
		{&s.vectorsAgent, read, queryVectorsAgent},
		{&s.insertMediaWork, write, insertMediaWork},
		{&s.upsertMediaNote, write, upsertMediaNote},
		{&s.deleteMediaNote, write, deleteMediaNote},
		{&s.deferMedia, write, deferMedia},
		{&s.doneMedia, write, doneMedia},
		{&s.queryStoredMedia, write, queryStoredMedia},
		{&s.setStoredMedia, write, setStoredMedia},
		{&s.mediaNote, read, queryMediaNote},
		{&s.pendingMedia, read, queryPendingMedia},
		{&s.crewPeers, write, queryCrewPeers},
	} {
		st := &stmt{on: p.on, query: p.query}
		*p.dst = st
		s.all = append(s.all, st)
	}
	return s
}

// prepareWriter prepares the writer's statements in the background, between
// transactions, closing s.prepping when done. A serving process (OpenExclusive) runs it:
// it took ~5 ms of every start, which overlaps the rest of it (configuration, the bot's
// first calls). A one-off command (a search, an import) does not: it uses a few of the
// statements, and on a busy machine the goroutine preparing the rest competed with it
// for a core. A transaction that needs a statement not prepared yet prepares its own copy
// (txn.stmt); preparing the shared one then would wait for the only writer connection,
// which the transaction holds. A failure (a bug: TestQueryPlans prepares every statement)
// is left to the statement's first use, which reports it.
func (s *stmts) prepareWriter() {
	s.prepping = make(chan struct{})
	go s.prepareAll()
}

func (s *stmts) prepareAll() {
	defer close(s.prepping)
	for _, st := range s.all {
		if st.on == s.write {
			_, _ = st.prepared(context.Background())
		}
	}
}

// stmt is a prepared statement. A reader's is prepared on its first use, not when the DB
// opens: preparing every statement took 7-10 ms of each start on the CI machine, and many
// reads are rare (notes, vectors, media, pairing…). It has sql.Stmt's methods. Preparing
// fails only on a bug (TestQueryPlans prepares every statement); a failure is returned
// by the call and retried on the next.
type stmt struct {
	on    *sql.DB
	query string
	mu    sync.Mutex
	ready atomic.Pointer[sql.Stmt]
}

// prepared returns the prepared statement, preparing it if this is its first use.
func (s *stmt) prepared(ctx context.Context) (*sql.Stmt, error) {
	if st := s.ready.Load(); st != nil {
		return st, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.ready.Load(); st != nil {
		return st, nil
	}
	st, err := s.on.PrepareContext(ctx, s.query)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", s.query, translate(ctx, err))
	}
	s.ready.Store(st)
	return st, nil
}

// ExecContext is sql.Stmt's.
func (s *stmt) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	st, err := s.prepared(ctx)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// QueryContext is sql.Stmt's.
func (s *stmt) QueryContext(ctx context.Context, args ...any) (*sql.Rows, error) {
	st, err := s.prepared(ctx)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext is sql.Stmt's. A statement that cannot be prepared runs unprepared,
// so that its *sql.Row carries the error.
func (s *stmt) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	st, err := s.prepared(ctx)
	if err != nil {
		return s.on.QueryRowContext(ctx, s.query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// close closes every prepared statement; statements in use close when their query ends.
func (s *stmts) close() error {
	if s.prepping != nil {
		<-s.prepping
	}
	var errs []error
	for _, st := range s.all {
		if p := st.ready.Load(); p != nil {
			errs = append(errs, p.Close())
		}
	}
	return errors.Join(errs...)
}

// txn is a write transaction that binds each prepared statement to itself once, on first
// use: Tx.StmtContext reuses the statement already prepared on the writer connection.
type txn struct {
	*sql.Tx
	bound []boundStmt // a handful per transaction: a linear search beats a map
}

type boundStmt struct {
	db *stmt
	tx *sql.Stmt
}

// stmt returns s, a statement prepared on the writer, bound to the transaction. The bound
// statement is closed with the transaction.
func (t *txn) stmt(ctx context.Context, s *stmt) (*sql.Stmt, error) {
	for _, b := range t.bound {
		if b.db == s {
			return b.tx, nil
		}
	}
	var b *sql.Stmt
	if p := s.ready.Load(); p != nil {
		b = t.StmtContext(ctx, p)
	} else {
		// Not prepared yet (prepareWriter is still at work, or never ran): a copy of the
		// transaction's own, closed with it.
		var err error
		if b, err = t.PrepareContext(ctx, s.query); err != nil {
			return nil, fmt.Errorf("prepare %q: %w", s.query, translate(ctx, err))
		}
	}
	t.bound = append(t.bound, boundStmt{db: s, tx: b})
	return b, nil
}

// exec runs the prepared statement s in the transaction. Like queryRow, it does not
// watch ctx while the statement runs (see brief): every prepared writer statement touches
// a few rows, and watching cost a goroutine per statement in the driver — 200 of them
// queued at once under load. A ctx already done still fails the statement, and with it
// the writer's savepoint.
func (t *txn) exec(ctx context.Context, s *stmt, args ...any) (sql.Result, error) {
	ctx = brief(ctx)
	st, err := t.stmt(ctx, s)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// query runs the prepared query s in the transaction.
func (t *txn) query(ctx context.Context, s *stmt, args ...any) (*sql.Rows, error) {
	st, err := t.stmt(ctx, s)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// queryRow runs the prepared query s in the transaction.
func (t *txn) queryRow(ctx context.Context, s *stmt, args ...any) *sql.Row {
	ctx = brief(ctx)
	st, err := t.stmt(ctx, s)
	if err != nil {
		return t.Tx.QueryRowContext(ctx, s.query, args...) // carries the error
	}
	return st.QueryRowContext(ctx, args...)
}
