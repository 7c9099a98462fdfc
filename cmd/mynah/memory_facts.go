package main

import "github.com/spf13/cobra"

// memoryFactsCommands are `mynah memory list|add|rm`.
func memoryFactsCommands() []*cobra.Command { return nil }
