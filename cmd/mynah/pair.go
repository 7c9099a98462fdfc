package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
)

func pairCommand() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "pair",
		Short: "List and approve pairing codes of users who asked to talk to an agent, and groups",
		Long: `Under the pairing policy (access.private: pairing, the default) a user the agent does
not know gets a one-time code in the private chat. Approve it here; the user's next
message is answered. Groups (access.groups.allow empty, the default) wait for approval
the same way unless an approved user added the bot; approve-group approves one. Works
while serve runs.`,
	}
	cmd.PersistentFlags().StringVarP(&dir, "config", "c", ".", "configuration directory (with mynah.yaml)")

	var agent string
	list := &cobra.Command{
		Use:   "list",
		Short: "Show pending codes, approved users and the groups that wait for approval",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, cfg, err := openPairings(cmd.Context(), dir)
			if err != nil {
				return err
			}
			defer db.Close()
			if agent != "" && !hasAgent(cfg, agent) {
				return usageError{fmt.Errorf("--agent %q: no such agent in %s", agent, filepath.Join(dir, "agents"))}
			}
			ps, err := db.ListPairings(cmd.Context(), agent, time.Now())
			if err != nil {
				return err
			}
			printPairings(cmd.OutOrStdout(), ps, time.Now())
			return printGroups(cmd.Context(), cmd.OutOrStdout(), db, cfg, agent, dir)
		},
	}
	list.Flags().StringVar(&agent, "agent", "", "only this agent's (default: every agent's)")

	var welcome string
	approve := &cobra.Command{
		Use:   "approve CODE",
		Short: "Approve a pairing code: its user may talk to the agent from now on",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			code := access.NormalizeCode(args[0])
			if !access.ValidCode(code) {
				return usageError{fmt.Errorf("%q is not a pairing code (8 characters, as the agent sent it)", args[0])}
			}
			db, _, err := openPairings(cmd.Context(), dir)
			if err != nil {
				return err
			}
			defer db.Close()
			p, err := db.ApprovePairing(cmd.Context(), code, time.Now(), welcome)
			if errors.Is(err, mynah.ErrNotFound) {
				return fmt.Errorf("no pending code %s: it is unknown, expired (codes last %s) or approved already; see mynah pair list", code, access.CodeTTL)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "approved %s for agent %s\n", describeUser(p.User), p.Agent)
			if welcome != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "they will get: %s\n", welcome)
			}
			return nil
		},
	}
	approve.Flags().StringVar(&welcome, "welcome", access.WelcomeNotice, `message sent to the user ("" sends none)`)
	cmd.AddCommand(list, approve, approveGroupCmd(&dir))
	return cmd
}

// openPairings opens the database serve uses for the configuration in dir, which must
// exist: pair never creates a database.
func openPairings(ctx context.Context, dir string) (store, *config, error) {
	cfg, err := loadConfig(dir, os.Getenv, loadOptions{NoKeys: true})
	if err != nil {
		return nil, nil, err
	}
	db, err := openStore(ctx, cfg, false)
	if err != nil {
		return nil, nil, err
	}
	return db, cfg, nil
}

func hasAgent(cfg *config, name string) bool {
	for _, a := range cfg.Agents {
		if a.Name == name {
			return true
		}
	}
	return false
}

func printPairings(w io.Writer, ps []mynah.Pairing, now time.Time) {
	if len(ps) == 0 {
		fmt.Fprintln(w, "no pending codes and no approved users")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tCODE\tSTATUS\tUSER\tREQUESTED")
	for _, p := range ps {
		status := "approved " + p.Approved.Local().Format(time.DateTime)
		if p.Approved.IsZero() {
			status = "pending, expires in " + p.Expires.Sub(now).Round(time.Minute).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Agent, p.Code, status, describeUser(p.User), p.Created.Local().Format(time.DateTime))
	}
	tw.Flush()
}

// describeUser names a user for an operator: name, @username and id.
func describeUser(u mynah.User) string {
	var parts []string
	if n := u.Name(); n != "" && n != u.Username {
		parts = append(parts, n)
	}
	if u.Username != "" {
		parts = append(parts, "@"+u.Username)
	}
	parts = append(parts, fmt.Sprintf("id %d", u.ID))
	return strings.Join(parts, " ")
}
