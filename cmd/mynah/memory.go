package main

import "github.com/spf13/cobra"

// memoryCommand groups what an operator does with an agent's memory: search it the way
// the agent does, and read or edit the facts it keeps about people.
func memoryCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Search an agent's memory and manage the facts it keeps",
	}
	cmd.AddCommand(memorySearchCommand())
	cmd.AddCommand(memoryFactsCommands()...)
	return cmd
}
