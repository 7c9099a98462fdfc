package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"github.com/mynah-ai/mynah/internal/memory/locomo"
)

// benchFeatures measures every ranking feature's effect on each half of LoCoMo (on f.Half
// alone when set): locomo.Rankings on the conversations of each half, reported at one
// cut-off (10, or the last of ks without it) as a table, or with f.JSON as JSON with every
// cut-off. Progress goes to errw.
func benchFeatures(ctx context.Context, f benchMemoryFlags, ks []int, w, errw io.Writer) error {
	convs, err := conversations(f)
	if err != nil {
		return err
	}
	halves := locomo.Halves
	if f.Half != "" {
		halves = []string{f.Half}
	}
	rs := locomo.Rankings()
	reps := make(map[string][]*locomo.Report, len(halves))
	for _, half := range halves {
		reps[half], err = measureRankings(ctx, f, convs, ks, rs, half, func(done, total int) {
			fmt.Fprintf(errw, "half %s: conversation %d of %d asked %d ways\n", half, done, total, len(rs))
		})
		if err != nil {
			return err
		}
	}
	if f.JSON {
		return writeFeaturesJSON(w, ks, halves, rs, reps)
	}
	at := len(ks) - 1
	if i := slices.Index(ks, 10); i >= 0 {
		at = i
	}
	return writeFeatures(w, ks[at], at, halves, rs, reps)
}

// featureCell is a ranking's turn recall on a half at one cut-off: over categories 1–4,
// its change from the ranking it is compared with, and per category 1–4.
type featureCell struct {
	Core       float64    `json:"core"`
	Change     float64    `json:"change"`
	Categories [4]float64 `json:"categories"`
}

// featureCells are the cells of each ranking of rs on a half at cut-off index at, with
// its change from its base ranking (see locomo.Ranking.Base; none without one).
func featureCells(rs []locomo.Ranking, reps []*locomo.Report, at int) []featureCell {
	out := make([]featureCell, len(rs))
	byName := make(map[string]featureCell, len(rs))
	for j, r := range rs {
		core, _ := reps[j].Core.Mean()
		out[j].Core = core[at]
		for cat := 1; cat <= 4; cat++ {
			if rc := reps[j].ByCategory[cat]; rc != nil {
				turn, _ := rc.Mean()
				out[j].Categories[cat-1] = turn[at]
			}
		}
		byName[r.Name] = out[j]
	}
	for j, r := range rs {
		if base, ok := byName[r.Base]; ok {
			out[j].Change = out[j].Core - base.Core
		}
		if math.Abs(out[j].Change) < 5e-7 {
			out[j].Change = 0 // the same questions found: not "-0.000"
		}
	}
	return out
}

func writeFeatures(w io.Writer, k, at int, halves []string, rs []locomo.Ranking, reps map[string][]*locomo.Report) error {
	fmt.Fprintf(w, "LoCoMo: turn recall@%d over categories 1-4, its change (from the default; for \"plain BM25 with\n"+
		"NAME\" from plain BM25), and per category: multi-hop, temporal, open-domain, single-hop\n\n", k)
	cells := map[string][]featureCell{}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "ranking")
	for _, half := range halves {
		cells[half] = featureCells(rs, reps[half], at)
		fmt.Fprintf(tw, "\thalf %s\t\t", half)
	}
	fmt.Fprintln(tw)
	for j, r := range rs {
		fmt.Fprint(tw, r.Name)
		for _, half := range halves {
			c := cells[half][j]
			change := ""
			if r.Base != "" {
				change = fmt.Sprintf("%+.3f", c.Change)
			}
			fmt.Fprintf(tw, "\t%.3f %6s\t(%.3f %.3f %.3f %.3f)", c.Core, change, c.Categories[0], c.Categories[1], c.Categories[2], c.Categories[3])
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// writeFeaturesJSON writes every ranking's cells on each half at each cut-off.
func writeFeaturesJSON(w io.Writer, ks []int, halves []string, rs []locomo.Ranking, reps map[string][]*locomo.Report) error {
	type atK struct {
		K int `json:"k"`
		featureCell
	}
	type ranking struct {
		Name   string           `json:"name"`
		Halves map[string][]atK `json:"halves"`
	}
	out := make([]ranking, len(rs))
	for j, r := range rs {
		out[j] = ranking{Name: r.Name, Halves: map[string][]atK{}}
	}
	for _, half := range halves {
		for at, k := range ks {
			for j, c := range featureCells(rs, reps[half], at) {
				out[j].Halves[half] = append(out[j].Halves[half], atK{k, c})
			}
		}
	}
	return json.NewEncoder(w).Encode(map[string]any{"rankings": out})
}
