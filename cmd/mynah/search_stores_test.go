package main

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/memory/locomo"
	"github.com/mynah-ai/mynah/internal/postgres"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// BenchmarkSearchStores is internal/memory's BenchmarkSearch on both stores: a memory
// search as the agent runs it over 100,000 messages of one chat (LoCoMo's turns repeated,
// asked LoCoMo's questions), in the chat and across the agent's chats, reporting the
// median and the 95th percentile. It skips without the LoCoMo data (../shared/bench
// beside the checkout, or the file MYNAH_LOCOMO names).
//
//	go test -run '^$' -bench SearchStores -benchtime 400x ./cmd/mynah
func BenchmarkSearchStores(b *testing.B) {
	convs, err := locomo.LoadFile(cmp.Or(os.Getenv("MYNAH_LOCOMO"), "../../../shared/bench/locomo10.json"))
	if errors.Is(err, fs.ErrNotExist) {
		b.Skipf("LoCoMo data not available: %v", err)
	} else if err != nil {
		b.Fatal(err)
	}
	const n = 100_000
	chat := mynah.Chat{ID: -100200, Type: mynah.ChatSupergroup}
	msgs, questions := locomo.Corpus(convs, n)
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			var db store
			var dsn string
			if backend == "sqlite" {
				sq, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "mynah.db"))
				if err != nil {
					b.Fatal(err)
				}
				db = sq
			} else {
				dsn = testPostgres(b)
				pg, err := postgres.Open(b.Context(), dsn, postgres.Options{})
				if err != nil {
					b.Fatal(err)
				}
				db = pg
			}
			defer db.Close()
			start := time.Now()
			for batch := range slices.Chunk(msgs, 1000) {
				if _, err := db.ImportMessages(b.Context(), "a", chat, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.Logf("%s: imported %d messages in %v", backend, n, time.Since(start).Round(time.Millisecond))
			if dsn != "" {
				// What autovacuum does a minute after a bulk import: the planner's statistics
				// and the GIN index's pending entries merged. Search is measured as it runs
				// from then on, not in the minute after.
				conn, err := pgx.Connect(b.Context(), dsn)
				if err != nil {
					b.Fatal(err)
				}
				_, err = conn.Exec(b.Context(), `VACUUM ANALYZE message_search`)
				conn.Close(b.Context())
				if err != nil {
					b.Fatal(err)
				}
			}
			s := memory.NewSearcher(db, memory.DefaultOptions(), nil)
			for _, scope := range []struct {
				name string
				chat mynah.ChatID
			}{{"chat", chat.ID}, {"agent", 0}} {
				b.Run(scope.name, func(b *testing.B) {
					var took []time.Duration
					i := 0
					for b.Loop() {
						q := questions[i%len(questions)]
						i++
						t := time.Now()
						if _, err := s.Search(b.Context(), memory.Query{Agent: "a", Chat: scope.chat, Text: q, K: 10}); err != nil {
							b.Fatal(err)
						}
						took = append(took, time.Since(t))
					}
					slices.Sort(took)
					b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
					b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
				})
			}
		})
	}
}
