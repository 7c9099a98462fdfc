package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func memorySearchCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "search",
		Short: "Search an agent's memory as the agent does",
		RunE:  func(*cobra.Command, []string) error { return errors.New("not built yet") },
	}
}
