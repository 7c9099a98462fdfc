package main

import (
	"cmp"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func checkCommand() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Validate the configuration without connecting to anything",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(dir, os.Getenv, loadOptions{})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "config %s is valid; data in %s; telegram %s (%s)\n", cfg.Dir, cfg.DataDir, cfg.Telegram.Mode, cfg.Telegram.APIURL)
			for _, a := range cfg.Agents {
				fmt.Fprintf(out, "agent %s: model %s (%s), roles %v, budget %d tokens, history cap %d\n",
					a.Name, a.Model, cmp.Or(a.Provider.BaseURL, "default endpoint"), a.Roles, a.ContextTokens-a.ReplyTokens, a.HistoryMessages)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "config", "c", ".", "configuration directory (with mynah.yaml)")
	return cmd
}
