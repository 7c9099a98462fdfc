package main

import (
	"bufio"
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
	Chat    int64
	User    int64
	Queries []string
	At      string
	K       int
	JSON    bool
}

func memorySearchCommand() *cobra.Command {
	var f memorySearchFlags
	cmd := &cobra.Command{
		Use:   "search [WORDS...]",
		Short: "Search an agent's memory as the agent does",
		Long: `Search an agent's memory as the agent does: its chats' history and its notes.

What to look for is given in plain words, as the arguments (mynah memory search which
hotel did Olena book) or as --query, which may be given several times to search several
queries at once, as the agent's memory_search tool does.`,
		Example: `  mynah memory search --chat 42 "which hotel did Olena book?"
  mynah memory search -q "the heron" -q "birds at the lake" --at 2024-05-01`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var queries []string
			if len(args) > 0 { // the words as the arguments: one query, however it was quoted
				f.Queries = append([]string{strings.Join(args, " ")}, f.Queries...)
			}
			for _, q := range f.Queries {
				if q = strings.TrimSpace(q); q != "" {
					queries = append(queries, q)
				}
			}
			if len(queries) == 0 {
				return usageError{errors.New("nothing to search for: give the words as arguments or with --query")}
			}
			if len(queries) > memory.MaxQueries {
				return usageError{fmt.Errorf("%d queries: at most %d at once", len(queries), memory.MaxQueries)}
			}
			f.Queries = queries
			if f.K <= 0 {
				return usageError{fmt.Errorf("--k %d: want a positive number", f.K)}
			}
			at, err := parseAt(f.At)
			if err != nil {
				return usageError{err}
			}
			return memorySearch(cmd.Context(), f, at, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f.register(cmd, "agent (default: the first)")
	cmd.Flags().Int64Var(&f.Chat, "chat", 0, "only this chat (default: every chat)")
	cmd.Flags().Int64Var(&f.User, "user", 0, "only what this user said")
	cmd.Flags().StringArrayVarP(&f.Queries, "query", "q", nil, "what to look for, in plain words; several --query are searched at once, results merged")
	cmd.Flags().StringVar(&f.At, "at", "", `search as of this time: times in the query ("last week") are read from it, and messages said after it are left out; 2024-05-01, "2024-05-01 18:30", RFC 3339, "2024/05/01 (Wed) 18:30" or 01.05.2024 (default: now)`)
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
	// Said is when the message was said, in the agent's time zone, and how long before
	// the question ("Tue 7 May 2024 18:30, 8 days ago").
	Said string `json:"said,omitempty"`
	// Repeats is how many other messages said the same words, left out (memory.Result.Repeats).
	Repeats int `json:"repeats,omitempty"`
}

// parseAt reads --at: a date, a date and time (in the local time zone), or RFC 3339; ""
// is the zero time (now). Dates may be written 2024-05-01, 2024/05/01 (with the weekday
// after it, as benchmarks' question dates are: "2023/05/30 (Tue) 23:40") or 01.05.2024.
func parseAt(s string) (time.Time, error) {
	if s = strings.TrimSpace(s); s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04", time.DateOnly,
		"2006/01/02 15:04:05", "2006/01/02 15:04", "2006/01/02 (Mon) 15:04", "2006/01/02 (Mon)", "2006/01/02",
		"02.01.2006 15:04", "02.01.2006"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--at %q: want 2024-05-01, \"2024-05-01 18:30\", RFC 3339, 2024/05/01 or 01.05.2024", s)
}

// memorySearch prints the results to w and, without --json, to errw a note for each query
// whose time none of them was said in (see memory.Searcher.Missed): w's lines stay
// results alone.
func memorySearch(ctx context.Context, f memorySearchFlags, at time.Time, w, errw io.Writer) error {
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
	res, err := mem.SearchMany(ctx, memory.Query{Agent: a.Name, Chat: mynah.ChatID(f.Chat), Sender: mynah.UserID(f.User), K: f.K, Now: at, Until: at, Typos: true}, f.Queries)
	if err != nil {
		return err
	}
	now := at
	if now.IsZero() {
		now = time.Now()
	}
	items := make([]searchItem, len(res))
	for i, r := range res {
		items[i] = searchItem{Kind: r.Kind, ChatID: int64(r.Chat), MessageID: int64(r.MessageID), Score: r.Score, Snippet: r.Snippet, Source: r.Source, Repeats: r.Repeats}
		if !r.Time.IsZero() {
			t := r.Time
			items[i].Time = &t
			if r.Kind == memory.KindMessage {
				items[i].Said = memory.SaidAt(t, now, mem.Location())
			}
		}
		if r.Message != nil {
			items[i].Sender = r.Message.Sender.Name()
		}
	}
	if len(res) > 0 && !f.JSON { // --json is for scripts: its output, whatever they capture, is the results
		for _, q := range f.Queries {
			if span, ok := mem.Missed(q, at, res); ok {
				fmt.Fprintf(errw, "found nothing said %s for %q; the results are from other times\n", span.Describe(mem.Location()), q)
			}
		}
	}
	if f.JSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(items)
	}
	if len(items) == 0 {
		fmt.Fprintln(w, "nothing found")
		for _, q := range f.Queries {
			if !mem.Searchable(q, at) {
				fmt.Fprintf(errw, "every word of %q is too common to search for: say what it was about (a name, a place, a thing)\n", q)
			}
		}
		if f.Chat != 0 {
			// a mistyped chat id finds nothing; say so, rather than let it pass for a chat
			// where nothing matched
			if _, err := db.Chat(ctx, a.Name, mynah.ChatID(f.Chat)); errors.Is(err, mynah.ErrNotFound) {
				fmt.Fprintf(errw, "%s has no chat %d: nothing of it is stored (see mynah import, or the chats serve has seen)\n", a.Name, f.Chat)
			}
		}
		return nil
	}
	// Buffered: the tab writer writes each cell by itself, a system call each.
	bw := bufio.NewWriter(w)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	for _, it := range items {
		when := it.Said
		if when == "" && it.Time != nil {
			when = it.Time.In(mem.Location()).Format("Mon 2 Jan 2006 15:04")
		}
		text := it.Snippet
		if it.Sender != "" {
			text = it.Sender + ": " + text
		}
		fmt.Fprintf(tw, "%.3f\t%s%s\t%s\t%s\n", it.Score, when, memory.RepeatsNote(it.Repeats), it.Source, text)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}
