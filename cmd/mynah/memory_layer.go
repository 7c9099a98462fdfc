package main

import (
	"context"
	"path/filepath"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/ingest"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/telegram"
	"github.com/mynah-ai/mynah/internal/tool"
)

// memoryLayer is the agent's long-term memory layer: the curated notes an operator keeps
// in agents/<Name>/memory/, then the facts about the people taking part.
func memoryLayer(a agentConfig, store mynah.Store) prompt.Source {
	return memory.LongTerm{memory.NewCurated(curatedDir(a)), memory.NewFacts(store)}
}

// curatedDir is agents/<Name>/memory beside the agent's file.
func curatedDir(a agentConfig) string {
	return filepath.Join(filepath.Dir(a.File), a.Name, "memory")
}

// factTools are the remember and forget tools over store.
func factTools(a agentConfig, store memory.FactStore) []tool.Tool {
	return []tool.Tool{memory.NewRemember(store, a.MaxFacts), memory.NewForget(store)}
}

// answerCallbacks answers button presses through bot, for ingest.Options.Answer.
func answerCallbacks(bot *telegram.Bot) func(ctx context.Context, id, text string) error {
	return func(ctx context.Context, id, text string) error { return bot.AnswerCallback(ctx, id, text, false) }
}

// callbackFor converts a normalised button press for the ingest stage; nil for none.
func callbackFor(u telegram.Update) *ingest.Callback {
	if c := u.Callback; c != nil {
		return &ingest.Callback{ID: c.ID, From: c.From, Message: c.Message, Data: c.Data}
	}
	return nil
}
