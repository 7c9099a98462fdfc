package memory_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/memory/locomo"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// locomoPath is the benchmark as this repository's machines keep it, beside the checkout.
const locomoPath = "../../../shared/bench/locomo10.json"

// loadLoCoMo imports the whole benchmark into a fresh store, one chat per conversation,
// before any question is asked, or skips when the data is not here.
func loadLoCoMo(tb testing.TB) (*sqlite.DB, []locomo.Conversation) {
	tb.Helper()
	f, err := os.Open(locomoPath)
	if err != nil {
		tb.Skipf("LoCoMo data not available: %v", err)
	}
	defer f.Close()
	convs, err := locomo.Load(f)
	if err != nil {
		tb.Fatal(err)
	}
	db, err := sqlite.Open(tb.Context(), filepath.Join(tb.TempDir(), "mynah.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	for i, c := range convs {
		if err := locomo.Import(tb.Context(), db, c, i); err != nil {
			tb.Fatal(err)
		}
	}
	return db, convs
}

// evaluate asks every question of convs with opts, as of the end of its conversation.
func evaluate(ctx context.Context, tb testing.TB, db *sqlite.DB, opts memory.Options, convs []locomo.Conversation, ks []int) *locomo.Report {
	rep := locomo.NewReport(ks)
	for i, c := range convs {
		if err := rep.Ask(ctx, db, opts, c, i); err != nil {
			tb.Fatal(err)
		}
	}
	return rep
}

func formatReport(rep *locomo.Report) string {
	var b strings.Builder
	row := func(name string, r locomo.Recall) {
		turn, _ := r.Mean()
		fmt.Fprintf(&b, "%-16s %4d", name, r.Questions)
		for _, v := range turn {
			fmt.Fprintf(&b, " %.3f", v)
		}
		b.WriteString("\n")
	}
	row("cats 1-4", rep.Core)
	row("all", rep.All)
	for c := 1; c <= 5; c++ {
		if r := rep.ByCategory[c]; r != nil {
			row(fmt.Sprint(c, " ", locomo.Categories[c]), *r)
		}
	}
	return b.String()
}

// TestLoCoMo holds the ranking to its targets: turn recall@10 of at least 0.70 over
// categories 1–4, and no category below what plain FTS5 BM25 (porter, stop words) reaches
// (bench/README.md).
func TestLoCoMo(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("imports the whole benchmark: runs without -short and -race")
	}
	db, convs := loadLoCoMo(t)
	rep := evaluate(t.Context(), t, db, memory.DefaultOptions(), convs, []int{5, 10, 20})
	t.Logf("default ranking, turn recall@5/10/20:\n%s", formatReport(rep))
	if turn, _ := rep.Core.Mean(); turn[1] < 0.70 {
		t.Errorf("turn recall@10 over categories 1-4 = %.3f, want >= 0.70", turn[1])
	}
	for cat, bm25 := range map[int]float64{1: .342, 2: .705, 3: .301, 4: .691, 5: .720} {
		if turn, _ := rep.ByCategory[cat].Mean(); turn[1] < bm25 {
			t.Errorf("category %d (%s): turn recall@10 = %.3f, below plain BM25's %.3f", cat, locomo.Categories[cat], turn[1], bm25)
		}
	}
}

// TestLoCoMoAblation measures each ranking feature: alone on top of BM25, and added one
// after another up to the defaults. It prints numbers for the record and asserts
// nothing, so it runs only when asked.
func TestLoCoMoAblation(t *testing.T) {
	if os.Getenv("MYNAH_ABLATION") == "" {
		t.Skip("set MYNAH_ABLATION=1 to measure ranking features one by one")
	}
	db, convs := loadLoCoMo(t)
	features := []struct {
		name string
		set  func(*memory.Options)
	}{
		{"context column (name, month, year) x2", func(o *memory.Options) { o.ContextWeight = 2 }},
		{"previous-turn column x0.3", func(o *memory.Options) { o.PreviousWeight = 0.3 }},
		{"neighbour smoothing 0.3", func(o *memory.Options) { o.NeighbourWeight = 0.3 }},
		{"speaker boost 0.2", func(o *memory.Options) { o.SpeakerBoost = 0.2 }},
		{"recency 0.1 / 30 days", func(o *memory.Options) { o.Recency = memory.Recency{Weight: 0.1, HalfLife: 30 * 24 * time.Hour} }},
		{"query expansion (RM3-like) 5 terms / 3 docs / 0.3", func(o *memory.Options) { o.Expansion, o.ExpansionDocs, o.ExpansionWeight = 5, 3, 0.3 }},
	}
	ks := []int{5, 10, 20}
	line := func(name string, o memory.Options) {
		rep := evaluate(t.Context(), t, db, o, convs, ks)
		core, _ := rep.Core.Mean()
		all, _ := rep.All.Mean()
		var cats []string
		for c := 1; c <= 5; c++ {
			turn, _ := rep.ByCategory[c].Mean()
			cats = append(cats, fmt.Sprintf("%.3f", turn[1]))
		}
		t.Logf("| %-52s | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %s |", name, core[0], core[1], core[2], all[0], all[1], all[2], strings.Join(cats, " "))
	}
	base := memory.Options{Pool: 100}
	line("BM25 (text column)", base)
	for _, f := range features {
		o := base
		f.set(&o)
		line("BM25 + "+f.name, o)
	}
	o := base
	for _, f := range features {
		f.set(&o)
		line("cumulative + "+f.name, o)
	}
	line("DefaultOptions", memory.DefaultOptions())
}
