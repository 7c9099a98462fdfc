package memory

import (
	"context"
	"slices"
	"strings"
)

// boostSpeakers raises messages whose sender the query names by first name.
func (s *Searcher) boostSpeakers(cands []*candidate, query string) {
	if s.opts.SpeakerBoost == 0 {
		return
	}
	words := map[string]bool{}
	for _, w := range Terms(query, nil) {
		words[w] = true
	}
	for _, c := range cands {
		if name := strings.ToLower(c.msg.Sender.FirstName); name != "" && words[name] {
			c.score *= 1 + s.opts.SpeakerBoost
		}
	}
}

// smooth adds to each candidate a share of its best neighbour's score. Neighbours are
// candidates of the same chat at most NeighbourGap ids apart; a message that did not
// match contributes nothing.
func (s *Searcher) smooth(cands []*candidate) {
	if s.opts.NeighbourWeight == 0 || len(cands) < 2 {
		return
	}
	type pos struct {
		chat int64
		id   int64
	}
	base := make(map[pos]float64, len(cands))
	for _, c := range cands {
		base[pos{int64(c.msg.Chat.ID), int64(c.msg.ID)}] = c.score
	}
	gap := int64(s.opts.NeighbourGap)
	for _, c := range cands {
		best := 0.0
		for d := int64(1); d <= gap; d++ {
			best = max(best, base[pos{int64(c.msg.Chat.ID), int64(c.msg.ID) - d}], base[pos{int64(c.msg.Chat.ID), int64(c.msg.ID) + d}])
		}
		c.score += s.opts.NeighbourWeight * best
	}
}

// expand is pseudo-relevance feedback: the terms most frequent in the best results,
// weighted by their scores, are added to the query; the second search's scores are
// blended into the first's, and its new candidates join them.
func (s *Searcher) expand(ctx context.Context, q Query, terms []string, cands []*candidate) ([]*candidate, error) {
	docs := min(max(s.opts.ExpansionDocs, 1), len(cands))
	in := map[string]bool{}
	for _, t := range terms {
		in[t] = true
	}
	weight := map[string]float64{}
	for _, c := range cands[:docs] {
		for _, w := range Terms(c.msg.Text, s.stop) {
			if !in[w] {
				weight[w] += c.score
			}
		}
	}
	extra := make([]string, 0, len(weight))
	for w := range weight {
		extra = append(extra, w)
	}
	slices.SortFunc(extra, func(a, b string) int {
		if c := cmpDesc(weight[a], weight[b]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	extra = extra[:min(len(extra), s.opts.Expansion)]
	if len(extra) == 0 {
		return cands, nil
	}
	second, err := s.keyword(ctx, q, append(slices.Clone(terms), extra...))
	if err != nil {
		return nil, err
	}
	byKey := make(map[string]*candidate, len(cands))
	for _, c := range cands {
		c.score *= 1 - s.opts.ExpansionWeight
		byKey[messageKey(c.msg.Chat.ID, c.msg.ID)] = c
	}
	for _, c := range second {
		key := messageKey(c.msg.Chat.ID, c.msg.ID)
		if old, ok := byKey[key]; ok {
			old.score += s.opts.ExpansionWeight * c.score
			continue
		}
		c.score *= s.opts.ExpansionWeight
		cands = append(cands, c)
	}
	return cands, nil
}
