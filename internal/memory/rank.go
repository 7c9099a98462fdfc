package memory

import (
	"math"
	"slices"
	"time"
)

// Scored is one candidate of a retriever: a key that names the item across retrievers
// ("message:-100123:42", "note:path:10-24") and the retriever's raw score, higher better.
type Scored struct {
	Key   string
	Score float64
}

// Weights weigh the retrievers Fuse combines. Zero weights mean 1 for keywords and 1
// for vectors.
type Weights struct {
	Keyword, Vector float64
}

// Fuse combines a keyword and a vector candidate list into one ranking, best first. Each
// list's scores are first normalised to (0, 1] by the list's best score, so that BM25
// (unbounded) and cosine similarity (bounded) are comparable; an item's fused score is
// the weighted sum of its normalised scores, 0 where a list lacks it. Every candidate of
// either list is kept: an item only keywords found is never dropped for lacking a vector
// score, and with no vectors (nil) the result is the keyword ranking itself.
func Fuse(keyword, vector []Scored, w Weights) []Scored {
	if w.Keyword == 0 {
		w.Keyword = 1
	}
	if w.Vector == 0 {
		w.Vector = 1
	}
	fused := map[string]float64{}
	var order []string
	add := func(list []Scored, weight float64) {
		best := 0.0
		for _, c := range list {
			best = max(best, c.Score)
		}
		for _, c := range list {
			if _, ok := fused[c.Key]; !ok {
				order = append(order, c.Key)
			}
			if best > 0 && c.Score > 0 {
				fused[c.Key] += weight * c.Score / best
			}
		}
	}
	add(keyword, w.Keyword)
	add(vector, w.Vector)
	out := make([]Scored, len(order))
	for i, k := range order {
		out[i] = Scored{Key: k, Score: fused[k]}
	}
	slices.SortStableFunc(out, func(a, b Scored) int { return cmpDesc(a.Score, b.Score) })
	return out
}

// Recency is a prior that favours recent items: a score is multiplied by
// 1 + Weight·2^(-age/HalfLife). The zero value (Weight 0) leaves scores unchanged.
type Recency struct {
	Weight   float64
	HalfLife time.Duration
}

// apply returns score with the prior for an item of time t, seen at now.
func (r Recency) apply(score float64, t, now time.Time) float64 {
	if r.Weight == 0 || r.HalfLife <= 0 || t.IsZero() {
		return score
	}
	age := max(now.Sub(t), 0)
	return score * (1 + r.Weight*math.Exp2(-float64(age)/float64(r.HalfLife)))
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
