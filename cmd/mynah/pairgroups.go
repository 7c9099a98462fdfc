package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
)

// approveGroupCmd is `mynah pair approve-group CHAT_ID`: the operator approves a group an
// agent waits in (access.groups.allow empty, the default). A group's id is negative, which
// flag parsing would take for flags: the command reads its arguments itself, so that
// "mynah pair approve-group -1001234 --config DIR" works as pair list prints it.
func approveGroupCmd(dir *string) *cobra.Command {
	var agent string
	cmd := &cobra.Command{
		Use:   "approve-group CHAT_ID",
		Short: "Approve a group: the agent answers there from now on",
		Long: `With access.groups.allow empty (the default) an agent answers in a group only once
it is approved: its bot was added by an admin or an approved user, an admin sent
/activation there, or you approve it here. mynah pair list shows the groups that wait,
with their ids. Works while serve runs.`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			var ids, rest []string
			for _, a := range args {
				if negativeNumber().MatchString(a) {
					ids = append(ids, a)
				} else {
					rest = append(rest, a)
				}
			}
			cmd.InheritedFlags() // merges pair's --config into cmd.Flags()
			if err := cmd.Flags().Parse(rest); err != nil {
				return usageError{err}
			}
			if help, _ := cmd.Flags().GetBool("help"); help {
				return cmd.Help()
			}
			if ids = append(ids, cmd.Flags().Args()...); len(ids) != 1 {
				return usageError{fmt.Errorf("accepts 1 arg, the group's chat id, received %d", len(ids))}
			}
			chat, err := parseChatID(ids[0])
			if err != nil {
				return usageError{err}
			}
			return approveGroup(cmd.Context(), cmd.OutOrStdout(), *dir, agent, chat)
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent (default: the only one, or the only one that saw the group)")
	return cmd
}

// negativeNumber is an argument flag parsing must not see: a group's chat id.
var negativeNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-[0-9]+$`) })

// approveGroup approves chat for the agent named (or found by groupAgent) in the
// configuration in dir.
func approveGroup(ctx context.Context, w io.Writer, dir, agent string, chat mynah.ChatID) error {
	db, cfg, err := openPairings(ctx, dir)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := groupAgent(ctx, db, cfg, agent, chat)
	if err != nil {
		return err
	}
	if p := a.Policy; !p.NeedsGroupApproval() {
		if len(p.Groups) > 0 {
			return fmt.Errorf("agent %s answers only the groups in access.groups.allow: add %d there", a.Name, chat)
		}
		return fmt.Errorf("agent %s answers every group (access.groups.allow: [\"*\"]): there is nothing to approve", a.Name)
	}
	g, err := db.ApproveGroup(ctx, a.Name, chat, 0, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "approved group %s for agent %s: it is answered from now on\n", describeGroup(g.Chat), a.Name)
	return nil
}

// groupAgent is the agent approve-group approves chat for: the one named, else the only
// agent, else the only agent that recorded the group.
func groupAgent(ctx context.Context, db store, cfg *config, name string, chat mynah.ChatID) (agentConfig, error) {
	byName := func(name string) (agentConfig, bool) {
		for _, a := range cfg.Agents {
			if a.Name == name {
				return a, true
			}
		}
		return agentConfig{}, false
	}
	if name != "" {
		a, ok := byName(name)
		if !ok {
			return a, usageError{fmt.Errorf("--agent %q: no such agent", name)}
		}
		return a, nil
	}
	if len(cfg.Agents) == 1 {
		return cfg.Agents[0], nil
	}
	gs, err := db.ListGroupApprovals(ctx, "")
	if err != nil {
		return agentConfig{}, err
	}
	var seen []string
	for _, g := range gs {
		if g.Chat.ID == chat {
			seen = append(seen, g.Agent)
		}
	}
	if len(seen) == 1 {
		if a, ok := byName(seen[0]); ok {
			return a, nil
		}
	}
	return agentConfig{}, usageError{fmt.Errorf("several agents could answer in group %d: name one with --agent", chat)}
}

// printGroups lists the groups recorded for the agents that answer approved groups only
// (agent "" every such agent's): whether each is approved and, if not, the command that
// approves it.
func printGroups(ctx context.Context, w io.Writer, db store, cfg *config, agent, dir string) error {
	policies := map[string]access.Policy{}
	for _, a := range cfg.Agents {
		if a.Policy.NeedsGroupApproval() && (agent == "" || a.Name == agent) {
			policies[a.Name] = a.Policy
		}
	}
	if len(policies) == 0 {
		return nil
	}
	gs, err := db.ListGroupApprovals(ctx, agent)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tGROUP\tSTATUS\tADDED BY\tAPPROVE WITH")
	rows := 0
	for _, g := range gs {
		p, ok := policies[g.Agent]
		if !ok {
			continue
		}
		status, err := groupStatus(ctx, db, p, g)
		if err != nil {
			return err
		}
		approve := ""
		if status == "pending" {
			approve = fmt.Sprintf("mynah pair approve-group %d --agent %s --config %s", g.Chat.ID, g.Agent, dir)
		}
		added := "-"
		if g.AddedBy.ID != 0 {
			added = describeUser(g.AddedBy)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", g.Agent, describeGroup(g.Chat), status, added, approve)
		rows++
	}
	if rows == 0 {
		return nil
	}
	fmt.Fprintln(w)
	return tw.Flush()
}

// groupStatus says whether g is approved, and how: "pending" when it is not.
func groupStatus(ctx context.Context, db store, p access.Policy, g mynah.GroupApproval) (string, error) {
	switch {
	case !g.Approved.IsZero() && g.ApprovedBy != 0:
		return fmt.Sprintf("approved %s by /activation of id %d", g.Approved.Local().Format(time.DateTime), g.ApprovedBy), nil
	case !g.Approved.IsZero():
		return "approved " + g.Approved.Local().Format(time.DateTime), nil
	case g.AddedBy.ID == 0:
		return "pending", nil
	}
	paired, err := db.Approved(ctx, g.Agent, g.AddedBy.ID)
	if err != nil {
		return "", err
	}
	if p.Approves(g.AddedBy, paired) {
		return "approved: added by an approved user", nil
	}
	return "pending", nil
}

// describeGroup names a group for an operator: its id and title.
func describeGroup(c mynah.Chat) string {
	if c.Title == "" {
		return fmt.Sprint(c.ID)
	}
	return fmt.Sprintf("%d %q", c.ID, c.Title)
}
