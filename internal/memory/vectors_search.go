package memory

import (
	"context"
)

// vectorPool is how many nearest messages a search fuses with its keyword candidates:
// enough to reach what keywords miss, few enough that weak neighbours stay out.
const vectorPool = 20

// WithVectors returns a copy of s that fuses the keyword ranking with the messages
// nearest the query by meaning (see Fuse); nil v leaves keyword search alone. When the
// query cannot be embedded (the provider is down), searches fall back to keywords only.
func (s *Searcher) WithVectors(v *Vectors) *Searcher {
	c := *s
	c.vec = v
	return &c
}

// fuseVectors fuses cands (keyword candidates, normalised) with the query's nearest
// messages. Messages only vectors found are read from the store; a candidate of another
// sender than q.Sender asks for is left out, as keyword search leaves it out.
func (s *Searcher) fuseVectors(ctx context.Context, q Query, cands []*candidate) []*candidate {
	near, err := s.vec.Nearest(ctx, q.Chat, q.Text, vectorPool)
	if err != nil {
		s.vec.logError(ctx, "vector search failed; keyword results only", err)
		return cands
	}
	byKey := make(map[string]*candidate, len(cands)+len(near))
	kw := make([]Scored, len(cands))
	for i, c := range cands {
		key := messageKey(c.msg.Chat.ID, c.msg.ID)
		byKey[key] = c
		kw[i] = Scored{Key: key, Score: c.score}
	}
	var vec []Scored
	for _, n := range near {
		key := messageKey(n.Chat, n.ID)
		if _, ok := byKey[key]; !ok {
			ms, err := s.store.Around(ctx, q.Agent, n.Chat, n.ID, 0, 0)
			if err != nil {
				s.vec.logError(ctx, "reading a message vector search found", err)
				continue
			}
			if len(ms) != 1 || ms[0].ID != n.ID || (q.Sender != 0 && ms[0].Sender.ID != q.Sender) || q.later(ms[0].Time) {
				continue
			}
			byKey[key] = &candidate{msg: ms[0]}
		}
		vec = append(vec, Scored{Key: key, Score: n.Score})
	}
	fused := Fuse(kw, vec, s.opts.Weights)
	out := make([]*candidate, len(fused))
	for i, f := range fused {
		out[i] = byKey[f.Key]
		out[i].score = f.Score
	}
	return out
}

// logError logs err unless ctx was cancelled (the search is being abandoned anyway).
func (v *Vectors) logError(ctx context.Context, msg string, err error) {
	if ctx.Err() == nil && v.cfg.Log != nil {
		v.cfg.Log.Warn(msg, "agent", v.cfg.Agent, "err", err)
	}
}
