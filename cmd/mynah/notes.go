package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/tool"
)

// notesPoll is how often serve looks for note files added, edited or removed by hand.
// Searches look too, so this only bounds how stale the index is between searches.
const notesPoll = 3 * time.Second

// agentNotes is agent a's notes: curated ones in agents/<Name>/memory/ (the folder the
// memory layer reads) and the ones its note tool writes in <data>/notes/<Name>/.
func agentNotes(cfg *config, a agentConfig, db *sqlite.DB) *memory.Notes {
	return memory.NewNotes(a.Name, curatedDir(a), episodicDir(cfg, a), db)
}

// episodicDir is where agent a's note tool writes.
func episodicDir(cfg *config, a agentConfig) string {
	return filepath.Join(cfg.DataDir, "notes", a.Name)
}

// runNotes keeps a's notes index in step with the files: at once, then every notesPoll,
// until ctx is done. A failed sync is logged and retried on the next tick.
func runNotes(ctx context.Context, agent string, notes *memory.Notes, log *slog.Logger) error {
	sync := func() {
		if _, err := notes.Sync(ctx); err != nil && ctx.Err() == nil {
			log.Error("indexing notes", "agent", agent, "err", err)
		}
	}
	sync()
	wakeEvery(ctx, notesPoll, sync)
	return nil
}

// notesTools are the tools over a's history and notes: memory_search, memory_get and note.
func notesTools(cfg *config, a agentConfig, db *sqlite.DB, search agentSearch) []tool.Tool {
	return []tool.Tool{
		memory.NewSearchTool(search.all),
		memory.NewGetTool(db).WithNotes(search.notes),
		memory.NewNoteTool(episodicDir(cfg, a)),
	}
}
