package memory_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/memory/locomo"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// BenchmarkSearch measures a memory search as the agent runs it (terms, BM25 candidates,
// ranking) over 100,000 stored messages of one agent in one chat: LoCoMo's turns repeated
// (realistic chat text and word frequencies), queried with LoCoMo's questions. It reports
// the 95th percentile next to the mean, and the CPU time a search used (the process's,
// which the search alone uses while it runs): on a machine shared with other work the wall
// times, p95 most, measure the wait for a core as much as the search, the CPU time only
// the search. It skips without the LoCoMo data.
func BenchmarkSearch(b *testing.B) {
	db, chat, _, questions := searchCorpus(b)
	s := memory.NewSearcher(db, memory.DefaultOptions(), nil)
	for _, scope := range []struct {
		name string
		chat mynah.ChatID
	}{{"chat", chat.ID}, {"agent", 0}} {
		b.Run(scope.name, func(b *testing.B) {
			searchLoop(b, s, scope.chat, questions, cpuTime)
		})
	}
}

// searchLoop runs the benchmark's searches, the questions in turn, and reports the CPU
// time per search that cpu measures, the p95 and the p50 next to the mean.
func searchLoop(b *testing.B, s *memory.Searcher, chat mynah.ChatID, questions []string, cpu func() time.Duration) {
	var took []time.Duration
	i := 0
	start := cpu()
	for b.Loop() {
		q := questions[i%len(questions)]
		i++
		t := time.Now()
		if _, err := s.Search(b.Context(), memory.Query{Agent: "a", Chat: chat, Text: q, K: 10}); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(t))
	}
	used := cpu() - start
	slices.Sort(took)
	if used > 0 {
		b.ReportMetric(float64(used.Microseconds())/1000/float64(len(took)), "cpu-ms/op")
	}
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
}

// BenchmarkImport measures ImportMessages, 1,000 messages a transaction, each indexed
// by the history index's trigger.
func BenchmarkImport(b *testing.B) {
	db := openStore(b)
	chat := mynah.Chat{ID: -100300, Type: mynah.ChatSupergroup}
	next := 0
	batch := make([]mynah.Message, 1000)
	for b.Loop() {
		for i := range batch {
			next++
			batch[i] = mynah.Message{ID: mynah.MessageID(next), Time: time.Unix(int64(next), 0), Sender: mynah.User{ID: 1, FirstName: "Alice"},
				Text: fmt.Sprintf("message %d about the weekend hike, the weather and what to bring", next)}
		}
		if _, err := db.ImportMessages(b.Context(), "a", chat, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "msgs/s")
}

// searchCorpus imports the search benchmarks' chat into a new database, closed when b
// ends: 100,000 messages of one agent, LoCoMo's turns repeated (realistic chat text and
// word frequencies), indexed as an import leaves them. It returns the messages and
// LoCoMo's questions, and skips b without the LoCoMo data.
func searchCorpus(b *testing.B) (*sqlite.DB, mynah.Chat, []mynah.Message, []string) {
	b.Helper()
	convs := readLoCoMo(b)
	// Opened as mynah serve opens it.
	db, err := sqlite.OpenExclusive(b.Context(), filepath.Join(b.TempDir(), "mynah.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	const n = 100_000
	chat := mynah.Chat{ID: -100200, Type: mynah.ChatSupergroup}
	msgs, questions := locomo.Corpus(convs, n)
	start := time.Now()
	for batch := range slices.Chunk(msgs, 1000) {
		if _, err := db.ImportMessages(b.Context(), "a", chat, batch); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.IndexPending(b.Context()); err != nil { // as an import does
		b.Fatal(err)
	}
	b.Logf("imported and indexed %d messages in %v", n, time.Since(start).Round(time.Millisecond))
	return db, chat, msgs, questions
}
