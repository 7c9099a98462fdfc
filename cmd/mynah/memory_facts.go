package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah"
)

// factFlags are the flags every facts command takes.
type factFlags struct {
	agentFlags
	User int64
	JSON bool
	All  bool
}

func (f *factFlags) register(cmd *cobra.Command) {
	f.agentFlags.register(cmd, "agent (default: the first)")
	cmd.Flags().Int64Var(&f.User, "user", 0, "Telegram user id of the person the facts are about")
}

func (f *factFlags) check() error {
	if f.User <= 0 {
		return usageError{errors.New("--user is required: the Telegram id (a positive number) of the person")}
	}
	return nil
}

// memoryFactsCommands are `mynah memory list|add|rm`: what an agent remembers about a
// person, as the person sees it with /memories and /forget.
func memoryFactsCommands() []*cobra.Command {
	var list, add, rm factFlags
	listCmd := &cobra.Command{
		Use:   "list",
		Short: "List the facts an agent keeps about a user, oldest first, numbered as /memories shows them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := list.check(); err != nil {
				return err
			}
			return factsList(cmd.Context(), list, cmd.OutOrStdout())
		},
	}
	list.register(listCmd)
	listCmd.Flags().BoolVar(&list.JSON, "json", false, "print a JSON array")

	addCmd := &cobra.Command{
		Use:   "add TEXT",
		Short: "Add a fact about a user, as if the agent had remembered it",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := add.check(); err != nil {
				return err
			}
			return factsAdd(cmd.Context(), add, strings.Join(args, " "), cmd.OutOrStdout())
		},
	}
	add.register(addCmd)

	rmCmd := &cobra.Command{
		Use:   "rm (FACT_ID | --all)",
		Short: "Remove one fact about a user by its id, or all of them",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rm.check(); err != nil {
				return err
			}
			if rm.All == (len(args) == 1) {
				return usageError{errors.New("give a fact id (see mynah memory list) or --all, not both")}
			}
			var id int64
			if len(args) == 1 {
				var err error
				if id, err = strconv.ParseInt(args[0], 10, 64); err != nil || id <= 0 {
					return usageError{fmt.Errorf("fact id %q: want a positive number, as mynah memory list shows", args[0])}
				}
			}
			return factsRemove(cmd.Context(), rm, id, cmd.OutOrStdout())
		},
	}
	rm.register(rmCmd)
	rmCmd.Flags().BoolVar(&rm.All, "all", false, "remove every fact about the user")
	return []*cobra.Command{listCmd, addCmd, rmCmd}
}

// factJSON is one fact as `memory list --json` prints it.
type factJSON struct {
	ID        int64  `json:"id"`
	Number    int    `json:"number"` // as /memories numbers it, and /forget takes
	Agent     string `json:"agent"`
	UserID    int64  `json:"user_id"`
	Text      string `json:"text"`
	ChatID    int64  `json:"chat_id,omitempty"`
	MessageID int64  `json:"message_id,omitempty"`
	Created   string `json:"created"`
}

// openFacts loads the configuration and opens the store of the agent named in f.
func openFacts(ctx context.Context, f factFlags, create bool) (store, agentConfig, error) {
	cfg, a, err := loadPicked(f.agentFlags, loadOptions{NoKeys: true})
	if err != nil {
		return nil, agentConfig{}, err
	}
	db, err := openStore(ctx, cfg, create) // an operator may seed facts before the agent first runs
	return db, a, err
}

func factsList(ctx context.Context, f factFlags, w io.Writer) error {
	db, a, err := openFacts(ctx, f, false)
	if err != nil {
		return err
	}
	defer db.Close()
	facts, total, err := db.ListFacts(ctx, a.Name, mynah.UserID(f.User), 0, 1<<30)
	if err != nil {
		return err
	}
	if f.JSON {
		out := make([]factJSON, len(facts))
		for i, x := range facts {
			out[i] = factJSON{ID: x.ID, Number: i + 1, Agent: x.Agent, UserID: int64(x.User), Text: x.Text,
				ChatID: int64(x.Chat), MessageID: int64(x.Message), Created: x.Created.Format(time.RFC3339)}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if total == 0 {
		_, err := fmt.Fprintf(w, "%s remembers nothing about user %d.\n", a.Name, f.User)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tID\tCREATED\tSOURCE\tFACT")
	for i, x := range facts {
		source := "added by hand"
		if x.Chat != 0 {
			source = fmt.Sprintf("chat %d, message %d", x.Chat, x.Message)
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\n", i+1, x.ID, x.Created.Local().Format("2006-01-02 15:04"), source, x.Text)
	}
	return tw.Flush()
}

func factsAdd(ctx context.Context, f factFlags, text string, w io.Writer) error {
	text = strings.TrimSpace(text)
	switch {
	case mynah.NormalizeFactText(text) == "":
		return usageError{errors.New("the fact is empty")}
	case len([]rune(text)) > mynah.MaxFactLength:
		return usageError{fmt.Errorf("the fact is %d characters long; the most is %d", len([]rune(text)), mynah.MaxFactLength)}
	}
	db, a, err := openFacts(ctx, f, true)
	if err != nil {
		return err
	}
	defer db.Close()
	fact, added, err := db.AddFact(ctx, mynah.Fact{Agent: a.Name, User: mynah.UserID(f.User), Text: text}, a.MaxFacts)
	if err != nil {
		return err
	}
	if !added {
		_, err = fmt.Fprintf(w, "%s already remembers this about user %d (fact %d): %s\n", a.Name, f.User, fact.ID, fact.Text)
		return err
	}
	_, err = fmt.Fprintf(w, "Added fact %d about user %d: %s\n", fact.ID, f.User, fact.Text)
	return err
}

func factsRemove(ctx context.Context, f factFlags, id int64, w io.Writer) error {
	db, a, err := openFacts(ctx, f, false)
	if err != nil {
		return err
	}
	defer db.Close()
	if f.All {
		n, err := db.RemoveAllFacts(ctx, a.Name, mynah.UserID(f.User), "")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "Removed %d facts about user %d.\n", n, f.User)
		return err
	}
	fact, err := db.RemoveFact(ctx, a.Name, mynah.UserID(f.User), id, "")
	if errors.Is(err, mynah.ErrNotFound) {
		return fmt.Errorf("%s has no fact %d about user %d (mynah memory list --user %d shows them)", a.Name, id, f.User, f.User)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "Removed fact %d about user %d: %s\n", fact.ID, f.User, fact.Text)
	return err
}
