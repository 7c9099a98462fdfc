package memory

import (
	"context"
	"slices"
)

// MaxQueries is how many queries one SearchMany takes.
const MaxQueries = 5

// SearchMany searches for each of texts as Search does for q.Text, and merges the
// results: each query's scores are normalised by its best, an item found by several
// queries keeps its best, and the best q.K of all (0 means 10) are returned, best first,
// each once. Every query's best result comes before any query's second: a question that
// fans out ("days in Japan", "days in Chicago") gets an answer for each part. Up to
// MaxQueries texts are searched; the rest are ignored.
func (s *Searcher) SearchMany(ctx context.Context, q Query, texts []string) ([]Result, error) {
	if len(texts) == 1 {
		q.Text = texts[0]
		return s.Search(ctx, q)
	}
	k := q.K
	if k <= 0 {
		k = 10
	}
	type merged struct {
		r          Result
		score      float64
		rank, from int
	}
	byKey := map[string]*merged{}
	var order []*merged
	for i, text := range texts[:min(len(texts), MaxQueries)] {
		q.Text = text
		res, err := s.Search(ctx, q)
		if err != nil {
			return nil, err
		}
		best := 0.0
		for _, r := range res {
			best = max(best, r.Score)
		}
		for rank, r := range res {
			norm := 1.0
			if best > 0 {
				norm = r.Score / best
			}
			key := resultKey(r)
			if m, ok := byKey[key]; ok {
				if norm > m.score || norm == m.score && rank < m.rank {
					m.score, m.rank = norm, rank
				}
				continue
			}
			m := &merged{r: r, score: norm, rank: rank, from: i}
			byKey[key] = m
			order = append(order, m)
		}
	}
	slices.SortStableFunc(order, func(a, b *merged) int {
		if c := cmpDesc(a.score, b.score); c != 0 {
			return c
		}
		return a.rank - b.rank
	})
	out := make([]Result, 0, min(k, len(order)))
	for _, m := range order[:min(k, len(order))] {
		m.r.Score = m.score
		out = append(out, m.r)
	}
	return out, nil
}

// resultKey names a result across searches: a message by its chat and id, a note by its
// lines.
func resultKey(r Result) string {
	if r.Kind == KindMessage {
		return messageKey(r.Chat, r.MessageID)
	}
	return string(r.Kind) + ":" + r.Source
}
