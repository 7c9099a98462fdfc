package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func benchCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "bench",
		Short: "Measure mynah on public benchmarks",
		RunE:  func(*cobra.Command, []string) error { return errors.New("not built yet") },
	}
}
