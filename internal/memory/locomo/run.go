package locomo

import (
	"context"
	"fmt"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/ingest"
	"github.com/mynah-ai/mynah/internal/memory"
)

// Agent owns the benchmark's chats in the store it runs on.
const Agent = "bench"

// Store is what a run needs of a store: the import that live messages take, and the
// history that memory searches.
type Store interface {
	mynah.HistoryImport
	memory.History
}

// Chat is the chat that conversation c, the nth of its file (from 0), is imported into:
// a basic group, -1001 for the first conversation, -1002 for the second, and so on.
func Chat(c Conversation, n int) mynah.Chat {
	return mynah.Chat{ID: mynah.ChatID(-1001 - n), Type: mynah.ChatGroup, Title: c.ID}
}

// Source is conversation c, the nth of its file, as an import: turn D<s>:<t> is message
// s·1000+t (Turn.ID) at the turn's time, sent by the conversation's first or second
// speaker (users 100·(n+1)+1 and 100·(n+1)+2). A message's position is "<c.ID> D<s>:<t>".
func Source(c Conversation, n int) ingest.Source {
	return func(yield func(string, mynah.Message, error) bool) error {
		for _, t := range c.Turns {
			id := mynah.UserID(100*(n+1) + 1)
			if t.Speaker == c.Speakers[1] {
				id++
			}
			m := mynah.Message{ID: t.ID(), Time: t.Time, Sender: mynah.UserNamed(id, t.Speaker), Text: t.Text}
			if !yield(fmt.Sprintf("%s D%d:%d", c.ID, t.Session, t.Index), m, nil) {
				return nil
			}
		}
		return nil
	}
}

// Import imports conversation c, the nth of its file, into Chat(c, n) as Agent's, the
// way "mynah import" imports a file (ingest.Check, then Plan.Store); importing it again
// adds nothing.
func Import(ctx context.Context, st mynah.HistoryImport, c Conversation, n int) error {
	plan, err := ingest.Check(ctx, Source(c, n), false)
	if err == nil {
		_, err = plan.Store(ctx, st, Agent, 0, Chat(c, n), nil)
	}
	if err != nil {
		return fmt.Errorf("importing conversation %s: %w", c.ID, err)
	}
	return nil
}

// Ask asks every question of conversation c, the nth of its file and imported by Import,
// as of the end of the conversation: it searches the conversation's chat the way the
// agent searches its memory with opts, and scores in r the results up to its largest
// cut-off (the last of r.K). A conversation without turns has nothing to ask.
func (r *Report) Ask(ctx context.Context, h memory.History, opts memory.Options, c Conversation, n int) error {
	if len(c.Turns) == 0 {
		return nil
	}
	end := c.Turns[len(c.Turns)-1].Time
	s := memory.NewSearcher(h, opts, func() time.Time { return end })
	for _, q := range c.Questions {
		res, err := s.Search(ctx, memory.Query{Agent: Agent, Chat: Chat(c, n).ID, Text: q.Text, K: r.K[len(r.K)-1]})
		if err != nil {
			return err
		}
		ids := make([]mynah.MessageID, len(res))
		for j, hit := range res {
			ids[j] = hit.MessageID
		}
		r.Add(q, ids)
		r.addReach(c, q)
	}
	return nil
}

// Run measures memory recall on convs the way "mynah bench memory" does, with the
// default ranking: each conversation is imported into st, then asked its questions,
// before the next is imported, and the answers are scored at the cut-offs ks (ascending).
func Run(ctx context.Context, st Store, convs []Conversation, ks []int) (*Report, error) {
	return RunWith(ctx, st, convs, ks, memory.DefaultOptions(), "")
}

// RunWith is Run with the ranking opts, on the conversations of half only ("A", "B"; ""
// for all: see InHalf).
func RunWith(ctx context.Context, st Store, convs []Conversation, ks []int, opts memory.Options, half string) (*Report, error) {
	reps, err := RunRankings(ctx, st, convs, ks, []Ranking{{Opts: opts}}, half, nil)
	if err != nil {
		return nil, err
	}
	return reps[0], nil
}

// Ranking is a ranking setting that RunRankings measures, by name.
type Ranking struct {
	Name string
	Opts memory.Options
	// Base names the ranking whose figures this one's change is measured from: the
	// default for the default without (with) a feature, plain BM25 for plain BM25 with
	// one; "" for none.
	Base string
}

// Names of the rankings that Rankings returns besides the features'.
const (
	DefaultRanking = "default"
	PlainBM25      = "plain BM25"
)

// Rankings are what measures each ranking feature's effect (mynah bench memory
// --features): the default ranking, plain BM25 (every feature off), and for each feature
// of memory.Features the default without it ("default without NAME"; "default with NAME"
// for one off by default) and plain BM25 with it alone ("plain BM25 with NAME").
func Rankings() []Ranking {
	def := memory.DefaultOptions()
	plain, _ := memory.Ablate(def, "all")
	rs := []Ranking{{Name: DefaultRanking, Opts: def}, {Name: PlainBM25, Opts: plain}}
	for _, f := range memory.Features() {
		o, name := def, DefaultRanking+" with "+f.Name
		if f.Enabled(def) {
			f.Off(&o)
			name = DefaultRanking + " without " + f.Name
		} else {
			f.On(&o)
		}
		alone := plain
		f.On(&alone)
		rs = append(rs, Ranking{Name: name, Opts: o, Base: DefaultRanking},
			Ranking{Name: PlainBM25 + " with " + f.Name, Opts: alone, Base: PlainBM25})
	}
	return rs
}

// RunRankings measures each of rs on the conversations of half in st, as RunWith measures
// one: each conversation is imported and then asked its questions, before the next is
// imported, so that every ranking searches the store as it is at that point. Each
// conversation is imported once and asked once per ranking. It returns a report per
// ranking, in the order of rs; progress, when not nil, is called after each conversation
// with how many of half's are done and how many there are.
func RunRankings(ctx context.Context, st Store, convs []Conversation, ks []int, rs []Ranking, half string, progress func(done, total int)) ([]*Report, error) {
	reps := make([]*Report, len(rs))
	for i := range reps {
		reps[i] = NewReport(ks)
	}
	in := HalfOf(half, len(convs))
	for done, i := range in {
		if err := AskRankings(ctx, st, convs[i], i, rs, reps); err != nil {
			return nil, err
		}
		if progress != nil {
			progress(done+1, len(in))
		}
	}
	return reps, nil
}

// AskRankings imports conversation c, the nth of its file, into st and asks its questions
// with each ranking of rs, scoring those of rs[j] in reps[j].
func AskRankings(ctx context.Context, st Store, c Conversation, n int, rs []Ranking, reps []*Report) error {
	if err := Import(ctx, st, c, n); err != nil {
		return err
	}
	for j, r := range rs {
		if err := reps[j].Ask(ctx, st, r.Opts, c, n); err != nil {
			return err
		}
	}
	return nil
}

// Halves are the two halves of the benchmark by conversation: ranking features are
// tuned on one and measured on the other, so that a feature is kept only when it helps
// conversations it was not tuned on.
var Halves = []string{"A", "B"}

// HalfOf returns the indexes, ascending, of the conversations of half among total (see
// InHalf).
func HalfOf(half string, total int) []int {
	var in []int
	for i := range total {
		if InHalf(half, i, total) {
			in = append(in, i)
		}
	}
	return in
}

// InHalf reports whether the nth of total conversations (from 0) is in half: "A" the
// first half (conversations 1–5 of LoCoMo's ten), "B" the rest, "" all of them.
func InHalf(half string, n, total int) bool {
	switch half {
	case "A":
		return n < (total+1)/2
	case "B":
		return n >= (total+1)/2
	}
	return true
}
