package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/memory/locomo"
	"github.com/mynah-ai/mynah/internal/postgres"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

func benchCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure mynah on public benchmarks",
	}
	cmd.AddCommand(benchMemoryCommand(), benchLoadCommand(), benchTokensCommand())
	return cmd
}

type benchMemoryFlags struct {
	LoCoMo   string
	K        string
	Half     string
	Ablate   []string
	With     []string
	JSON     bool
	Store    string
	Each     bool
	Features bool
	Captions bool
}

func benchMemoryCommand() *cobra.Command {
	var f benchMemoryFlags
	cmd := &cobra.Command{
		Use:   "memory --locomo locomo10.json",
		Short: "Measure memory recall on LoCoMo: turn and session recall@k per question category",
		Long: `Measure memory recall on LoCoMo (snap-research/LoCoMo, data/locomo10.json).

Each conversation is imported into its own chat of a throwaway database, through the path
"mynah import" takes (session dates as message times, speakers as senders), and every
question is searched the way the agent searches its memory. Turn recall@k is the share of
a question's evidence turns among the top k results, averaged over questions; session
recall@k counts a session when any of its turns is retrieved.

Ranking features are tuned on one half of the conversations and kept only when they help
the other: --half A or B measures one half, --ablate turns features off (all: plain
BM25) and --with turns them on, to measure what each adds there.

BM25 weighs a word by how rare it is in the whole database, every chat of it. By default
the conversations share one database, as an agent's chats do (each is asked its
questions right after it is imported); --store-each gives each a database of its own, as
the benchmark's protocol indexes each conversation by itself.

An image turn is indexed with its caption, as mynah indexes its description of a photo;
--captions=false indexes every turn's text alone, as a text-only import holds it.

--features measures every feature's effect on each half (or on --half alone): the default
ranking, plain BM25, and for each feature the default without it and plain BM25 with it
alone, each a change in turn recall@10 (at the last of --k without 10) over categories
1-4, beside the four categories' figures. It asks every question some forty ways: a few
minutes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.LoCoMo == "" {
				return usageError{errors.New("--locomo is required")}
			}
			ks, err := parseKs(f.K)
			if err != nil {
				return usageError{err}
			}
			f.Half = strings.ToUpper(f.Half)
			if f.Half != "" && !slices.Contains(locomo.Halves, f.Half) {
				return usageError{fmt.Errorf("--half %q: want A or B", f.Half)}
			}
			if f.Features {
				if len(f.Ablate)+len(f.With) > 0 {
					return usageError{errors.New("--features measures every feature on and off: leave out --ablate and --with")}
				}
				return benchFeatures(cmd.Context(), f, ks, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			opts, err := memory.Ablate(memory.DefaultOptions(), f.Ablate...)
			if err != nil {
				return usageError{fmt.Errorf("--ablate: %w", err)}
			}
			if opts, err = memory.With(opts, f.With...); err != nil {
				return usageError{fmt.Errorf("--with: %w", err)}
			}
			return benchMemory(cmd.Context(), f, ks, opts, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&f.LoCoMo, "locomo", "", "path of locomo10.json")
	cmd.Flags().StringVar(&f.K, "k", "5,10,20", "cut-offs, comma-separated")
	cmd.Flags().StringVar(&f.Half, "half", "", "measure half A (conversations 1-5) or B (6-10) only")
	var names []string
	for _, ft := range memory.Features() {
		names = append(names, ft.Name)
	}
	cmd.Flags().StringSliceVar(&f.Ablate, "ablate", nil, "ranking features to turn off, comma-separated: all (plain BM25) or "+strings.Join(names, ", "))
	cmd.Flags().StringSliceVar(&f.With, "with", nil, "ranking features to turn on (after --ablate), comma-separated: "+strings.Join(names, ", "))
	cmd.Flags().BoolVar(&f.JSON, "json", false, "print the results as JSON")
	cmd.Flags().StringVar(&f.Store, "store", "", "run on this PostgreSQL database (postgres://…), in a throwaway schema (default: a throwaway SQLite file)")
	cmd.Flags().BoolVar(&f.Each, "store-each", false, "import each conversation into a throwaway database of its own")
	cmd.Flags().BoolVar(&f.Captions, "captions", true, "index an image turn with its caption; false: every turn's text alone")
	cmd.Flags().BoolVar(&f.Features, "features", false, "measure each ranking feature's effect on each half: the default without it (with it, for one off by default) and plain BM25 with it alone")
	return cmd
}

func parseKs(s string) ([]int, error) {
	var ks []int
	for _, part := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || k <= 0 {
			return nil, fmt.Errorf("--k %q: want positive numbers separated by commas", s)
		}
		if !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks, nil
}

// conversations reads the conversations of f.LoCoMo, their image turns with their
// captions unless f.Captions is off.
func conversations(f benchMemoryFlags) ([]locomo.Conversation, error) {
	convs, err := locomo.LoadFile(f.LoCoMo)
	if err != nil || f.Captions {
		return convs, err
	}
	return locomo.WithoutCaptions(convs), nil
}

func benchMemory(ctx context.Context, f benchMemoryFlags, ks []int, opts memory.Options, w io.Writer) error {
	convs, err := conversations(f)
	if err != nil {
		return err
	}
	reps, err := measureRankings(ctx, f, convs, ks, []locomo.Ranking{{Opts: opts}}, f.Half, nil)
	if err != nil {
		return err
	}
	in, turns := locomo.HalfOf(f.Half, len(convs)), 0
	for _, i := range in {
		turns += len(convs[i].Turns)
	}
	return writeBench(w, f.JSON, len(in), turns, reps[0])
}

// measureRankings measures each of rs on the conversations of half (see
// locomo.RunRankings): in one throwaway store, or with f.Each each conversation in a
// throwaway store of its own. progress is as RunRankings's.
func measureRankings(ctx context.Context, f benchMemoryFlags, convs []locomo.Conversation, ks []int, rs []locomo.Ranking, half string, progress func(done, total int)) ([]*locomo.Report, error) {
	if !f.Each {
		db, cleanup, err := benchStore(ctx, f.Store)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		return locomo.RunRankings(ctx, db, convs, ks, rs, half, progress)
	}
	reps := make([]*locomo.Report, len(rs))
	for i := range reps {
		reps[i] = locomo.NewReport(ks)
	}
	each := locomo.HalfOf(half, len(convs))
	for done, i := range each {
		err := func() error {
			db, cleanup, err := benchStore(ctx, f.Store)
			if err != nil {
				return err
			}
			defer cleanup()
			return locomo.AskRankings(ctx, db, convs[i], i, rs, reps)
		}()
		if err != nil {
			return nil, err
		}
		if progress != nil {
			progress(done+1, len(each))
		}
	}
	return reps, nil
}

// benchStore opens a throwaway store: a schema of the PostgreSQL database dsn, or a SQLite
// file in a temporary directory when dsn is empty. cleanup closes and removes it.
func benchStore(ctx context.Context, dsn string) (db store, cleanup func(), err error) {
	if dsn != "" {
		url, drop, err := postgres.TempSchema(ctx, dsn, "mynah_bench_")
		if err != nil {
			return nil, nil, err
		}
		pg, err := postgres.Open(ctx, url, postgres.Options{})
		if err != nil {
			_ = drop(context.WithoutCancel(ctx))
			return nil, nil, err
		}
		return pg, func() { pg.Close(); _ = drop(context.WithoutCancel(ctx)) }, nil
	}
	dir, err := os.MkdirTemp("", "mynah-bench-")
	if err != nil {
		return nil, nil, err
	}
	sq, err := sqlite.Open(ctx, filepath.Join(dir, "mynah.db"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return sq, func() { sq.Close(); os.RemoveAll(dir) }, nil
}

// benchRow is one line of the results: a set of questions and its recall at each k.
type benchRow struct {
	Set           string    `json:"set"`
	Category      int       `json:"category,omitempty"`
	Questions     int       `json:"questions"`
	TurnRecall    []float64 `json:"turn_recall"`
	SessionRecall []float64 `json:"session_recall"`
	// KeywordReach is the mean share of a question's evidence turns that hold a word of
	// it (locomo.Reach): what keywords alone can find.
	KeywordReach float64 `json:"keyword_reach"`
}

func writeBench(w io.Writer, asJSON bool, convs, turns int, rep *locomo.Report) error {
	row := func(set string, cat int, r locomo.Recall) benchRow {
		turn, sess := r.Mean()
		return benchRow{Set: set, Category: cat, Questions: r.Questions, TurnRecall: turn, SessionRecall: sess, KeywordReach: r.MeanReach()}
	}
	rows := []benchRow{row("categories 1-4", 0, rep.Core), row("all categories", 0, rep.All)}
	for c := 1; c <= 5; c++ {
		if r := rep.ByCategory[c]; r != nil {
			rows = append(rows, row(fmt.Sprintf("%d %s", c, locomo.Categories[c]), c, *r))
		}
	}
	if asJSON {
		return json.NewEncoder(w).Encode(map[string]any{"conversations": convs, "turns": turns, "k": rep.K, "results": rows})
	}
	fmt.Fprintf(w, "LoCoMo: %d conversations, %d turns, %d questions with evidence (%d in categories 1-4)\n\n",
		convs, turns, rep.All.Questions, rep.Core.Questions)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, part := range []struct {
		name  string
		get   func(benchRow) []float64
		reach bool
	}{{"turn recall", func(r benchRow) []float64 { return r.TurnRecall }, true}, {"session recall", func(r benchRow) []float64 { return r.SessionRecall }, false}} {
		fmt.Fprintf(tw, "%s\tquestions\t", part.name)
		for _, k := range rep.K {
			fmt.Fprintf(tw, "R@%d\t", k)
		}
		if part.reach {
			fmt.Fprint(tw, "reach\t")
		}
		fmt.Fprintln(tw)
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%d\t", r.Set, r.Questions)
			for _, v := range part.get(r) {
				fmt.Fprintf(tw, "%.3f\t", v)
			}
			if part.reach {
				fmt.Fprintf(tw, "%.3f\t", r.KeywordReach)
			}
			fmt.Fprintln(tw)
		}
		fmt.Fprintln(tw, "\t\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "reach: the share of a question's evidence turns that hold a word of it besides the speakers'\n"+
		"names: what keywords find without the conversation around a turn")
	return err
}
