package locomo

import (
	"slices"
	"strings"
	"sync"

	"github.com/kljensen/snowball/english"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
)

// Categories names LoCoMo's question categories by their id in the release.
var Categories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

// Recall accumulates recall@k over questions.
type Recall struct {
	Questions int
	Turn      []float64 // per k: sum of turn recall; divide by Questions
	Session   []float64 // per k: sum of session recall
	// Reach sums, over the questions Report.Ask asked, the share of a question's evidence
	// turns that hold a word of the question besides the speakers' names (see Reach):
	// divide by Questions. What a keyword search reaches without help from a turn's
	// neighbours.
	Reach float64
}

// Mean returns the mean turn and session recall at each k.
func (r Recall) Mean() (turn, session []float64) {
	turn, session = make([]float64, len(r.Turn)), make([]float64, len(r.Session))
	for i := range r.Turn {
		if r.Questions > 0 {
			turn[i], session[i] = r.Turn[i]/float64(r.Questions), r.Session[i]/float64(r.Questions)
		}
	}
	return turn, session
}

// MeanReach is the mean keyword reach of the questions (see Recall.Reach).
func (r Recall) MeanReach() float64 {
	if r.Questions == 0 {
		return 0
	}
	return r.Reach / float64(r.Questions)
}

// Reach is the share of q's evidence turns in c that hold a word of q, stop words and the
// speakers' first names left out, compared by English stem ("painted" holds "paint"): a
// keyword search finds the others only through what is around them. Open-domain
// questions ("Would Caroline be considered religious?" — answered by a turn about a
// church painting) reach the least.
func Reach(c Conversation, q Question) float64 {
	stop := stopWords()
	names := map[string]bool{}
	for _, s := range c.Speakers {
		if f := strings.Fields(s); len(f) > 0 {
			names[strings.ToLower(f[0])] = true
		}
	}
	stems := func(text string) map[string]bool {
		out := map[string]bool{}
		for _, w := range memory.Terms(text, stop) {
			if !names[w] {
				out[english.Stem(w, false)] = true
			}
		}
		return out
	}
	if len(q.Evidence) == 0 {
		return 0
	}
	asked := stems(q.Text)
	held := 0
	for _, t := range c.Turns {
		if !slices.Contains(q.Evidence, t.ID()) {
			continue
		}
		for w := range stems(t.Text) {
			if asked[w] {
				held++
				break
			}
		}
	}
	return float64(held) / float64(len(q.Evidence))
}

var stopWords = sync.OnceValue(memory.StopWords)

// addReach adds q's keyword reach in c to the recalls q counts in.
func (r *Report) addReach(c Conversation, q Question) {
	reach := Reach(c, q)
	r.All.Reach += reach
	if q.Category >= 1 && q.Category <= 4 {
		r.Core.Reach += reach
	}
	if cat := r.ByCategory[q.Category]; cat != nil {
		cat.Reach += reach
	}
}

// Report is recall@k for categories 1–4 together, for all five, and per category.
type Report struct {
	K          []int
	Core, All  Recall // Core: categories 1–4
	ByCategory map[int]*Recall
}

// NewReport returns an empty report for the cut-offs ks.
func NewReport(ks []int) *Report {
	r := &Report{K: ks, ByCategory: map[int]*Recall{}}
	r.Core, r.All = r.recall(), r.recall()
	return r
}

func (r *Report) recall() Recall {
	return Recall{Turn: make([]float64, len(r.K)), Session: make([]float64, len(r.K))}
}

// Add scores one question given the message ids retrieved for it, best first.
func (r *Report) Add(q Question, retrieved []mynah.MessageID) {
	cat := r.ByCategory[q.Category]
	if cat == nil {
		c := r.recall()
		cat = &c
		r.ByCategory[q.Category] = cat
	}
	targets := []*Recall{&r.All, cat}
	if q.Category >= 1 && q.Category <= 4 {
		targets = append(targets, &r.Core)
	}
	sessions := func(ids []mynah.MessageID) []int {
		var out []int
		for _, id := range ids {
			if s := int(id) / 1000; !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return out
	}
	wantSessions := sessions(q.Evidence)
	for _, t := range targets {
		t.Questions++
	}
	for i, k := range r.K {
		top := retrieved[:min(k, len(retrieved))]
		turnHits := 0
		for _, e := range q.Evidence {
			if slices.Contains(top, e) {
				turnHits++
			}
		}
		got := sessions(top)
		sessHits := 0
		for _, s := range wantSessions {
			if slices.Contains(got, s) {
				sessHits++
			}
		}
		for _, t := range targets {
			t.Turn[i] += float64(turnHits) / float64(len(q.Evidence))
			t.Session[i] += float64(sessHits) / float64(len(wantSessions))
		}
	}
}
