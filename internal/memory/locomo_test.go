package memory_test

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/memory/locomo"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// locomoPath is the benchmark as this repository's machines keep it, beside the checkout,
// or where MYNAH_LOCOMO names it (a worktree kept elsewhere).
var locomoPath = cmp.Or(os.Getenv("MYNAH_LOCOMO"), "../../../shared/bench/locomo10.json")

// readLoCoMo reads the benchmark's conversations, or skips tb when the data is not here.
func readLoCoMo(tb testing.TB) []locomo.Conversation {
	tb.Helper()
	convs, err := locomo.LoadFile(locomoPath)
	if errors.Is(err, fs.ErrNotExist) {
		tb.Skipf("LoCoMo data not available: %v", err)
	} else if err != nil {
		tb.Fatal(err)
	}
	return convs
}

// loadLoCoMo imports the whole benchmark into a fresh store, one chat per conversation,
// before any question is asked, or skips when the data is not here. It returns the store
// each conversation is in (the one store, for each).
func loadLoCoMo(tb testing.TB) ([]*sqlite.DB, []locomo.Conversation) {
	tb.Helper()
	convs := readLoCoMo(tb)
	return protocols[0].stores(tb, convs), convs
}

// evaluate asks every question of the conversations of half ("" for all) with opts, as
// of the end of its conversation, conversation i in dbs[i].
func evaluate(ctx context.Context, tb testing.TB, dbs []*sqlite.DB, opts memory.Options, convs []locomo.Conversation, half string, ks []int) *locomo.Report {
	rep := locomo.NewReport(ks)
	for i, c := range convs {
		if !locomo.InHalf(half, i, len(convs)) {
			continue
		}
		if err := rep.Ask(ctx, dbs[i], opts, c, i); err != nil {
			tb.Fatal(err)
		}
	}
	return rep
}

// protocol is how the benchmark's conversations are stored: the stores conversation i is
// in, stores[i].
type protocol struct {
	name   string
	stores func(tb testing.TB, convs []locomo.Conversation) []*sqlite.DB
	target float64 // turn recall@10 over categories 1-4 each half must reach
	// categories are the turn recall@10 each half must reach in a category: the
	// issue's multi-hop 0.50 and open-domain 0.45, in one store, where an agent's chats
	// are (a store each: 0.502 / 0.464 multi-hop and 0.422 / 0.450 open-domain, 6 December).
	categories map[int]float64
}

// protocols are the two ways a user's chats sit in mynah: every conversation in one
// store (as an agent's chats are), and each in a store of its own (as the benchmark's
// protocol indexes them). FTS5's BM25 weighs a word by how rare it is in the whole
// store, so the first weighs a conversation's words against the other conversations
// too (a speaker's name is rare there), the second only within it. The ranking must beat
// plain BM25 either way, and reach 0.75 either way; the features were tuned on the
// first. With a store each, half B reaches 0.751: a speaker's name, in half of a lone
// conversation's messages, then carries no weight in BM25. SpeakerLift makes up for part
// of it (0.739 without, before SpanPool); a larger constant SpeakerBoost that made up for
// all of it (0.8: 0.759) cost the adversarial questions, which name the wrong speaker,
// more than plain BM25 loses in one store (0.653 against 0.672).
var protocols = []protocol{
	{"one store", func(tb testing.TB, convs []locomo.Conversation) []*sqlite.DB {
		db := importLoCoMo(tb, convs, 0)
		dbs := make([]*sqlite.DB, len(convs))
		for i := range dbs {
			dbs[i] = db
		}
		return dbs
	}, 0.75, map[int]float64{1: 0.50, 3: 0.45}},
	{"a store each", func(tb testing.TB, convs []locomo.Conversation) []*sqlite.DB {
		dbs := make([]*sqlite.DB, len(convs))
		for i, c := range convs {
			dbs[i] = importLoCoMo(tb, []locomo.Conversation{c}, i)
		}
		return dbs
	}, 0.75, nil},
}

// importLoCoMo imports convs into a fresh store, one chat per conversation, the first
// numbered first.
func importLoCoMo(tb testing.TB, convs []locomo.Conversation, first int) *sqlite.DB {
	tb.Helper()
	db := openStore(tb)
	for i, c := range convs {
		if err := locomo.Import(tb.Context(), db, c, first+i); err != nil {
			tb.Fatal(err)
		}
	}
	return db
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

// plainBM25 is the ranking with every feature off.
func plainBM25(tb testing.TB) memory.Options {
	o, err := memory.Ablate(memory.DefaultOptions(), "all")
	if err != nil {
		tb.Fatal(err)
	}
	return o
}

// recallAt10 is turn recall@10 of r, evaluated at ks 5, 10, 20.
func recallAt10(r *locomo.Recall) float64 {
	if r == nil {
		return 0
	}
	turn, _ := r.Mean()
	return turn[1]
}

// TestLoCoMo holds the ranking to its targets: turn recall@10 of at least 0.70 over
// categories 1–4, and no category below what plain FTS5 BM25 (porter, stop words) reaches
// (bench/README.md).
func TestLoCoMo(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("imports the whole benchmark: runs without -short and -race")
	}
	dbs, convs := loadLoCoMo(t)
	rep := evaluate(t.Context(), t, dbs, memory.DefaultOptions(), convs, "", []int{5, 10, 20})
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

// TestLoCoMoHalves holds the ranking to its targets on each half of the conversations
// (locomo.Halves: its features were tuned on one half and kept only when they helped the
// other too): turn recall@10 of at least 0.75 over categories 1–4 (in one store, at least
// 0.50 on multi-hop and 0.45 on open-domain questions too), and neither that nor
// any category below plain BM25 on the same half, whether as mynah's index scores it
// (every ranking feature off) or as the benchmark's reference setting does (referenceBM25).
func TestLoCoMoHalves(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("imports the whole benchmark: runs without -short and -race")
	}
	convs := readLoCoMo(t)
	ks := []int{5, 10, 20}
	for _, p := range protocols {
		dbs := p.stores(t, convs)
		for _, half := range locomo.Halves {
			rep := evaluate(t.Context(), t, dbs, memory.DefaultOptions(), convs, half, ks)
			plain := evaluate(t.Context(), t, dbs, plainBM25(t), convs, half, ks)
			ref := referenceBM25(t, convs, half, ks)
			t.Logf("%s, half %s, turn recall@5/10/20\ndefault ranking:\n%s\nplain BM25 in mynah's index:\n%s\nreference BM25:\n%s",
				p.name, half, formatReport(rep), formatReport(plain), formatReport(ref))
			if got := recallAt10(&rep.Core); got < p.target {
				t.Errorf("%s, half %s: turn recall@10 over categories 1-4 = %.3f, want >= %.2f", p.name, half, got, p.target)
			}
			for cat, target := range p.categories {
				if got := recallAt10(rep.ByCategory[cat]); got < target {
					t.Errorf("%s, half %s, category %d (%s): turn recall@10 = %.3f, want >= %.2f", p.name, half, cat, locomo.Categories[cat], got, target)
				}
			}
			for _, base := range []struct {
				name string
				rep  *locomo.Report
			}{{"plain BM25", plain}, {"reference BM25", ref}} {
				if got, b := recallAt10(&rep.Core), recallAt10(&base.rep.Core); got < b {
					t.Errorf("%s, half %s: turn recall@10 over categories 1-4 = %.3f, below %s's %.3f", p.name, half, got, base.name, b)
				}
				for cat := 1; cat <= 5; cat++ {
					if got, b := recallAt10(rep.ByCategory[cat]), recallAt10(base.rep.ByCategory[cat]); got < b {
						t.Errorf("%s, half %s, category %d (%s): turn recall@10 = %.3f, below %s's %.3f", p.name, half, cat, locomo.Categories[cat], got, base.name, b)
					}
				}
			}
		}
	}
}

// TestLoCoMoAblation measures each ranking feature on each half: the default ranking
// without it, and plain BM25 with it alone. It prints a table for the record and
// asserts nothing, so it runs only when asked.
func TestLoCoMoAblation(t *testing.T) {
	if os.Getenv("MYNAH_ABLATION") == "" {
		t.Skip("set MYNAH_ABLATION=1 to measure ranking features one by one")
	}
	convs := readLoCoMo(t)
	ks := []int{5, 10, 20}
	refCell := func(half string) string {
		rep := referenceBM25(t, convs, half, ks)
		cats := make([]string, 0, 4)
		for c := 1; c <= 4; c++ {
			cats = append(cats, fmt.Sprintf("%.3f", recallAt10(rep.ByCategory[c])))
		}
		return fmt.Sprintf("%.3f (%s)", recallAt10(&rep.Core), strings.Join(cats, " "))
	}
	for _, p := range protocols {
		dbs := p.stores(t, convs)
		cell := func(o memory.Options, half string) string {
			rep := evaluate(t.Context(), t, dbs, o, convs, half, ks)
			cats := make([]string, 0, 4)
			for c := 1; c <= 4; c++ {
				cats = append(cats, fmt.Sprintf("%.3f", recallAt10(rep.ByCategory[c])))
			}
			return fmt.Sprintf("%.3f (%s)", recallAt10(&rep.Core), strings.Join(cats, " "))
		}
		line := func(name string, o memory.Options) {
			t.Logf("| %-29s | %s | %s |", name, cell(o, "A"), cell(o, "B"))
		}
		t.Logf("%s: turn recall@10, categories 1-4 (multi-hop temporal open-domain single-hop)", p.name)
		t.Logf("| %-29s | %-35s | %-35s |", "ranking", "half A", "half B")
		for _, r := range locomo.Rankings() {
			line(r.Name, r.Opts)
			if r.Name == locomo.PlainBM25 {
				t.Logf("| %-29s | %s | %s |", "reference BM25", refCell("A"), refCell("B"))
			}
		}
	}
}

// referenceBM25 ranks by the README's reference setting, outside mynah's index: each
// conversation's turns, text only, in an FTS5 table of their own (porter stemming), the
// question's words without stop words OR-ed, best bm25 first.
func referenceBM25(tb testing.TB, convs []locomo.Conversation, half string, ks []int) *locomo.Report {
	tb.Helper()
	rep := locomo.NewReport(ks)
	stop := memory.StopWords()
	for i, c := range convs {
		if !locomo.InHalf(half, i, len(convs)) {
			continue
		}
		msgs := make([]mynah.Message, len(c.Turns))
		for j, t := range c.Turns {
			msgs[j] = mynah.Message{ID: t.ID(), Text: t.Text}
		}
		search := bm25Index(tb, msgs)
		for _, q := range c.Questions {
			rep.Add(q, search(memory.Terms(q.Text, stop), ks[len(ks)-1]))
		}
	}
	return rep
}

// bm25Index indexes msgs' text in an FTS5 table of their own (porter stemming), in a
// database closed when tb ends, and returns a search of it: the ids of the k best by
// bm25 of terms OR-ed.
func bm25Index(tb testing.TB, msgs []mynah.Message) func(terms []string, k int) []mynah.MessageID {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(tb.TempDir(), "bm25.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE d USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')`); err != nil {
		tb.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	for _, m := range msgs {
		if _, err := tx.Exec(`INSERT INTO d (rowid, body) VALUES (?, ?)`, int64(m.ID), m.Text); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	return func(terms []string, k int) []mynah.MessageID {
		if len(terms) == 0 {
			return nil
		}
		phrases := make([]string, len(terms))
		for i, term := range terms {
			phrases[i] = `"` + strings.ReplaceAll(term, `"`, `""`) + `"`
		}
		rows, err := db.Query(`SELECT rowid FROM d WHERE d MATCH ? ORDER BY bm25(d) LIMIT ?`, strings.Join(phrases, " OR "), k)
		if err != nil {
			tb.Fatal(err)
		}
		defer rows.Close()
		var ids []mynah.MessageID
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				tb.Fatal(err)
			}
			ids = append(ids, mynah.MessageID(id))
		}
		if err := rows.Err(); err != nil {
			tb.Fatal(err)
		}
		return ids
	}
}

// TestMayTellLoCoMo: on every turn of LoCoMo, read as of when it was said, mayTell is
// true wherever ParseTime finds a time, and false for most turns.
func TestMayTellLoCoMo(t *testing.T) {
	convs := readLoCoMo(t)
	turns, passed := 0, 0
	for _, c := range convs {
		for _, tr := range c.Turns {
			turns++
			if !memory.MayTell(tr.Text) {
				passed++
				if sp := memory.ParseTime(tr.Text, tr.Time).Span; !sp.IsZero() {
					t.Errorf("mayTell(%q) = false, but ParseTime reads %v", tr.Text, sp)
				}
			}
		}
	}
	t.Logf("mayTell passed over %d of %d turns", passed, turns)
	if passed < turns/2 {
		t.Errorf("mayTell passed over %d of %d turns, want most", passed, turns)
	}
}

// skipUnderRace skips a test that measures recall under the race detector: it checks the
// ranking, not concurrency, and .ci/run runs it without -race.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("measures recall, which the race detector slows twentyfold: runs without -race (.ci/run)")
	}
}
