package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
)

// fillMonths adds to cands the messages that name, in their own words, a time in span
// (see Options.MonthsSaid): "where did we go in August?" is answered by "we booked the
// cabin for 7 to 11 August", said in July, which shares no other word with it. They are
// searched by the names of span's months alone, in what messages say (a month's name is
// also in the index entry of every message said in it, which is not searched here), and
// kept when their own expressions of time name a time in span (tells), so that "you may
// want to" is no answer to a question about May. Each comes in with its score among
// those matches (the best 1) times MonthsSaid; those that are candidates already keep
// theirs.
func (s *Searcher) fillMonths(ctx context.Context, q Query, cands []*candidate, span Span) ([]*candidate, error) {
	words := monthWords(span)
	if s.opts.MonthsSaid <= 0 || len(words) == 0 {
		return cands, nil
	}
	hits, err := s.searchHistory(ctx, mynah.SearchQuery{Agent: q.Agent, Chat: q.Chat, Sender: q.Sender, Terms: words,
		Limit: s.opts.Pool, AsOf: q.Until})
	if err != nil {
		return nil, fmt.Errorf("memory: searching history: %w", err)
	}
	best := 0.0
	for _, h := range hits {
		best = max(best, h.Score)
	}
	seen := keyed(cands)
	for i, added := 0, 0; i < len(hits) && added < monthsFill; i++ {
		h := hits[i]
		key := messageKey(h.Message.Chat.ID, h.Message.ID)
		if seen[key] != nil || h.Score <= 0 || q.later(h.Message.Time) || !s.tells(&h.Message, span) {
			continue
		}
		c := &candidate{msg: h.Message, score: s.opts.MonthsSaid * h.Score / best}
		cands, seen[key] = append(cands, c), c
		added++
	}
	return cands, nil
}

// monthsFill is how many messages naming a time of the months asked about fillMonths adds.
const monthsFill = 10

// monthWords are the names of the months span covers, as a message writes them: in
// English, and in Ukrainian and Russian in the forms a date or a time takes in a sentence
// («7 серпня», «у серпні», «в августе»). None for a span shorter than a week (a day is
// rarely written by its month) or longer than two months, or open on a side.
func monthWords(span Span) []string {
	if span.From.IsZero() || span.To.IsZero() {
		return nil
	}
	if d := span.To.Sub(span.From); d < 7*24*time.Hour || d > 62*24*time.Hour {
		return nil
	}
	var out []string
	for m := time.Date(span.From.Year(), span.From.Month(), 1, 0, 0, 0, 0, span.From.Location()); m.Before(span.To); m = m.AddDate(0, 1, 0) {
		out = append(out, monthNames()[m.Month()]...)
	}
	return out
}

// monthNames are each month's English name (lower case), then its Ukrainian and Russian
// forms that cyrillicTime reads as it, sorted.
var monthNames = sync.OnceValue(func() map[time.Month][]string {
	out := map[time.Month][]string{}
	for m := time.January; m <= time.December; m++ {
		name := strings.ToLower(m.String())
		forms := []string{name}
		for form, en := range cyrillicTime() {
			if en == name {
				forms = append(forms, form)
			}
		}
		slices.Sort(forms[1:])
		out[m] = forms
	}
	return out
})
