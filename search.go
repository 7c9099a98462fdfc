package mynah

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// SearchQuery asks a backend for keyword candidates from an agent's history.
type SearchQuery struct {
	Agent  string
	Chat   ChatID // 0: every chat of the agent
	Sender UserID // 0: anyone
	// Terms are OR-ed words, already lower-cased and stripped of stop words by the caller;
	// the backend matches each as a word (with its own stemming) and escapes its syntax.
	Terms []string
	// Boost are words (as Terms) that weigh where they meet one of Terms but find nothing
	// by themselves: the month and year of a time a question names ("what did Ann paint
	// last week?"), matched in the context column, raise the messages of that time among
	// those about painting without bringing in every other message of the month. When no
	// word of Terms matches anything, Boost is searched as Terms are.
	Boost []string
	// ContextWeight weighs a match in who said a message and when (the sender's name,
	// month and year) against a match in what was said (weight 1); 0 ignores it.
	ContextWeight float64
	// PreviousWeight weighs a match in what a message answers: the conversation just
	// before it, as PreviousContext writes it (nothing for a message of 100 words or
	// more); 0 ignores it.
	PreviousWeight float64
	Limit          int
	// WithinLimit > 0 asks for the Limit best messages and up to WithinLimit more said
	// between Since and Until (a zero bound is open; Until exclusive): what a question
	// naming a time needs, whose answer may match only a name and sit behind many better
	// matches said at other times: those of the WithinLimit next best said then. In a
	// chat where some of Terms are too common for all their matches to be ranked, and
	// none of the next best was said then, they are the best of that time's messages, its
	// words counted in that time (a word too common in a busy chat to search, as a month's
	// name is in that month, may be rare in a week of it). Hits come best first; every
	// hit after the first Limit was said in that time.
	WithinLimit  int
	Since, Until time.Time
	// AsOf, when set, searches as of then: a message said after it is not searched, as
	// one asked then could not have seen it. In a chat, the scope is the chat's ids said by
	// then (ids grow with time), so the Limit best are those of then, however many later
	// messages match better; a later message found anyway (where ids do not grow with time)
	// is left out once read.
	AsOf time.Time
	// Typos, for a search someone typed: when no word of it matches anything in the scope,
	// its longest words stand for the words one edit from them with the most matches there
	// ("passprot": passport; see stem.Edits and stem.Typos). It costs a few milliseconds
	// per word, so the searches made for every message (recall) go without it.
	Typos bool
}

// Later reports whether t is after q.AsOf, when set: a message said then is not searched.
func (q SearchQuery) Later(t time.Time) bool { return !q.AsOf.IsZero() && t.After(q.AsOf) }

// Within reports whether t is between q.Since and q.Until.
func (q SearchQuery) Within(t time.Time) bool {
	return (q.Since.IsZero() || !t.Before(q.Since)) && (q.Until.IsZero() || t.Before(q.Until))
}

// KeepWithin returns hits (best first) with those after the first q.Limit that were not
// said between q.Since and q.Until left out (see WithinLimit).
func (q SearchQuery) KeepWithin(hits []SearchHit) []SearchHit {
	if len(hits) <= q.Limit {
		return hits
	}
	return append(hits[:q.Limit], slices.DeleteFunc(hits[q.Limit:], func(h SearchHit) bool {
		return !q.Within(h.Message.Time)
	})...)
}

// IDsBetween returns the range of message ids first..last of a chat, whose ids run from
// lowest to highest, that holds the messages said between since and until (zero: open;
// until exclusive) and no others, found by binary search over the ids: a chat's ids grow
// with time. at returns the first message at or after an id, its id and time (found false
// past the end). ok is false when no message of the chat was said then.
func IDsBetween(lowest, highest int64, since, until time.Time, at func(id int64) (int64, time.Time, bool, error)) (first, last int64, ok bool, err error) {
	// firstFrom is the first id said at or after t, or highest+1 when none.
	firstFrom := func(t time.Time) (int64, error) {
		lo, hi := lowest, highest+1
		for lo < hi {
			mid := lo + (hi-lo)/2
			id, said, found, err := at(mid)
			switch {
			case err != nil:
				return 0, err
			case found && said.Before(t):
				lo = id + 1
			default:
				hi = mid
			}
		}
		return lo, nil
	}
	first, last = lowest, highest
	if !since.IsZero() {
		if first, err = firstFrom(since); err != nil {
			return 0, 0, false, err
		}
	}
	if !until.IsZero() {
		next, err := firstFrom(until)
		if err != nil {
			return 0, 0, false, err
		}
		last = next - 1
	}
	return first, last, first <= last, nil
}

// SearchHit is one keyword candidate: a stored message and its BM25 score.
type SearchHit struct {
	Message Message
	// Score is BM25 as the backend computes it, > 0, higher is better. Scores compare
	// within one answer only; callers normalise them before mixing them with others.
	Score float64
}

// HistorySearch is the history index: keyword search over every stored message.
type HistorySearch interface {
	// SearchHistory returns up to q.Limit messages matching any of q.Terms, best first.
	// Its cost grows with the matches in the scope (agent, or agent and chat), not with
	// the size of the database. No terms match nothing.
	SearchHistory(ctx context.Context, q SearchQuery) ([]SearchHit, error)
	// Around returns the message id of agent's chat with up to before messages preceding it
	// and up to after following it, in chronological order; without that message, the
	// neighbours of where it would be.
	Around(ctx context.Context, agent string, chat ChatID, id MessageID, before, after int) ([]Message, error)
}

// A message is read with the conversation before it up to ContextWords words in all: a
// message of that length or longer stands on its own. Messages more than ContextGap before
// it belong to another conversation; the text it replies to is its context whenever it
// was written.
//
// A message of LongWords words or more (an assistant's answer at length, a pasted text)
// is a conversation of its own: the message after it is not read with it, nor with what
// came before it. Its last words are mostly about itself, and lent to the short turn
// after it they made that turn match what the long one says, crowding out the turns that
// say it (7 December, TestAssistantHaystack: +1 to +2 questions of 43 in three of four
// shapes; LoCoMo's halves, whose turns are shorter, unchanged).
const (
	ContextWords = 100
	ContextGap   = time.Hour
	LongWords    = 150
)

// PreviousMessage is a message before the one being indexed (see PreviousContext).
type PreviousMessage struct {
	Time time.Time
	Text string
}

// PreviousFromJSON reads the messages before one as the stores' index queries give them:
// a JSON array of [time in Unix milliseconds, text], nearest first; "" or "null" is none.
func PreviousFromJSON(s string) ([]PreviousMessage, error) {
	var rows [][2]any
	if s == "" {
		return nil, nil
	}
	if err := json.Unmarshal([]byte(s), &rows); err != nil {
		return nil, err
	}
	out := make([]PreviousMessage, 0, len(rows))
	for _, r := range rows {
		ms, _ := r[0].(float64)
		text, _ := r[1].(string)
		out = append(out, PreviousMessage{Time: time.UnixMilli(int64(ms)), Text: text})
	}
	return out, nil
}

// PreviousContext is what the history index holds as what a message answers (its
// previous column, weighed by SearchQuery.PreviousWeight): the last words of reply (the
// text it replies to) and of before (the messages before it in its chat, nearest first;
// those more than ContextGap before or after at, when it was sent, are not its
// conversation: ids follow times in a chat, but not always in an import; nor is one of
// LongWords words or more, nor those before it), so that body and its context hold
// ContextWords words at most. A message that long has none: it says what it is about by
// itself, and a long message's words would only add unrelated matches, and length, to
// the short one after it. Words are counted as the index's tokenizer splits them
// (letters, digits and combining marks). Every store writes the column with it, so that
// every store ranks alike.
func PreviousContext(body string, at time.Time, reply string, before []PreviousMessage) string {
	budget := ContextWords - countWords(body)
	if budget <= 0 {
		return ""
	}
	parts := make([]string, 0, 1+len(before))
	if strings.TrimSpace(reply) != "" {
		parts = append(parts, reply)
	}
	for _, p := range before {
		if d := at.Sub(p.Time); d > ContextGap || d < -ContextGap {
			break // an earlier conversation, or a later one stored first (an import's ids)
		}
		if countWords(p.Text) >= LongWords {
			break // a conversation of its own
		}
		if p.Text != reply {
			parts = append(parts, p.Text)
		}
	}
	var taken []string
	for _, p := range parts {
		if budget <= 0 {
			break
		}
		tail, n := lastWords(p, budget)
		budget -= n
		if tail != "" {
			taken = append(taken, tail)
		}
	}
	// oldest first, as the conversation went
	for i, j := 0, len(taken)-1; i < j; i, j = i+1, j-1 {
		taken[i], taken[j] = taken[j], taken[i]
	}
	return strings.Join(taken, " ")
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// countWords counts the words of text as the index's tokenizer splits them.
func countWords(text string) int {
	n, in := 0, false
	for _, r := range text {
		w := isWordRune(r)
		if w && !in {
			n++
		}
		in = w
	}
	return n
}

// lastWords returns the end of text holding at most n of its words, and how many it holds.
func lastWords(text string, n int) (string, int) {
	count, in := 0, false
	for i := len(text); i > 0; {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		w := isWordRune(r)
		if !w && in && count == n {
			return text[i:], count
		}
		if w && !in {
			count++
		}
		in = w
		i -= size
	}
	return text, count
}
