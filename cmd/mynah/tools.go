package main

import (
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/tool"
)

// agentTools are the tools an agent offers the model besides the plan tools (which the
// runtime adds itself): the memory engine's.
func agentTools(a agentConfig, db *sqlite.DB) (tool.Registry, error) {
	return tool.NewRegistry(factTools(a, db)...)
}
