package main

import (
	"path/filepath"

	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/tool"
)

// memoryLayer is the agent's long-term memory layer: the curated notes an operator keeps
// in agents/<Name>/memory/, then the facts about the people taking part, when store
// keeps facts.
func memoryLayer(a agentConfig, store prompt.Store) prompt.Source {
	layer := memory.LongTerm{memory.NewCurated(curatedDir(a))}
	if facts, ok := store.(memory.FactStore); ok {
		layer = append(layer, memory.NewFacts(facts))
	}
	return layer
}

// curatedDir is agents/<Name>/memory beside the agent's file.
func curatedDir(a agentConfig) string {
	return filepath.Join(filepath.Dir(a.File), a.Name, "memory")
}

// factTools are the remember and forget tools over store.
func factTools(a agentConfig, store memory.FactStore) []tool.Tool {
	return []tool.Tool{memory.NewRemember(store, a.MaxFacts), memory.NewForget(store)}
}
