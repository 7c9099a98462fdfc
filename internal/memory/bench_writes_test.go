package memory_test

import (
	"context"
	"log/slog"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
)

// writesPerSecond is the messages BenchmarkSearchWrites stores beside the searches: a
// busy bot's intake (mynah bench load's 100 chats answered at once is a few hundred).
const writesPerSecond = 100

// BenchmarkSearchWrites is BenchmarkSearch's chat search while messages arrive: a
// goroutine stores writesPerSecond messages a second in the agent's other chats, and the
// indexer indexes them every second, as serve runs. Every commit empties the readers'
// page caches and adds index segments, so this is the search a serving bot makes. The CPU
// figure is the searching thread's alone (Linux; elsewhere none), not the writer's.
func BenchmarkSearchWrites(b *testing.B) {
	db, chat, msgs, questions := searchCorpus(b)
	s := memory.NewSearcher(db, memory.DefaultOptions(), nil)

	ctx, stop := context.WithCancel(b.Context())
	var wg sync.WaitGroup
	wg.Go(func() { db.RunIndexer(ctx, slog.New(slog.DiscardHandler)) })
	wg.Go(func() {
		tick := time.NewTicker(time.Second / writesPerSecond)
		defer tick.Stop()
		for i := 1; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			m := msgs[i%len(msgs)]
			m.Chat = mynah.Chat{ID: mynah.ChatID(1000 + i%100), Type: mynah.ChatPrivate}
			m.ID = mynah.MessageID(i)
			if _, err := db.Accept(ctx, "a", int64(i), mynah.Intake{Chat: m.Chat, Message: &m}); err != nil && ctx.Err() == nil {
				b.Error(err)
				return
			}
		}
	})
	defer wg.Wait()
	defer stop()
	time.Sleep(2 * time.Second) // the writes under way, the indexer past its first runs

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	searchLoop(b, s, chat.ID, questions, threadCPUTime)
}
