package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func importCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "import",
		Short: "Import past messages into an agent's history",
		RunE:  func(*cobra.Command, []string) error { return errors.New("not built yet") },
	}
}
