package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
)

type memorySearchFlags struct {
	agentFlags
	Chat  int64
	User  int64
	Query string
	K     int
	JSON  bool
}

func memorySearchCommand() *cobra.Command {
	var f memorySearchFlags
	cmd := &cobra.Command{
		Use:   "search",
		Short: "Search an agent's memory as the agent does",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if strings.TrimSpace(f.Query) == "" {
				return usageError{errors.New("--query is required")}
			}
			if f.K <= 0 {
				return usageError{fmt.Errorf("--k %d: want a positive number", f.K)}
			}
			return memorySearch(cmd.Context(), f, cmd.OutOrStdout())
		},
	}
	f.register(cmd, "agent (default: the first)")
	cmd.Flags().Int64Var(&f.Chat, "chat", 0, "only this chat (default: every chat)")
	cmd.Flags().Int64Var(&f.User, "user", 0, "only what this user said")
	cmd.Flags().StringVarP(&f.Query, "query", "q", "", "what to look for, in plain words")
	cmd.Flags().IntVarP(&f.K, "k", "k", 10, "number of results")
	cmd.Flags().BoolVar(&f.JSON, "json", false, "print a JSON array")
	return cmd
}

// searchItem is one result as --json prints it. Kind decides which fields are set:
// messages have chat_id and message_id, notes a source of path and lines.
type searchItem struct {
	Kind      memory.Kind `json:"kind"`
	ChatID    int64       `json:"chat_id,omitempty"`
	MessageID int64       `json:"message_id,omitempty"`
	Time      *time.Time  `json:"time,omitempty"`
	Score     float64     `json:"score"`
	Snippet   string      `json:"snippet"`
	Source    string      `json:"source"`
	Sender    string      `json:"sender,omitempty"`
}

func memorySearch(ctx context.Context, f memorySearchFlags, w io.Writer) error {
	cfg, a, err := loadPicked(f.agentFlags, loadOptions{NoKeys: true})
	if err != nil {
		return err
	}
	db, err := openStore(ctx, cfg, false)
	if err != nil {
		return err
	}
	defer db.Close()
	mem, err := agentMemory(cfg, a, db, nil, true, http.DefaultClient, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	res, err := mem.Search(ctx, memory.Query{Agent: a.Name, Chat: mynah.ChatID(f.Chat), Sender: mynah.UserID(f.User), Text: f.Query, K: f.K})
	if err != nil {
		return err
	}
	items := make([]searchItem, len(res))
	for i, r := range res {
		items[i] = searchItem{Kind: r.Kind, ChatID: int64(r.Chat), MessageID: int64(r.MessageID), Score: r.Score, Snippet: r.Snippet, Source: r.Source}
		if !r.Time.IsZero() {
			t := r.Time
			items[i].Time = &t
		}
		if r.Message != nil {
			items[i].Sender = r.Message.Sender.Name()
		}
	}
	if f.JSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(items)
	}
	if len(items) == 0 {
		fmt.Fprintln(w, "nothing found")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, it := range items {
		when := ""
		if it.Time != nil {
			when = it.Time.Format("2006-01-02 15:04")
		}
		text := it.Snippet
		if it.Sender != "" {
			text = it.Sender + ": " + text
		}
		fmt.Fprintf(tw, "%.3f\t%s\t%s\t%s\n", it.Score, when, it.Source, text)
	}
	return tw.Flush()
}
