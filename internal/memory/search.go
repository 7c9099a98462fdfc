package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/stem"
)

// Kind is what a search result is. Messages and notes (WithNotes) are searched today;
// facts and summaries come with their indexes and share Result.
type Kind string

// Kinds of results.
const (
	KindMessage Kind = "message"
	KindNote    Kind = "note"
	KindFact    Kind = "fact"
	KindSummary Kind = "summary"
)

// Result is one ranked item.
type Result struct {
	Kind      Kind
	Chat      mynah.ChatID    // messages
	MessageID mynah.MessageID // messages: the id in its chat
	Time      time.Time
	Score     float64 // relative to the other results of the same search, higher better
	Snippet   string  // the part of the text around what matched
	// Source says where the item is: "chat -100123 #42" for a message, a path and lines
	// for a note.
	Source  string
	Message *mynah.Message // the whole message, for KindMessage
	// Repeats is how many other messages found said word for word what this one says
	// (see Options.Distinct): left out of the results, this one standing for them.
	Repeats int
}

// Query is one search.
type Query struct {
	Agent string
	// Chat limits the messages to one chat (0: every chat of the agent) and the notes to
	// those that chat may see (0: global notes only; see the package documentation).
	Chat   mynah.ChatID
	Sender mynah.UserID // 0: anyone
	Text   string
	K      int // results wanted; 0 means 10
	// Exclude lists messages not to return (those already in the prompt's window).
	Exclude []mynah.MessageID
	// Now is when the query is asked: "last week" is the week before it. Zero: the
	// searcher's clock.
	Now time.Time
	// Until, when set, leaves out the messages said after it: the search as it would have
	// run then (mynah memory search --at), when they had not been said.
	Until time.Time
	// AllNotes searches every note, whatever chat it belongs to and unscoped ones too:
	// the operator's search, never one whose results a chat sees.
	AllNotes bool
	// Typos corrects a mistyped word of Text (see mynah.SearchQuery.Typos): for searches
	// someone asked for, not the recall made for every message.
	Typos bool
}

// History is the store the searcher reads: the history index and message neighbours.
type History interface {
	SearchHistory(ctx context.Context, q mynah.SearchQuery) ([]mynah.SearchHit, error)
	Around(ctx context.Context, agent string, chat mynah.ChatID, id mynah.MessageID, before, after int) ([]mynah.Message, error)
}

// Options tune ranking. The zero value is plain BM25 over the text of messages, from a
// pool of 100 candidates; DefaultOptions holds the settings the agent uses. Every setting
// is a feature (see Features) that was kept only because it raised recall on both halves
// of LoCoMo, tuned on one and measured on the other (see TestLoCoMoHalves), or, for what
// LoCoMo does not ask (what "you" suggested, money), left both halves as they were and
// raised the chat-assistant histories written for the tests (TestAssistantHistory).
type Options struct {
	// Pool is how many keyword candidates are ranked; 0 means 100.
	Pool int
	// ContextWeight weighs a match in who said a message (the sender's names) against one
	// in its text (1): "what did Alice say…" finds Alice's messages even in other words.
	ContextWeight float64
	// PreviousWeight weighs a match in the conversation just before a message (what it
	// replies to, the messages before it): an answer shares few words with the question
	// about it. The index holds that context for short messages only (up to 100 words
	// with the message; see mynah.PreviousContext).
	PreviousWeight float64
	// SpeakerBoost multiplies by 1+SpeakerBoost the score of a message whose sender's
	// first name the query mentions: "what did Alice say about…" prefers Alice's words.
	SpeakerBoost float64
	// SpeakerLift adds to SpeakerBoost SpeakerLift times the share of the candidates not
	// from the person the query names. BM25 weighs a name by how rare it is: where that
	// person wrote half of what the store holds (a lone two-person chat), the name weighs
	// nothing and the candidates come from everyone, so the boost must do what the index
	// did not; where the name is rare, the index already put their messages first and the
	// candidates are mostly theirs. 0.7 (0.5 before) raises LoCoMo's recall@10 over
	// categories 1-4 on both halves, in one store (0.808 -> 0.809, 0.784 -> 0.787) and in a
	// store each (0.796 -> 0.798, 0.777 -> 0.781), and TestLongTurns by up to 0.004 in every
	// setting; more (0.8-1) raises half A's store each a little more, but costs the
	// adversarial questions, which name the wrong person, more than the 0.002-0.005 that
	// 0.7 costs them, as does a larger SpeakerBoost (0.3: 0.012 on half B), which lifts a
	// name the index weighs as much as one it does not.
	SpeakerLift float64
	// AskerBoost multiplies by 1+AskerBoost, for a question about one side of a chat with
	// an assistant, the score of each candidate of that side: for one in the first person
	// ("what did I paint?", "where did my sister move?"), what the agent's side did not
	// say, for the asker's life is what a person tells and an assistant only restates; for
	// one of "you" ("what did you recommend?"), what it said. A question of both, or of
	// neither, is left alone; the "you" of a request ("can you remind me…") asks nothing
	// of the one asked. The agent's side is what the agent (or another bot) said, or, in a
	// chat of two where neither is known as the agent (an imported chat with an
	// assistant), the one called as an assistant is ("assistant", "ChatGPT") when the
	// other is not, else the one whose candidates are at least assistantRatio times as
	// long as the other's, as an assistant's answers are. In LoCoMo made a chat with an
	// assistant (TestLongTurns' first and second person) it raised recall@10 by
	// 0.015-0.045 on each half; LoCoMo itself asks in the third person.
	AskerBoost float64
	// SpeakerGather multiplies the speaker boost (SpeakerBoost and SpeakerLift together)
	// for a query asking for several things (see Aggregate: "what books has Melanie
	// read?", "how many times did John…"): its answer is that person's own words across
	// many conversations, each matching the question's other words weakly, so their
	// being theirs must count more against another's message that matches the topic
	// better. 0 or 1: no more than for any query.
	SpeakerGather float64
	// NeighbourWeight adds to a message's score a share of its best neighbour's (a message
	// of the same chat at most NeighbourGap ids and an hour away): an answer is often next
	// to the turn that shares the question's words. The share is NeighbourWeight for a
	// message of no words and falls linearly to nothing at ContextWords words: a long
	// message says what it is about by itself, and borrowing its neighbours' scores only
	// pushes out other messages.
	NeighbourWeight float64
	// NeighbourSpread cuts, by this fraction, the share of its neighbours' scores that a
	// message takes for a query asking for several things over time (see Aggregate: "what
	// has Ann painted?", "how many times…"): there the neighbours of one good match, lifted
	// by it, take the places of the other conversations' matches that the answer is made
	// of. 0.5 raised LoCoMo's multi-hop recall@10 on both halves, in one store and in a
	// store each (0.505 -> 0.511, 0.478 -> 0.480; 0.489 -> 0.495, 0.438 -> 0.446) and left
	// no half's figure over categories 1-4 lower; 1 (no smoothing for such queries) lost
	// half A's multi-hop questions (0.491).
	NeighbourSpread float64
	NeighbourGap    int // 0 means 1
	ContextWords    int // 0 means mynah.ContextWords (100), as the index reads messages
	// LengthPrior weighs a message of n words by n/(n+LengthPrior): BM25 favours short
	// messages, and the shortest ("see you!", "haha yes") match a name or one word and
	// say nothing.
	LengthPrior float64
	// SpeakerLength makes the length prior read a message's length against its sender's
	// usual length among the candidates: the length is multiplied by (m/ms)^SpeakerLength,
	// m the median length of all candidates and ms of the sender's. A user who writes a
	// line at a time to an assistant that answers in pages would otherwise weigh less for
	// being terse: the prior is for the shortest messages of a chat ("see you!"), not for
	// the shorter speaker. In LoCoMo made a chat with an assistant (TestLongTurns' first
	// person) it raised recall@10 by 0.008-0.033; 1 (the whole ratio) raised it as much
	// but cost LoCoMo's adversarial questions more than plain BM25 loses. Lifting only a
	// terser sender's lengths, never shortening a wordier one's (7 December), found one
	// more question of TestAssistantHaystack where the person's turns are short and long,
	// but took LoCoMo's half B multi-hop 0.500 -> 0.493 and half A open-domain 0.456 ->
	// 0.445 (mynah bench memory --half), below the targets.
	SpeakerLength float64
	// SpanBoost multiplies by 1+SpanBoost the score of a message said in the time the
	// query names ("last week", "in March"; see ParseTime); the words of a relative time
	// ("last week") are not searched for.
	SpanBoost float64
	// SpanPool is how many keyword candidates a query naming a time ranks ("what did James
	// do on 16 March?"); those beyond Pool are kept only when said in that time or the day
	// after it ("yesterday I went bowling"), where a match of a name alone ("James"), too
	// weak to make the first Pool, may be the answer. 0 or less than Pool: Pool.
	SpanPool int
	// ToldBoost multiplies by 1+ToldBoost the score of a message said outside the time the
	// query names that tells of a time inside it: "yesterday I went bowling", said the day
	// after the day asked about (see Searcher.boostTold).
	ToldBoost float64
	// AnchorBoost multiplies by 1+AnchorBoost the score of a message said before (or
	// after) the event a query places its time against ("before the trip": see Anchor),
	// which is when the message that best matches the event's words was said.
	AnchorBoost float64
	// DatedBoost multiplies by 1+DatedBoost, for a query asking when ("when did…", "what
	// year…"), the score of a message that dates what it tells ("last Sunday", "in 2019").
	DatedBoost float64
	// MoneyBoost multiplies by 1+MoneyBoost, for a question of money ("how much did I
	// spend on the bike?", "what did the car cost?"; see asksMoney), the score of a
	// message that names an amount of it ("$85", "40 euros"; see saysMoney): what was
	// paid is told with its price, in other words than the question's.
	MoneyBoost float64
	// RecentBoost favours, for a query asking for the latest state ("current", "still",
	// "recently"), newer candidates: a score is multiplied by 1+RecentBoost·r, r from 0 for
	// the oldest candidate to 1 for the newest.
	RecentBoost float64
	// Whole multiplies by 1+Whole the score of a message among the wholePool best by
	// BM25 whose own words (its text and media's descriptions, stemmed) hold every word of
	// a query of two or more: the message a query was written from ("the playlist I made
	// on Spotify") stays ahead of those the other features bring up by what is around them
	// or who said them. Such a message also bears only the square root of the length
	// prior's weight (see LengthPrior): a short message that holds every word asked for
	// did not match by chance, as "Thanks, John!" matches a question about John. A verb
	// asked of the past is held in its past forms too (see PastForms): "I made a mug"
	// holds what "what did I make at the workshop?" asks, as a long message that says
	// "make" beside "workshop" does.
	Whole float64
	// Answers makes, for a question of what the agent's side said ("which tent did you
	// recommend for our trip?"; see askedOf), the agent's answer to each of the three
	// best of the person's candidates score at least Answers times that candidate's score
	// (before the asker's boost lifts it further; see answerYou): the question names what
	// the person asked about, in their words, and the answer, long and in other words
	// ("the Gallery series stays 40cm tall"), is what it asks for.
	Answers float64
	// Diversity spreads the results of a query asking for several things over time (see
	// Aggregate): a message next to a better result (one id away, the same hour) has its
	// score multiplied by 1-Diversity for each, so another conversation's turn comes in.
	Diversity float64
	// Distinct leaves out a message that says word for word what a better one of the
	// same chat and sender said (case and spacing aside): a greeting a bot posts every
	// morning, a text pasted twice, the "ok" of every day. Ten copies of one thing would
	// fill the results with one answer and push out the others.
	Distinct bool
	// Cover makes the results of a query for several things (see Aggregate) that joins
	// them with "and" ("how many days in Japan and Chicago?"), or of one asking which of
	// two came first ("which did I adopt first, Susie or Seraphim?": see compares), hold
	// each of them that any candidate holds (see cover).
	Cover bool
	// Kinds weighs in a query asking for things of a kind ("what pets does Ann have?",
	// "which instrument…") the things of that kind people name instead ("dog", "guitar";
	// see kindWords), where they meet the query's other words: the messages that answer
	// say what the things are, not their kind. Not for a query asking when: its answer
	// is a time, and in a long history the things' words meet the query's elsewhere
	// (TestLoCoMoHaystack's temporal questions lost 0.007 with them).
	Kinds bool
	// SearchKinds searches, for a question asking for several things of a kind ("how
	// many countries did I visit?", "what pets do we have?"; see severalThings), the
	// things of that kind as words of the question, not only where they meet its other
	// words (Kinds): each answer names one ("a long weekend in Prague", "our new kitten")
	// and often nothing else the question says.
	SearchKinds bool
	// Related searches, with a question's words, the words a chat tells an event or thing
	// with where the question names it with another (see relatedGroups): "how many
	// conferences did I present at?" is told "I'm giving a talk at IAGLR".
	Related bool
	// Places weighs in a query naming a place the places in it that people name instead
	// (see within: "when did Ann visit Italy?", "Rome was amazing"), where they meet the
	// query's other words, as Kinds does; also in a query asking when, whose answer is told
	// of the city, not the country.
	Places bool
	// Variants weighs in a query the other words people use in a chat for its words (see
	// sameWords: "gf" for girlfriend, "bday" for birthday, "colour" for color), where they
	// meet the query's other words, as Kinds does; and searches, as words of the query,
	// its neighbouring words written as one ("roadtrip" for road trip; see compounds).
	Variants bool
	// MonthsSaid, when > 0, adds to the candidates of a query naming a month (or up to two)
	// the messages that name a time in it in their own words, said before it or after
	// ("we booked the cabin for 7 to 11 August", said in July, for "where did we go in
	// August?"), each with its score among them times MonthsSaid (see fillMonths): the
	// query's month is searched by the time its messages were said, and so is left out of
	// its words.
	MonthsSaid float64
	// PastForms searches, for a question of the past ("what did Ann buy?", "where has she
	// been?"), also the past forms of its verbs that stemming does not join with them
	// ("bought"; see pastForms): a question asks with "did" and the verb's plain form, a
	// chat tells with its past. Not "go" ("went"), nor "get" ("got"): too common words in a
	// chat, "went" cost two LoCoMo questions, and "which instrument did Bob get?" found
	// "she got fat" before "my new guitar arrived".
	PastForms bool
	// Nicknames takes a person a query names by one of their names for the sender of
	// another (see nicknameGroups: «Діма» for a sender «Дмитро», «Іра» for «Ірина») in
	// the speaker features, and weighs their other names where they meet the query's
	// other words, as Kinds does.
	Nicknames bool
	// Expansion, when > 0, adds that many terms from the best ExpansionDocs results to
	// the query and searches again (pseudo-relevance feedback), blending the second
	// ranking in with ExpansionWeight.
	Expansion       int
	ExpansionDocs   int
	ExpansionWeight float64
	// Recency favours recent messages.
	Recency Recency
	// Weights combine keyword and vector candidates (see Fuse).
	Weights Weights
}

// DefaultOptions are the ranking settings the agent uses. RecentBoost and Diversity are
// off: on LoCoMo they lowered recall on a half (its questions ask for the latest state too
// rarely, and its answers to questions about several things often sit side by side); they
// are there for chats and questions that need them.
func DefaultOptions() Options {
	return Options{Pool: 100, ContextWeight: 2, PreviousWeight: 0.4, SpeakerBoost: 0.2, SpeakerLift: 0.7, SpeakerGather: 2, AskerBoost: 1,
		NeighbourWeight: 0.4, NeighbourSpread: 0.5, NeighbourGap: 2, ContextWords: 100, LengthPrior: 10, SpeakerLength: 0.5,
		SpanBoost: 0.5, SpanPool: 300, ToldBoost: 0.5, AnchorBoost: 0.5, DatedBoost: 0.15, MoneyBoost: 0.3, MonthsSaid: 0.5, Cover: true, Distinct: true, Whole: 0.5, Answers: 1, Kinds: true, SearchKinds: true, Related: true, Places: true, Variants: true, PastForms: true, Nicknames: true}
}

// Searcher ranks an agent's history for a query. It is safe for concurrent use.
type Searcher struct {
	store History
	opts  Options
	stop  map[string]bool // stopSet(): shared, never written
	now   func() time.Time
	notes NoteSource     // nil: messages only (see WithNotes)
	vec   *Vectors       // nil: keyword only (see WithVectors)
	loc   *time.Location // the chat's time zone, for times in queries (see WithLocation)
}

// NewSearcher returns a Searcher over store; it does no I/O. now defaults to time.Now.
func NewSearcher(store History, opts Options, now func() time.Time) *Searcher {
	if opts.Pool <= 0 {
		opts.Pool = 100
	}
	if opts.NeighbourGap <= 0 {
		opts.NeighbourGap = 1
	}
	if opts.ContextWords <= 0 {
		opts.ContextWords = mynah.ContextWords
	}
	if now == nil {
		now = time.Now
	}
	return &Searcher{store: store, opts: opts, stop: stopSet(), now: now, loc: time.UTC}
}

// WithLocation returns a copy of s that reads the times in queries ("yesterday", "in
// March") in loc, the chat's time zone; nil is UTC.
func (s *Searcher) WithLocation(loc *time.Location) *Searcher {
	c := *s
	c.loc = loc
	if loc == nil {
		c.loc = time.UTC
	}
	return &c
}

// Location is the time zone the searcher reads times in.
func (s *Searcher) Location() *time.Location { return s.loc }

// candidate is a message being ranked.
type candidate struct {
	msg     mynah.Message
	score   float64
	words   int // bodyWords of msg, counted on first use; 0: not yet
	repeats int // the other candidates saying the same, left out (see distinct)
}

// bodyWords is bodyWords(&c.msg), counted once.
func (c *candidate) bodyWords() int {
	if c.words == 0 {
		c.words = bodyWords(&c.msg) + 1
	}
	return c.words - 1
}

func messageKey(chat mynah.ChatID, id mynah.MessageID) string {
	return fmt.Sprintf("message:%d:%d", chat, id)
}

// keyed is cands by their messages' keys (messageKey).
func keyed(cands []*candidate) map[string]*candidate {
	out := make(map[string]*candidate, len(cands))
	for _, c := range cands {
		out[messageKey(c.msg.Chat.ID, c.msg.ID)] = c
	}
	return out
}

// Search returns up to q.K results for q.Text, best first. A query of stop words only
// finds nothing.
func (s *Searcher) Search(ctx context.Context, q Query) ([]Result, error) {
	k := q.K
	if k <= 0 {
		k = 10
	}
	now := q.Now
	if now.IsZero() {
		now = s.now()
	}
	now = now.In(s.loc)
	q.Text = tellingWords(q.Text, s.stop, maxWords)
	tq := TimeQuery{Text: q.Text}
	if s.opts.SpanBoost > 0 || s.opts.ToldBoost > 0 || s.opts.DatedBoost > 0 || s.opts.RecentBoost > 0 || s.opts.AnchorBoost > 0 {
		tq = ParseTime(q.Text, now)
	}
	tq.Text = endUp.ReplaceAllString(tq.Text, " ")
	asked := Terms(tq.Text, s.stop) // the words of what is asked, the time's left out
	if !tq.Span.IsZero() {
		asked = slices.DeleteFunc(asked, talkWord)
	}
	if rest := slices.DeleteFunc(slices.Clone(asked), metaWord); len(rest) > 0 {
		asked = rest
	}
	var anchored Span // the time the query's events bound ("before the trip")
	if len(tq.Anchors) > 0 && s.opts.AnchorBoost > 0 {
		var events []mynah.Message
		var err error
		if anchored, events, err = s.anchorSpan(ctx, q, asked, tq.Anchors); err != nil {
			return nil, err
		}
		if names, maybe, ok := s.eventOnly(q.Text, asked, tq.Anchors); ok && len(events) == 1 {
			out, found, err := s.aroundEvent(ctx, q, events[0], tq.Anchors[0].After, names, maybe, k)
			if err != nil {
				return nil, err
			}
			if found {
				return s.addNotes(ctx, q, asked, out, k)
			}
		}
	}
	// The month and year of the time named weigh where they meet what is asked ("what did
	// Ann paint last week?" prefers her painting of that week), but do not bring in the
	// month's other messages, which share nothing with the question but the time: asked
	// about painting, those would outrank her painting of another week. So do the things
	// of a kind asked for (Options.Kinds).
	terms, boost := asked, s.monthTerms(tq.Span)
	var past []string // the past forms of its verbs, for a question of the past
	if s.opts.PastForms {
		past = pastOf(tq.Text)
		terms = slices.Concat(asked, past)
	}
	if s.opts.Variants {
		terms = slices.Concat(terms, compounds(tq.Text))
	}
	boost = append(boost, s.addedWords(tq, boost)...)
	if (s.opts.SearchKinds || s.opts.Related) && !tq.When {
		words := splitWords(strings.ToLower(tq.Text))
		if s.opts.SearchKinds {
			things := severalThings(words)
			terms = append(terms, things...)
			boost = slices.DeleteFunc(boost, func(w string) bool { return slices.Contains(things, w) })
		}
		if s.opts.Related {
			terms = append(terms, relatedWords(words)...)
		}
	}
	timeOnly := !slices.ContainsFunc(asked, func(w string) bool { return !seasonWord(w) })
	if timeOnly {
		// only a time: "what did we talk about yesterday?", "what did we do last
		// summer?": its messages
		terms, boost = append(Terms(endUp.ReplaceAllString(q.Text, " "), s.stop), boost...), nil
	}
	if len(terms) == 0 {
		return nil, nil
	}
	window := s.window(tq.Span)
	cands, err := s.keyword(ctx, q, terms, boost, window)
	if err == nil && !tq.Span.IsZero() {
		cands, err = s.fillMonths(ctx, q, cands, tq.Span)
	}
	if err != nil {
		return nil, err
	}
	if s.vec != nil {
		cands = s.fuseVectors(ctx, q, cands)
	}
	several := Aggregate(q.Text)
	var covered *holder // the things a query for several asks for, each to be in the results
	if s.opts.Cover && (several || compares(splitWords(strings.ToLower(q.Text)))) {
		covered = newHolder(conjuncts(q.Text, s.stop))
		if cands, err = s.fillCover(ctx, q, cands, covered); err != nil {
			return nil, err
		}
	}
	if s.opts.Expansion > 0 && len(cands) > 0 {
		if cands, err = s.expand(ctx, q, terms, cands); err != nil {
			return nil, err
		}
	}
	whole := s.wholes(cands, asked, len(past) > 0)
	s.weighLength(cands, whole)
	if cands, err = s.answerYou(ctx, q, cands); err != nil {
		return nil, err
	}
	s.boostSpeakers(cands, q.Text)
	s.boostAsker(cands, q.Text)
	s.smooth(cands, several)
	s.weighTime(cands, tq)
	boostWithin(cands, anchored, s.opts.AnchorBoost)
	for _, c := range cands {
		c.score = s.opts.Recency.apply(c.score, c.msg.Time, now)
		if whole[c] {
			c.score *= 1 + s.opts.Whole
		}
	}
	if timeOnly && !tq.Span.IsZero() {
		firstWithin(cands, tq.Span)
	}
	slices.SortStableFunc(cands, func(a, b *candidate) int { return cmpDesc(a.score, b.score) })
	if s.opts.Diversity > 0 && several {
		cands = s.diversify(cands, k+len(q.Exclude))
	}
	shown := func(c *candidate) bool { // in the prompt already
		return (q.Chat == 0 || c.msg.Chat.ID == q.Chat) && slices.Contains(q.Exclude, c.msg.ID)
	}
	if s.opts.Distinct {
		cands = distinct(cands, shown)
	}
	cands = slices.DeleteFunc(cands, shown)
	if covered != nil {
		cands = cover(cands, k, covered)
	}

	out := make([]Result, 0, k)
	for _, c := range cands[:min(k, len(cands))] {
		r := messageResult(c.msg, c.score, terms)
		r.Repeats = c.repeats
		out = append(out, r)
	}
	return s.addNotes(ctx, q, terms, out, k)
}

// messageResult is the result of message m found with score for terms.
func messageResult(m mynah.Message, score float64, terms []string) Result {
	return Result{
		Kind: KindMessage, Chat: m.Chat.ID, MessageID: m.ID, Time: m.Time, Score: score,
		Snippet: Snippet(prompt.Body(&m), terms, 240), Source: fmt.Sprintf("chat %d #%d", m.Chat.ID, m.ID), Message: &m,
	}
}

// addedWords returns the words a search weighs beside tq's own and have, each once: the
// things of a kind it asks for (Options.Kinds; not when it asks when) and the other words
// for its words (Options.Variants).
func (s *Searcher) addedWords(tq TimeQuery, have []string) []string {
	words, more := moreWords(tq.Text, have...)
	if s.opts.Kinds && !tq.When {
		kindWords(words, more)
	}
	if s.opts.Places {
		placeWords(words, more)
	}
	if s.opts.Variants {
		variants(words, more)
	}
	if s.opts.Nicknames {
		more.add(askedNamesOf(tq.Text).others()...)
	}
	return more.out
}

// firstWithin lifts the candidates said in span above all the others, keeping the order
// of each: a question of a time alone is answered by what was said in it, whatever its
// words. In a new chat of a few messages the month's name that brings them in weighs
// nothing (FTS5 gives a word in half the messages no weight), and a message of another
// month that holds a rarer word of the question would come first.
func firstWithin(cands []*candidate, span Span) {
	top := 0.0
	for _, c := range cands {
		if !span.Contains(c.msg.Time) {
			top = max(top, c.score)
		}
	}
	for _, c := range cands {
		if span.Contains(c.msg.Time) {
			c.score += top + 0.001
		}
	}
}

// Missed returns the time text names ("what happened yesterday?", "in March") when none
// of the messages of res, its results, was said in it or tells of it ("yesterday I went
// bowling", said today, but not "what did we do yesterday?"; see boostTold): they are then
// the best matches of other times, and whoever reads them should be told so (see
// Span.Describe). ok is false when text names no time, or a time still to come (nothing
// was said then yet), or some result is of it.
func (s *Searcher) Missed(text string, now time.Time, res []Result) (span Span, ok bool) {
	if now.IsZero() {
		now = s.now()
	}
	span = ParseTime(tellingWords(text, s.stop, maxWords), now.In(s.loc)).Span
	if span.IsZero() || span.From.After(now) {
		return Span{}, false
	}
	for _, r := range res {
		if r.Kind == KindMessage && (span.Contains(r.Time) || r.Message != nil && !asks(r.Message.Text) && s.tells(r.Message, span)) {
			return Span{}, false
		}
	}
	return span, true
}

// Searchable reports whether text gives a search anything to look for: a word not too
// common to search for, a time or an event ("what did I do?" has none of them; "what did
// I do last week?" and "what did I do at the lake?" have).
func (s *Searcher) Searchable(text string, now time.Time) bool {
	if now.IsZero() {
		now = s.now()
	}
	tq := ParseTime(tellingWords(text, s.stop, maxWords), now.In(s.loc))
	return !tq.Span.IsZero() || len(tq.Anchors) > 0 || len(Terms(endUp.ReplaceAllString(tq.Text, " "), s.stop)) > 0
}

// asks reports whether text is a question ("what did we do yesterday?"): it names a time
// without telling anything of it.
func asks(text string) bool { return strings.HasSuffix(strings.TrimSpace(text), "?") }

// later reports whether t is after q.Until, when set: a message said then is not searched.
func (q Query) later(t time.Time) bool { return !q.Until.IsZero() && t.After(q.Until) }

// fillCover adds to cands, for each of h's words (see cover) that none of them holds, up
// to coverFill of the best messages that hold it, searched for by it alone: where one of
// the things asked for matches more of a question's words than another ("which came
// first, the broken printer or the coffee machine fix?"), the candidates may all tell of
// the first. They come in with the lowest score among cands, for cover to place.
func (s *Searcher) fillCover(ctx context.Context, q Query, cands []*candidate, h *holder) ([]*candidate, error) {
	if len(h.words) < 2 || len(cands) == 0 {
		return cands, nil
	}
	lowest := cands[0].score
	for _, c := range cands {
		lowest = min(lowest, c.score)
	}
	seen := keyed(cands)
	for i, w := range h.words {
		if slices.ContainsFunc(cands, func(c *candidate) bool { return h.holds(c, i) }) {
			continue
		}
		found, err := s.keyword(ctx, q, []string{w}, nil, Span{}) // Pool of them: coverFill is a few
		if err != nil {
			return nil, err
		}
		added := 0
		for _, c := range found {
			if key := messageKey(c.msg.Chat.ID, c.msg.ID); added < coverFill && seen[key] == nil && h.holds(c, i) {
				c.score = min(c.score, lowest)
				cands, seen[key] = append(cands, c), c
				added++
			}
		}
	}
	return cands, nil
}

// coverFill is how many messages holding a thing no candidate holds fillCover adds.
const coverFill = 10

// anchorPool is how many messages matching an anchor's event are weighed to find the ones
// that tell of it: those scoring at least anchorStrong of the best.
const (
	anchorPool   = 10
	anchorStrong = 0.8
)

// anchorSpan is the time anchors bound: before (or after) the message that best tells of
// each anchor's event, by its words (BM25 in the message's own text, weighed by length as
// results are), searched in the query's own scope: its chat, and its sender's words when
// it has one. An event no message tells of bounds nothing. A message that also holds
// every word asked besides the event's (two or more) is a likely answer, not the event
// ("the rain jacket bought before the trip": "bought a rain jacket for the trip" tells
// when the jacket was bought, not when the trip was); the event's time is read from the
// others when some tell of it. One that holds only some of them may well be the event
// ("how long did Evan and his partner date before getting married?": "my partner and I
// got married").
func (s *Searcher) anchorSpan(ctx context.Context, q Query, asked []string, anchors []Anchor) (Span, []mynah.Message, error) {
	var span Span
	var events []mynah.Message
	for _, a := range anchors {
		terms := Terms(a.Event, s.stop)
		hits, err := s.searchHistory(ctx, mynah.SearchQuery{Agent: q.Agent, Chat: q.Chat, Sender: q.Sender, Terms: terms, Limit: anchorPool, AsOf: q.Until})
		if err != nil {
			return Span{}, nil, fmt.Errorf("memory: searching for %q: %w", a.Event, err)
		}
		others := newHolder(slices.DeleteFunc(slices.Clone(asked), func(w string) bool { return slices.Contains(terms, w) }))
		skip := make([]bool, len(hits)) // the hits that do not date the event
		for i, h := range hits {
			skip[i] = len(others.words) >= 2 && others.holdsAll(&candidate{msg: h.Message})
		}
		if !slices.Contains(skip, false) {
			clear(skip) // only answers tell of the event: they tell its time too
		}
		// The agent's own words about an event ("enjoy your Lisbon trip!") restate it,
		// often later than it was told: the people's tell it when there are some.
		people := false
		for i, h := range hits {
			people = people || !skip[i] && !byAgent(&h.Message)
		}
		if people {
			for i, h := range hits {
				skip[i] = skip[i] || byAgent(&h.Message)
			}
		}
		scores := make([]float64, len(hits))
		best := 0.0
		for i, h := range hits {
			if !skip[i] {
				scores[i] = h.Score * s.lengthWeight(bodyWords(&h.Message))
				best = max(best, scores[i])
			}
		}
		var at *mynah.Message
		for i, h := range hits {
			if skip[i] || scores[i] < anchorStrong*best {
				continue
			}
			if t := h.Message.Time; at == nil || a.After && t.Before(at.Time) || !a.After && t.After(at.Time) {
				at = &hits[i].Message
			}
		}
		if at != nil {
			span = intersect(span, a.Span(at.Time))
			events = append(events, *at)
		}
	}
	return span, events, nil
}

// byAgent reports whether m was said by the agent (or another bot), not a person.
func byAgent(m *mynah.Message) bool { return m.Outgoing || m.Sender.IsBot }

// aroundEvent returns, for a query that asks only what was said before (or after) an
// event ("what did I do before the trip?"), the message that tells of the event and up
// to k-1 of its chat's messages said just before (after) it, closest first: no word of
// the query is in them, as none of a day's is in "what did we talk about yesterday?".
// maybe, when not "", is a word of the query that is a name only if someone of those
// messages is called so ("what did bob do before the trip?"); found is false when no one
// is: the query asks for something else ("what did we pack before the trip?").
func (s *Searcher) aroundEvent(ctx context.Context, q Query, event mynah.Message, after bool, names []string, maybe string, k int) (out []Result, found bool, err error) {
	n := k - 1 + len(q.Exclude)
	if len(names) > 0 || maybe != "" || q.Sender != 0 {
		n *= eventNamed
	}
	before, later := n, 0
	if after {
		before, later = 0, n
	}
	msgs, err := s.store.Around(ctx, q.Agent, event.Chat.ID, event.ID, before, later)
	if err != nil {
		return nil, false, fmt.Errorf("memory: reading around %q: %w", event.Text, err)
	}
	if !after {
		slices.Reverse(msgs)
	}
	msgs = slices.DeleteFunc(msgs, func(m mynah.Message) bool {
		return !q.Until.IsZero() && m.Time.After(q.Until) || (q.Chat == 0 || m.Chat.ID == q.Chat) && slices.Contains(q.Exclude, m.ID) ||
			q.Sender != 0 && m.Sender.ID != q.Sender // one person's words: never another's, of whatever chat
	})
	if maybe != "" { // a name of someone among the messages searched, or no name
		if !slices.ContainsFunc(msgs, func(m mynah.Message) bool { return strings.ToLower(m.Sender.FirstName) == maybe }) {
			return nil, false, nil
		}
		names = append(names, maybe)
	}
	if theirs := slices.DeleteFunc(slices.Clone(msgs), func(m mynah.Message) bool {
		return m.ID != event.ID && !slices.Contains(names, strings.ToLower(m.Sender.FirstName))
	}); len(names) > 0 && len(theirs) > 1 {
		msgs = theirs // what those named said, when they said anything then
	}
	out = make([]Result, 0, min(k, len(msgs)))
	for i, m := range msgs[:min(k, len(msgs))] {
		out = append(out, messageResult(m, float64(k-i)/float64(k), nil))
	}
	return out, true, nil
}

// doWords are the talk words (see talkWord) that tell of what was done too: "what did
// Jean go through before meeting Maria?" asks for what she went through.
var doWords = map[string]bool{"go": true, "goes": true, "going": true, "went": true, "up": true, "new": true}

// eventNamed is how many times more messages than it returns aroundEvent reads around
// an event when the query names whose it wants: it keeps theirs.
const eventNamed = 4

// eventOnly reports whether every word of text asked (asked) is a word of anchors' one
// event, asks what was said or done ("what happened after the move?"), or is a name
// (capitalised in text past its first word: "what did Alice do before the trip?"): the
// query asks for nothing but the time before or after the event, of those named. It
// returns the names, lower-cased, and maybe, one word written in lower case that is
// none of those and may be a name ("what did bob do before the trip?"; see aroundEvent).
func (s *Searcher) eventOnly(text string, asked []string, anchors []Anchor) (names []string, maybe string, ok bool) {
	if len(anchors) != 1 {
		return nil, "", false
	}
	event := Terms(anchors[0].Event, s.stop)
	capital := map[string]bool{}
	for i, w := range splitWords(text) {
		if r, _ := utf8.DecodeRuneInString(w); i > 0 && unicode.IsUpper(r) {
			capital[strings.ToLower(w)] = true
		}
	}
	for _, w := range asked {
		switch {
		case slices.Contains(event, w) || talkWord(w) && !doWords[w]:
		case capital[w]:
			names = append(names, w)
		case maybe == "" && isName(w):
			maybe = w
		default:
			return nil, "", false
		}
	}
	return names, maybe, true
}

// isName reports whether w could be someone's first name: letters only.
func isName(w string) bool {
	return w != "" && !strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
}

// monthTerms are the words by which the history index finds every message said in span:
// the index entry of a message holds the month and year it was said in (UTC), so "may
// 2024" finds the messages of May 2024, among which the searcher then prefers those of
// span. A question that names only a time ("what happened last week?") has no other words
// that its messages share. None for a span open on a side or longer than a year, or when
// the index entry's context is not searched (ContextWeight 0).
func (s *Searcher) monthTerms(span Span) []string {
	if span.From.IsZero() || span.To.IsZero() || s.opts.ContextWeight <= 0 || span.To.Sub(span.From) > 366*24*time.Hour {
		return nil
	}
	var out []string
	from, to := span.From.UTC(), span.To.UTC()
	for m := time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC); m.Before(to); m = m.AddDate(0, 1, 0) {
		for _, w := range []string{strings.ToLower(m.Month().String()), strconv.Itoa(m.Year())} {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// window is the time of which a query naming span ranks more keyword candidates: the
// span and the day after it (see Options.SpanPool); zero when it ranks no more.
func (s *Searcher) window(span Span) Span {
	if span.IsZero() || s.opts.SpanPool <= s.opts.Pool {
		return Span{}
	}
	if !span.To.IsZero() {
		span.To = span.To.AddDate(0, 0, 1)
	}
	return span
}

// searchHistory is the store's SearchHistory. As of a time (sq.AsOf), a chat's search
// first runs as of now, and only when one of its results was said after that time again
// as of it: the store can filter by time only by reading every match of the query with
// its message (see mynah.SearchQuery.AsOf), where a search as of now ranks the rare words'
// matches in the index alone, so that asking as of a time after the last message (as a
// benchmark asks, or "mynah memory search --at" the day of the question) costs and finds
// what asking now does. One person's words are always searched as of the time: the store
// reads each match's message to know its sender anyway.
func (s *Searcher) searchHistory(ctx context.Context, sq mynah.SearchQuery) ([]mynah.SearchHit, error) {
	if sq.AsOf.IsZero() || sq.Sender != 0 {
		return s.store.SearchHistory(ctx, sq)
	}
	now := sq
	now.AsOf = time.Time{}
	hits, err := s.store.SearchHistory(ctx, now)
	if err != nil || !slices.ContainsFunc(hits, func(h mynah.SearchHit) bool { return sq.Later(h.Message.Time) }) {
		return hits, err
	}
	return s.store.SearchHistory(ctx, sq)
}

// keyword fetches the best Pool keyword candidates of terms, weighed by boost where they
// meet it (see mynah.SearchQuery.Boost), and with a window the best SpanPool-Pool more said
// in it, and fuses them (with no vectors yet) into normalised scores.
func (s *Searcher) keyword(ctx context.Context, q Query, terms, boost []string, window Span) ([]*candidate, error) {
	sq := mynah.SearchQuery{Agent: q.Agent, Chat: q.Chat, Sender: q.Sender, Terms: terms, Boost: boost, Typos: q.Typos,
		ContextWeight: s.opts.ContextWeight, PreviousWeight: s.opts.PreviousWeight, Limit: s.opts.Pool, AsOf: q.Until}
	if !window.IsZero() {
		sq.WithinLimit, sq.Since, sq.Until = s.opts.SpanPool-s.opts.Pool, window.From, window.To
	}
	hits, err := s.searchHistory(ctx, sq)
	if err != nil {
		return nil, fmt.Errorf("memory: searching history: %w", err)
	}
	byKey := make(map[string]*candidate, len(hits))
	kw := make([]Scored, len(hits))
	for i, h := range hits {
		key := messageKey(h.Message.Chat.ID, h.Message.ID)
		byKey[key] = &candidate{msg: h.Message}
		kw[i] = Scored{Key: key, Score: h.Score}
	}
	fused := Fuse(kw, nil, s.opts.Weights)
	out := make([]*candidate, len(fused))
	for i, f := range fused {
		out[i] = byKey[f.Key]
		out[i].score = f.Score
	}
	return out, nil
}

// Snippet returns text, or when longer than limit runes, the window of text around the
// first of terms it contains (or of a term's stem: «машину» for the term «машина»),
// marked with ellipses where cut.
func Snippet(text string, terms []string, limit int) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= limit {
		return text
	}
	lower := strings.ToLower(text)
	at := -1
	for _, t := range terms {
		for _, form := range append([]string{t}, stem.Query(t)...) {
			if i := strings.Index(lower, form); i >= 0 && (at < 0 || i < at) {
				at = i
			}
		}
	}
	runes := []rune(text)
	start := 0
	if at > 0 {
		start = max(utf8.RuneCountInString(lower[:at])-limit/4, 0)
	}
	end := min(start+limit, len(runes))
	start = max(end-limit, 0)
	out := string(runes[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(runes) {
		out += "…"
	}
	return out
}
