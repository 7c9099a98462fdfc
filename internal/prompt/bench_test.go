package prompt_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/tokens"
)

// BenchmarkAssemble builds the prompt of a group chat with 100,000 stored messages, the
// way every turn does (session, history window, reply chain, exact OpenAI token counts),
// and reports the p50/p99 latency of one build. Its cost must follow the window, not the
// history: compare with the 1,000-message chat.
//
//	go test -run '^$' -bench Assemble -benchmem ./internal/prompt
func BenchmarkAssemble(b *testing.B) {
	for _, size := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("messages=%d", size), func(b *testing.B) {
			db := generatedChat(b, size)
			asm := prompt.NewAssembler(prompt.Agent{
				Name: "Mynah", Bot: benchBot, Budget: 32000 - 1024, MaxMessages: 500,
				Count: tokens.Cached(tokens.For("openai", "gpt-4o"), 8192).Count, // as cmd/mynah wires it
			}, db, prompt.Sources{}, nil)
			turn := prompt.Turn{Chat: benchChat.ID, Target: mynah.MessageID(size)}
			ctx := context.Background()
			if _, _, err := asm.Assemble(ctx, turn); err != nil { // warm the tokenizer tables
				b.Fatal(err)
			}
			durations := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				_, comp, err := asm.Assemble(ctx, turn)
				durations = append(durations, time.Since(start))
				if err != nil || len(comp.Messages) == 0 {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			slices.Sort(durations)
			b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

var (
	benchChat = mynah.Chat{ID: -100777, Type: mynah.ChatSupergroup, Title: "Busy group"}
	benchBot  = mynah.User{ID: 7000001, FirstName: "Mynah", Username: "mynah_bot", IsBot: true}
)

// generatedChat stores size messages of a busy group: several speakers, the agent now
// and then, replies to old messages.
func generatedChat(b *testing.B, size int) *sqlite.DB {
	b.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	people := []mynah.User{{ID: 1001, FirstName: "Alice"}, {ID: 1002, FirstName: "Bob"}, {ID: 1003, FirstName: "Олена"}, {ID: 1004, FirstName: "Dmytro"}}
	texts := []string{
		"Has anyone seen the waxwings by the lake this morning?",
		"Так, ціла зграя на горобині біля мосту 🐦",
		"I'll bring the spare binoculars on Saturday, and a thermos.",
		"The forecast says showers after noon, so let's start early.",
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= size; i++ {
		m := &mynah.Message{Agent: "Mynah", Chat: benchChat, ID: mynah.MessageID(i), Time: t0.Add(time.Duration(i) * time.Minute), Text: texts[i%len(texts)]}
		if i%10 == 0 {
			m.Sender, m.Outgoing = benchBot, true
		} else {
			m.Sender = people[i%len(people)]
		}
		if i%7 == 0 && i > 1000 {
			m.ReplyTo = &mynah.ReplyRef{ID: mynah.MessageID(i - 997), Sender: people[0], Text: texts[0]}
		}
		if _, err := db.Accept(context.Background(), "Mynah", int64(i), mynah.Intake{Chat: benchChat, Message: m}); err != nil {
			b.Fatal(err)
		}
	}
	return db
}
