package memory

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/stem"
)

// boostSpeakers raises messages whose sender the query names by first name, by
// SpeakerBoost and by SpeakerLift times the share of the candidates from someone else,
// SpeakerGather times that for a query asking for several things.
func (s *Searcher) boostSpeakers(cands []*candidate, query string) {
	if s.opts.SpeakerBoost == 0 && s.opts.SpeakerLift == 0 || len(cands) == 0 {
		return
	}
	asked := askedNamesOf(query)
	var named []*candidate
	for _, c := range cands {
		if asked.sender(c.msg.Sender.FirstName, s.opts.Nicknames) {
			named = append(named, c)
		}
	}
	boost := s.opts.SpeakerBoost + s.opts.SpeakerLift*float64(len(cands)-len(named))/float64(len(cands))
	if s.opts.SpeakerGather > 1 && len(named) > 0 && Aggregate(query) {
		boost *= s.opts.SpeakerGather
	}
	for _, c := range named {
		c.score *= 1 + boost
	}
}

// boostAsker raises, for a question about one side of a chat with an assistant, the
// candidates of that side (see Options.AskerBoost): for one in the first person ("what
// did I paint?"), those the agent's side did not say; for one of "you" ("what did you
// recommend?"), those it said.
func (s *Searcher) boostAsker(cands []*candidate, query string) {
	if s.opts.AskerBoost <= 0 || len(cands) == 0 {
		return
	}
	self, you := askedOf(query)
	if self == you { // neither, or both: "what do you think of my diet?"
		return
	}
	agent := agentSide(cands)
	if !slices.Contains(agent, true) || !slices.Contains(agent, false) {
		return
	}
	for i, c := range cands {
		if agent[i] == you {
			c.score *= 1 + s.opts.AskerBoost
		}
	}
}

// answersOf is how many of the person's best candidates answerYou gives the agent's
// answer to the score of.
const answersOf = 3

// answerYou returns cands with the agent side's answer to each of the answersOf best of
// the person's (see agentSide) scoring at least Options.Answers times that one, for a
// question of what the agent's side said alone (see askedOf); an answer is the agent
// side's first message among the NeighbourGap after the person's, within neighbourHour
// of it, and is read from the store when not a candidate. A search of one person's
// words (q.Sender) is left as it is.
func (s *Searcher) answerYou(ctx context.Context, q Query, cands []*candidate) ([]*candidate, error) {
	if s.opts.Answers <= 0 || q.Sender != 0 || len(cands) == 0 {
		return cands, nil
	}
	if self, you := askedOf(q.Text); self || !you {
		return cands, nil
	}
	agent := agentSide(cands)
	agents := map[mynah.UserID]bool{} // the agent side's senders among cands
	var person []*candidate
	for i, c := range cands {
		if agent[i] {
			agents[c.msg.Sender.ID] = true
		} else {
			person = append(person, c)
		}
	}
	if len(agents) == 0 || len(person) == 0 {
		return cands, nil
	}
	slices.SortStableFunc(person, func(a, b *candidate) int { return cmpDesc(a.score, b.score) })
	byKey := keyed(cands)
	gap := max(s.opts.NeighbourGap, 1)
	for _, p := range person[:min(answersOf, len(person))] {
		after, err := s.store.Around(ctx, q.Agent, p.msg.Chat.ID, p.msg.ID, 0, gap)
		if err != nil {
			return nil, fmt.Errorf("memory: reading the answer to message %d: %w", p.msg.ID, err)
		}
		for _, m := range after {
			if m.ID <= p.msg.ID || m.Time.Sub(p.msg.Time) > neighbourHour || q.later(m.Time) {
				continue
			}
			if !byAgent(&m) && !agents[m.Sender.ID] {
				continue
			}
			key := messageKey(m.Chat.ID, m.ID)
			a := byKey[key]
			if a == nil {
				a = &candidate{msg: m}
				byKey[key] = a
				cands = append(cands, a)
			}
			a.score = max(a.score, s.opts.Answers*p.score)
			break
		}
	}
	return cands, nil
}

// askedOf reports whether query asks in the first person ("what did I paint?", "where
// did my sister move?") and of "you" ("what did you recommend?"). The "you" of a request
// ("can you remind me where my sister moved?", "do you remember…") asks nothing of the
// one asked, nor does one told something ("what did I tell you about my sister?"); one
// who told something ("I remember you recommended a hotel, what was it?") is asked of
// alone.
func askedOf(query string) (self, you bool) {
	words := splitWords(strings.ToLower(query))
	for i, w := range words {
		switch w {
		case "i", "my", "me", "myself", "mine", "я", "мій", "моя", "моє", "мої", "мого", "моєї", "моєму", "моїй", "мою", "моїх",
			"мене", "мені", "мной", "мною", "мой", "мои", "моё", "мое", "моего", "моей", "моему", "моих", "меня", "мне":
			self = true
		case "you", "your", "yours", "yourself", "ти", "ви", "твій", "твоя", "твої", "ваш", "ты", "вы", "твой", "твои":
			switch {
			case i > 0 && (requestWords[words[i-1]] || toldWords[words[i-1]]), i+1 < len(words) && recallWords[words[i+1]]:
			case i+1 < len(words) && youTold[words[i+1]],
				i+2 < len(words) && toWhom[words[i+1]] && youTold[words[i+2]]: // «ти мені радив»
				return false, true
			default:
				you = true
			}
		}
	}
	return self, you
}

// recallWords ask "you" to remember: "do you remember what I said about my sister?"
var recallWords = map[string]bool{"remember": true, "recall": true, "know": true}

// toldWords tell "you" something: "I told you", "what did I send you".
var toldWords = map[string]bool{"tell": true, "told": true, "ask": true, "asked": true, "show": true, "showed": true,
	"send": true, "sent": true, "give": true, "gave": true, "remind": true, "reminded": true}

// youTold are what "you" did when a question asks for what the assistant said: "you
// recommended", "you told me".
var youTold = map[string]bool{"told": true, "said": true, "recommended": true, "suggested": true, "mentioned": true,
	"gave": true, "wrote": true, "explained": true, "listed": true, "provided": true, "shared": true, "recommend": true,
	"suggest": true, "mention": true, "say": true, "tell": true, "give": true, "write": true, "explain": true, "list": true,
	// Ukrainian and Russian, in the past of either gender and the present
	"радив": true, "радила": true, "порадив": true, "порадила": true, "радиш": true, "рекомендував": true,
	"рекомендувала": true, "пропонував": true, "пропонувала": true, "казав": true, "казала": true, "сказав": true,
	"сказала": true, "писав": true, "писала": true, "пояснював": true, "пояснювала": true, "називав": true, "називала": true,
	"советовал": true, "советовала": true, "посоветовал": true, "посоветовала": true, "советуешь": true,
	"рекомендовал": true, "рекомендовала": true, "предлагал": true, "предлагала": true, "говорил": true,
	"говорила": true, "сказал": true, "писал": true, "объяснял": true, "объясняла": true, "называл": true, "называла": true}

// toWhom are the words a Ukrainian or Russian question puts between "you" and what you
// told: «що ти мені радив?», «что ты нам советовал?».
var toWhom = map[string]bool{"мені": true, "нам": true, "мне": true}

// requestWords ask a "you" for something: "can you", "could you", «чи можеш ти».
var requestWords = map[string]bool{"can": true, "could": true, "would": true, "will": true, "можеш": true, "можете": true, "можешь": true}

// assistantRatio is how many times longer than the other's one sender's candidates must
// be, in the median, to be taken for an assistant in a chat of two (see agentSide).
const assistantRatio = 3

// assistantNames are the names an imported chat gives an assistant's side: an export of a
// chat with ChatGPT, or a chat written out as "user" and "assistant" turns. Not "Ai", a
// person's name too.
var assistantNames = map[string]bool{"assistant": true, "ai assistant": true, "bot": true, "chatgpt": true,
	"gpt": true, "claude": true, "gemini": true, "copilot": true, "model": true, "llm": true}

// assistantNamed reports whether u is called as an assistant is (see assistantNames).
func assistantNamed(u mynah.User) bool {
	return assistantNames[strings.ToLower(strings.TrimSpace(u.FirstName+" "+u.LastName))]
}

// agentSide reports for each of cands whether the agent's side of its chat said it: the
// agent or another bot; or, when no candidate is either and they come from two senders,
// the one called as an assistant is (see assistantNames) when the other is not, else the
// one whose candidates are at least assistantRatio times as long as the other's (at
// least 3 candidates each), as an assistant's answers are.
func agentSide(cands []*candidate) []bool {
	out := make([]bool, len(cands))
	known := false
	for i, c := range cands {
		out[i] = byAgent(&c.msg)
		known = known || out[i]
	}
	if known {
		return out
	}
	bySender, _ := lengthsBySender(cands)
	if len(bySender) != 2 {
		return out
	}
	var ids []mynah.UserID
	named := map[mynah.UserID]bool{}
	for id := range bySender {
		ids = append(ids, id)
	}
	for _, c := range cands {
		named[c.msg.Sender.ID] = assistantNamed(c.msg.Sender)
	}
	if named[ids[0]] != named[ids[1]] {
		for j, c := range cands {
			out[j] = named[c.msg.Sender.ID]
		}
		return out
	}
	for i, id := range ids {
		ns, other := bySender[id], bySender[ids[1-i]]
		if len(ns) >= 3 && len(other) >= 3 && median(ns) >= assistantRatio*median(other) {
			for j, c := range cands {
				out[j] = c.msg.Sender.ID == id
			}
			break
		}
	}
	return out
}

// neighbourHour is how far apart in time two messages may be to be neighbours: a message
// an hour after another belongs to another conversation, as the history index reads the
// conversation before a message (mynah.PreviousContext).
const neighbourHour = mynah.ContextGap

// smooth adds to each candidate a share of its best neighbour's score (see
// Options.NeighbourWeight), a smaller one for a query asking for several things (several:
// see Options.NeighbourSpread). Neighbours are candidates of the same chat at most
// NeighbourGap ids and an hour apart; a message that did not match contributes nothing.
func (s *Searcher) smooth(cands []*candidate, several bool) {
	weight := s.opts.NeighbourWeight
	if several {
		weight *= 1 - s.opts.NeighbourSpread
	}
	if weight == 0 || len(cands) < 2 {
		return
	}
	type pos struct {
		chat mynah.ChatID
		id   mynah.MessageID
	}
	byPos := make(map[pos]*candidate, len(cands))
	base := make(map[*candidate]float64, len(cands))
	for _, c := range cands {
		byPos[pos{c.msg.Chat.ID, c.msg.ID}] = c
		base[c] = c.score
	}
	gap := mynah.MessageID(s.opts.NeighbourGap)
	for _, c := range cands {
		share := weight * max(0, 1-float64(c.bodyWords())/float64(s.opts.ContextWords))
		if share == 0 {
			continue
		}
		best := 0.0
		for d := mynah.MessageID(1); d <= gap; d++ {
			for _, n := range []*candidate{byPos[pos{c.msg.Chat.ID, c.msg.ID - d}], byPos[pos{c.msg.Chat.ID, c.msg.ID + d}]} {
				if n != nil && n.msg.Time.Sub(c.msg.Time).Abs() <= neighbourHour {
					best = max(best, base[n])
				}
			}
		}
		c.score += share * best
	}
}

// weighLength weighs each candidate by its length (see Options.LengthPrior), those of
// whole, which hold every word of the query, by the square root of it (see Options.Whole).
func (s *Searcher) weighLength(cands []*candidate, whole map[*candidate]bool) {
	if s.opts.LengthPrior <= 0 {
		return
	}
	scale := s.speakerScale(cands)
	for _, c := range cands {
		w := s.lengthWeight(int(math.Round(float64(c.bodyWords()) * scale[c.msg.Sender.ID])))
		if whole[c] {
			w = math.Sqrt(w)
		}
		c.score *= w
	}
}

// speakerScale returns what the length prior multiplies the lengths of each sender's
// candidates by (see Options.SpeakerLength): (m/ms)^SpeakerLength, where m is the median
// length of all of cands and ms of the sender's, for a sender of at least 3 of them; 1
// for the others.
func (s *Searcher) speakerScale(cands []*candidate) map[mynah.UserID]float64 {
	bySender, all := lengthsBySender(cands)
	scale := make(map[mynah.UserID]float64, len(bySender))
	m := median(all)
	for id, ns := range bySender {
		scale[id] = 1
		if ms := median(ns); s.opts.SpeakerLength > 0 && len(ns) >= 3 && ms > 0 && m > 0 {
			scale[id] = math.Pow(m/ms, s.opts.SpeakerLength)
		}
	}
	return scale
}

// lengthsBySender returns the lengths of cands in words, by sender and all of them.
func lengthsBySender(cands []*candidate) (bySender map[mynah.UserID][]int, all []int) {
	bySender = map[mynah.UserID][]int{}
	all = make([]int, 0, len(cands))
	for _, c := range cands {
		n := c.bodyWords()
		bySender[c.msg.Sender.ID] = append(bySender[c.msg.Sender.ID], n)
		all = append(all, n)
	}
	return bySender, all
}

// median returns the median of ns (sorting them), 0 for none.
func median(ns []int) float64 {
	if len(ns) == 0 {
		return 0
	}
	slices.Sort(ns)
	return float64(ns[len(ns)/2])
}

// lengthWeight is the weight of a message of words words (see Options.LengthPrior): 1
// with no prior.
func (s *Searcher) lengthWeight(words int) float64 {
	if s.opts.LengthPrior <= 0 {
		return 1
	}
	n := float64(words)
	return n / (n + s.opts.LengthPrior)
}

// boostWithin multiplies by 1+boost the score of each candidate said in span; an open
// span (all time) boosts nothing.
func boostWithin(cands []*candidate, span Span, boost float64) {
	if span.IsZero() || boost <= 0 {
		return
	}
	for _, c := range cands {
		if span.Contains(c.msg.Time) {
			c.score *= 1 + boost
		}
	}
}

// boostTold multiplies by 1+boost the score of each candidate said outside span that
// tells of a time inside it: "yesterday I went bowling", said on 17 March, for "what did
// James do on 16 March?". What a message tells of is the time its own expressions name
// (ParseTime), read as of when it was said in the chat's time zone; an open-ended one
// ("before 2020") tells of no time. A message said in span is boostWithin's. A message of
// more than ContextWords words is not read: it tells of many times, and their hull is a
// blur that would take in most spans asked about (and reading it costs ~25 µs a 100
// words).
func (s *Searcher) boostTold(cands []*candidate, span Span, boost float64) {
	if span.IsZero() || boost <= 0 {
		return
	}
	for _, c := range cands {
		if !span.Contains(c.msg.Time) && c.bodyWords() <= s.opts.ContextWords && s.tells(&c.msg, span) {
			c.score *= 1 + boost
		}
	}
}

// tells reports whether one of m's own expressions of time names a bounded time that
// overlaps span (see boostTold) and is no longer than span, or than a week: "yesterday"
// and "last weekend" tell of a Saturday, "this year" does not tell of a week of it; "due
// early November, so the nursery has to be done by autumn" tells of November, though
// its other time is open.
func (s *Searcher) tells(m *mynah.Message, span Span) bool {
	if !mayTell(m.Text) {
		return false
	}
	for _, told := range TellTime(m.Text, m.Time.In(s.loc)).Spans {
		switch {
		case told.From.IsZero() || told.To.IsZero() || !told.Overlaps(span):
		case span.From.IsZero() || span.To.IsZero():
			return true // an open time ("before March"): any told time in it
		case told.To.Sub(told.From) <= max(7*24*time.Hour, span.To.Sub(span.From)):
			return true
		}
	}
	return false
}

// bodyWords counts the words of what a message says: its text and its media's
// descriptions.
func bodyWords(m *mynah.Message) int {
	n := countWords(m.Text)
	for _, md := range m.Media {
		n += countWords(md.Description)
	}
	return n
}

// countWords counts the words of text as Terms splits them.
func countWords(text string) int {
	n, in := 0, false
	for _, r := range text {
		w := stem.IsWordRune(r)
		if w && !in {
			n++
		}
		in = w
	}
	return n
}

// weighTime weighs candidates by what the query says about time (see Options.SpanBoost,
// ToldBoost, DatedBoost and RecentBoost).
func (s *Searcher) weighTime(cands []*candidate, tq TimeQuery) {
	boostWithin(cands, tq.Span, s.opts.SpanBoost)
	s.boostTold(cands, tq.Span, s.opts.ToldBoost)
	if tq.When && s.opts.DatedBoost > 0 {
		for _, c := range cands {
			if Dated(c.msg.Text) {
				c.score *= 1 + s.opts.DatedBoost
			}
		}
	}
	if s.opts.MoneyBoost > 0 && asksMoney(tq.Text) {
		for _, c := range cands {
			if saysMoney(c.msg.Text) {
				c.score *= 1 + s.opts.MoneyBoost
			}
		}
	}
	if tq.Recent && s.opts.RecentBoost > 0 && len(cands) > 1 {
		lo, hi := cands[0].msg.Time, cands[0].msg.Time
		for _, c := range cands {
			if c.msg.Time.Before(lo) {
				lo = c.msg.Time
			}
			if c.msg.Time.After(hi) {
				hi = c.msg.Time
			}
		}
		if span := hi.Sub(lo); span > 0 {
			for _, c := range cands {
				c.score *= 1 + s.opts.RecentBoost*float64(c.msg.Time.Sub(lo))/float64(span)
			}
		}
	}
}

// diversify reorders the first k of cands (sorted best first) so that a candidate next
// to a better one already taken (one id and at most an hour away in the same chat)
// yields to one from elsewhere: its score is multiplied by 1-Diversity for each such.
func (s *Searcher) diversify(cands []*candidate, k int) []*candidate {
	rest := slices.Clone(cands)
	out := make([]*candidate, 0, len(cands))
	for len(out) < k && len(rest) > 0 {
		bi, best := 0, math.Inf(-1)
		for i, c := range rest {
			n := 0
			for _, o := range out {
				if o.msg.Chat.ID == c.msg.Chat.ID && (o.msg.ID-c.msg.ID == 1 || c.msg.ID-o.msg.ID == 1) &&
					o.msg.Time.Sub(c.msg.Time).Abs() <= neighbourHour {
					n++
				}
			}
			if sc := c.score * math.Pow(1-s.opts.Diversity, float64(n)); sc > best {
				bi, best = i, sc
			}
		}
		out = append(out, rest[bi])
		rest = slices.Delete(rest, bi, bi+1)
	}
	return append(out, rest...)
}

// Aggregate reports whether a query asks for several things over time ("how many
// times…", "what books has Ann read?", "all the places…"): its answer is spread over
// several conversations, so its results should come from several.
func Aggregate(query string) bool {
	toks := timeTokens(query)
	for i, t := range toks {
		next := func(j int) string {
			if i+j < len(toks) {
				return toks[i+j].w
			}
			return ""
		}
		switch t.w {
		case "howmany": // «скільки», «сколько»
			return true
		case "how":
			switch next(1) {
			case "many", "often", "much":
				return true
			}
		case "times", "total", "all", "ever", "both", "every", "various", "list":
			return true
		case "kinds", "types", "sorts":
			if next(1) == "of" {
				return true
			}
		case "has", "have", "'ve":
			// the present perfect: "what has Ann painted", "where have they travelled"
			for j := 1; j <= 4; j++ {
				if next(j) == "been" && strings.HasSuffix(next(j+1), "ing") {
					break // "has been getting into": what goes on now
				}
				if participle(next(j)) {
					return true
				}
			}
		}
	}
	return false
}

// participle reports whether w is a past participle: a regular one, or a common
// irregular one.
func participle(w string) bool {
	if len(w) > 4 && strings.HasSuffix(w, "ed") {
		return true
	}
	switch w {
	case "been", "done", "gone", "seen", "made", "read", "had", "taken", "given", "written", "eaten", "won",
		"bought", "got", "gotten", "met", "found", "told", "said", "sent", "spent", "built", "drawn", "grown",
		"known", "run", "sung", "swum", "taught", "thought", "worn", "flown", "driven", "ridden", "begun", "brought":
		return true
	}
	return false
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
	second, err := s.keyword(ctx, q, append(slices.Clone(terms), extra...), nil, Span{})
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

// wholePool is how many of the best keyword candidates, by BM25, wholes looks into: a
// message holding every word of the query is nearly always among them, and reading the
// words of each costs ~10 µs.
const wholePool = 30

// wholes returns the candidates among the first wholePool of cands (best by BM25 first)
// whose own words hold every one of terms, two or more (see Options.Whole). When the query
// asks of the past (past: see pastOf), a verb is held in its past forms too, as the search
// finds them: "I made a mug" holds the "make" of "what did I make at the workshop?".
func (s *Searcher) wholes(cands []*candidate, terms []string, past bool) map[*candidate]bool {
	if s.opts.Whole <= 0 || len(terms) < 2 {
		return nil
	}
	h := newHolder(terms)
	if past {
		h.addForms(pastForms)
	}
	out := map[*candidate]bool{}
	for _, c := range cands[:min(len(cands), wholePool)] {
		if h.holdsAll(c) {
			out[c] = true
		}
	}
	return out
}

// Feature is one ranking feature: its name, what it does, and how to turn it off and on
// (On sets the value DefaultOptions has, or, for a feature off by default, the value it
// is measured with).
type Feature struct {
	Name, Doc string
	Off, On   func(*Options)
}

// Features lists the ranking features. With every one off, ranking is plain BM25 over
// what messages say.
func Features() []Feature {
	return []Feature{
		{"context", "a match in the name of who said a message counts",
			func(o *Options) { o.ContextWeight = 0 }, func(o *Options) { o.ContextWeight = 2 }},
		{"previous", "a match in the conversation before a short message counts",
			func(o *Options) { o.PreviousWeight = 0 }, func(o *Options) { o.PreviousWeight = 0.4 }},
		{"speaker", "the words of a person the query names come first",
			func(o *Options) { o.SpeakerBoost = 0 }, func(o *Options) { o.SpeakerBoost = 0.2 }},
		{"asker", "a question in the first person (\"what did I paint?\") prefers what the person said to what an assistant said, one of you (\"what did you recommend?\") what the assistant said",
			func(o *Options) { o.AskerBoost = 0 }, func(o *Options) { o.AskerBoost = 1 }},
		{"answers", "a question of what the assistant said (\"which tent did you recommend?\") gets the assistant's answers to the person's messages that match it",
			func(o *Options) { o.Answers = 0 }, func(o *Options) { o.Answers = 1 }},
		{"gather", "a query asking for several things a person did (how many, what has Ann read) weighs their words twice as much",
			func(o *Options) { o.SpeakerGather = 0 }, func(o *Options) { o.SpeakerGather = 2 }},
		{"lift", "the words of a person the query names come first also where they wrote so much of the chat that the index does not weigh the name",
			func(o *Options) { o.SpeakerLift = 0 }, func(o *Options) { o.SpeakerLift = 0.7 }},
		{"length", "the shortest messages (\"see you!\") weigh less",
			func(o *Options) { o.LengthPrior = 0 }, func(o *Options) { o.LengthPrior = 10 }},
		{"speakerlength", "the length prior reads a message's length against its sender's usual length: a terse user's words do not weigh less than a long-winded assistant's",
			func(o *Options) { o.SpeakerLength = 0 }, func(o *Options) { o.SpeakerLength = 0.5 }},
		{"neighbours", "a short message takes a share of its best neighbour's score",
			func(o *Options) { o.NeighbourWeight = 0 }, func(o *Options) { o.NeighbourWeight = 0.4 }},
		{"spread", "for a query asking for several things (what has Ann painted, how many times), a message takes half the usual share of its neighbours' scores",
			func(o *Options) { o.NeighbourSpread = 0 }, func(o *Options) { o.NeighbourSpread = 0.5 }},
		{"span", "messages said in the time the query names come first",
			func(o *Options) { o.SpanBoost = 0 }, func(o *Options) { o.SpanBoost = 0.5 }},
		{"window", "a query naming a time ranks 300 candidates, keeping those beyond the first 100 only when said then or the day after",
			func(o *Options) { o.SpanPool = 0 }, func(o *Options) { o.SpanPool = 300 }},
		{"told", "messages telling of the time the query names (\"yesterday\", said the day after) come first",
			func(o *Options) { o.ToldBoost = 0 }, func(o *Options) { o.ToldBoost = 0.5 }},
		{"months", "a query naming a month also gets the messages that name a time in it in their own words (\"we booked the cabin for 7 to 11 August\", said in July)",
			func(o *Options) { o.MonthsSaid = 0 }, func(o *Options) { o.MonthsSaid = 0.5 }},
		{"anchors", "messages said before (after) the event a query names (\"before the trip\") come first",
			func(o *Options) { o.AnchorBoost = 0 }, func(o *Options) { o.AnchorBoost = 0.5 }},
		{"cover", "a query joining things with \"and\" gets a hit of each",
			func(o *Options) { o.Cover = false }, func(o *Options) { o.Cover = true }},
		{"distinct", "a message saying word for word what a better one of the same chat and sender said is left out: each thing said comes once",
			func(o *Options) { o.Distinct = false }, func(o *Options) { o.Distinct = true }},
		{"dated", "a query asking when prefers messages that date what they tell",
			func(o *Options) { o.DatedBoost = 0 }, func(o *Options) { o.DatedBoost = 0.15 }},
		{"money", "a question of money (\"how much did I spend on…\") prefers messages that name an amount of it (\"$85\", \"40 euros\")",
			func(o *Options) { o.MoneyBoost = 0 }, func(o *Options) { o.MoneyBoost = 0.3 }},
		{"recent", "a query asking for the latest state prefers newer messages (off by default)",
			func(o *Options) { o.RecentBoost = 0 }, func(o *Options) { o.RecentBoost = 0.2 }},
		{"whole", "a message holding every word of the query comes first, before those the other features bring up by what is around them, and bears only the square root of the length prior",
			func(o *Options) { o.Whole = 0 }, func(o *Options) { o.Whole = 0.5 }},
		{"kinds", "a query asking for things of a kind (\"what pets\", \"which instrument\") also searches for the things of that kind (dog, guitar)",
			func(o *Options) { o.Kinds = false }, func(o *Options) { o.Kinds = true }},
		{"searchkinds", "a question asking for several things of a kind (\"how many countries\", \"what pets\") also searches for the things themselves (Prague, kitten), not only where they meet its other words",
			func(o *Options) { o.SearchKinds = false }, func(o *Options) { o.SearchKinds = true }},
		{"related", "a question naming an event or thing with one word (\"conferences\", \"repairs\") also searches the words a chat tells it with (\"a talk\", \"the plumber replaced…\")",
			func(o *Options) { o.Related = false }, func(o *Options) { o.Related = true }},
		{"places", "a query naming a place also searches for the places in it (\"when did Ann visit Italy?\": Rome, Venice), where they meet its other words",
			func(o *Options) { o.Places = false }, func(o *Options) { o.Places = true }},
		{"variants", "a query's words are also searched as the other words a chat uses for them (\"gf\" for girlfriend, \"bday\" for birthday), where they meet its other words, and two of them as the one word a chat writes (\"roadtrip\" for road trip)",
			func(o *Options) { o.Variants = false }, func(o *Options) { o.Variants = true }},
		{"past", "a question of the past also searches its verbs' past forms that stemming does not join (\"what did Ann buy?\": \"bought\")",
			func(o *Options) { o.PastForms = false }, func(o *Options) { o.PastForms = true }},
		{"nicknames", "a person a query names by the short form of a Ukrainian or Russian name («Діма», «Іра») is also the sender of the full one («Дмитро», «Ірина»), whose name weighs where it meets the query's other words",
			func(o *Options) { o.Nicknames = false }, func(o *Options) { o.Nicknames = true }},
		{"diversity", "a query asking for several things gets them from several conversations (off by default)",
			func(o *Options) { o.Diversity = 0 }, func(o *Options) { o.Diversity = 0.4 }},
	}
}

// Enabled reports whether f is on in o.
func (f Feature) Enabled(o Options) bool {
	off := o
	f.Off(&off)
	return off != o
}

// With returns o with the named features on (see Feature.On). An unknown name is an
// error that lists the known ones.
func With(o Options, names ...string) (Options, error) {
	for _, name := range names {
		f, err := feature(name)
		if err != nil {
			return o, err
		}
		f.On(&o)
	}
	return o, nil
}

// feature returns the feature named name.
func feature(name string) (Feature, error) {
	var known []string
	for _, f := range Features() {
		if f.Name == name {
			return f, nil
		}
		known = append(known, f.Name)
	}
	return Feature{}, fmt.Errorf("no ranking feature %q: want one of %s", name, strings.Join(known, ", "))
}

// Ablate returns o with the named features off; "all" turns them all off (plain BM25).
// An unknown name is an error that lists the known ones.
func Ablate(o Options, names ...string) (Options, error) {
	for _, name := range names {
		if name == "all" {
			for _, f := range Features() {
				f.Off(&o)
			}
			continue
		}
		f, err := feature(name)
		if err != nil {
			return o, err
		}
		f.Off(&o)
	}
	return o, nil
}

// distinct returns cands, best first, without those saying what one before them said
// (see Options.Distinct and saidKey), counted in its repeats; nor those saying what one
// of them that is shown already (in the prompt) says.
func distinct(cands []*candidate, shown func(*candidate) bool) []*candidate {
	first := make(map[string]*candidate, len(cands))
	for _, c := range cands {
		if !shown(c) {
			continue
		}
		if k, ok := saidKey(&c.msg); ok && first[k] == nil {
			first[k] = c
		}
	}
	return slices.DeleteFunc(cands, func(c *candidate) bool {
		k, ok := saidKey(&c.msg)
		if !ok {
			return false
		}
		switch f := first[k]; {
		case f == c:
			return false
		case f != nil:
			f.repeats++
			return true
		}
		first[k] = c
		return false
	})
}

// saidKey names what m says, for distinct: its chat, its sender and its words, case and
// spacing aside. A message of no text (a photo) has none (false): its media differ.
func saidKey(m *mynah.Message) (string, bool) {
	text := strings.Join(strings.Fields(strings.ToLower(m.Text)), " ")
	if text == "" {
		return "", false
	}
	return fmt.Sprintf("said:%d:%d:%s", m.Chat.ID, m.Sender.ID, text), true
}
