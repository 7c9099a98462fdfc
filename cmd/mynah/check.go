package main

import (
	"cmp"
	"fmt"
	"os"

	"github.com/mynah-ai/mynah/internal/postgres"
	"github.com/spf13/cobra"
)

func checkCommand() *cobra.Command {
	var dir string
	var online bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Validate the configuration without connecting to anything",
		Long: `check reads the configuration directory (mynah.yaml, agents/<Name>.md, prompts/) and
the environment variables it references, validates every key, and prints each agent's
model, roles and prompt budget. It connects to nothing, unless --online: then it also
tries each bot token (getMe) and provider key (a one-token call) once; mynah doctor checks
the whole installation.

Needs: the bot token of every agent (TELEGRAM_BOT_TOKEN or what its front matter names)
and the key of every provider an agent uses (OPENAI_API_KEY, ANTHROPIC_API_KEY,
GEMINI_API_KEY), unless the provider has a base_url that takes none.
A problem is reported with the file, the key and what is wrong; the exit code is 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(dir, os.Getenv, loadOptions{})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			data := cfg.DataDir
			if cfg.Store != "" {
				data = postgres.Redact(string(cfg.Store))
			}
			fmt.Fprintf(out, "config %s is valid; data in %s; telegram %s (%s)\n", cfg.Dir, data, cfg.Telegram.Mode, cfg.Telegram.APIURL)
			for _, a := range cfg.Agents {
				fmt.Fprintf(out, "agent %s: model %s (%s), roles %v, budget %d tokens, history cap %d\n",
					a.Name, a.Model, cmp.Or(a.Provider.BaseURL, "default endpoint"), a.Roles, a.ContextTokens-a.ReplyTokens, a.HistoryMessages)
				hears := "voice notes keep placeholders (no media.transcribe)"
				if a.Transcribes {
					hears = "transcribed by " + a.Transcriber.Name
				}
				sees := "shown to the model"
				if !a.Media.Vision {
					sees = "described first"
				}
				fmt.Fprintf(out, "  media: photos %s, described by %s, %d files a minute; voice %s\n", sees, a.Describer.Name, a.Media.Budget, hears)
			}
			for _, c := range cfg.Crews {
				fmt.Fprintln(out, describeCrew(c))
			}
			if online {
				if failed := checkOnline(cmd.Context(), cfg, out); failed > 0 {
					return fmt.Errorf("%d bot token(s) or provider key(s) did not work", failed)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "config", "c", ".", "configuration directory (with mynah.yaml)")
	cmd.Flags().BoolVar(&online, "online", false, "also try each bot token and provider key once")
	return cmd
}
