package memory

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mynah-ai/mynah"
)

// Span is a stretch of time, [From, To); a zero From or To leaves that side open.
type Span struct {
	From, To time.Time
}

// Contains reports whether t falls in the span.
func (s Span) Contains(t time.Time) bool {
	return (s.From.IsZero() || !t.Before(s.From)) && (s.To.IsZero() || t.Before(s.To))
}

// Overlaps reports whether the spans share a moment.
func (s Span) Overlaps(o Span) bool {
	return (s.To.IsZero() || o.From.Before(s.To)) && (o.To.IsZero() || s.From.Before(o.To))
}

// IsZero reports whether the span is open on both sides: all time.
func (s Span) IsZero() bool { return s.From.IsZero() && s.To.IsZero() }

// Describe says the span in words, in loc, for a person or a model: "on Wed 2 Dec 2026",
// "between Mon 23 Nov and Sun 29 Nov 2026", "before Sun 1 Jan 2023", "since Fri 1 Mar
// 2024"; with the hours where the span does not start or end at midnight.
func (s Span) Describe(loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	midnight := func(t time.Time) bool {
		return t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0
	}
	from, to := s.From.In(loc), s.To.In(loc)
	day := func(t time.Time, year bool) string {
		if year {
			return t.Format("Mon 2 Jan 2006")
		}
		return t.Format("Mon 2 Jan")
	}
	switch {
	case s.IsZero():
		return "at any time"
	case s.From.IsZero():
		if midnight(to) {
			return "before " + day(to, true)
		}
		return "before " + to.Format("Mon 2 Jan 2006 15:04")
	case s.To.IsZero():
		if midnight(from) {
			return "since " + day(from, true)
		}
		return "since " + from.Format("Mon 2 Jan 2006 15:04")
	case !midnight(from) || !midnight(to):
		return "between " + from.Format("Mon 2 Jan 2006 15:04") + " and " + to.Format("Mon 2 Jan 2006 15:04")
	}
	last := to.AddDate(0, 0, -1) // the span's last day: To is the midnight after it
	if !last.After(from) {
		return "on " + day(from, true)
	}
	return "between " + day(from, from.Year() != last.Year()) + " and " + day(last, true)
}

// TimeQuery is what a query says about time, read by ParseTime.
type TimeQuery struct {
	// Span is the time the query names ("last week", "in March", "before 2023"), in the
	// location of the moment it was asked; zero when it names none.
	Span Span
	// Spans are the times it names one by one, in order, Span their hull: "due early
	// November, so the nursery has to be done by autumn" names early November and the
	// time until autumn ends, whose hull is open.
	Spans []Span
	// Recent is true when the query asks for the latest state of something ("current",
	// "now", "latest", "recently", "still"): newer messages are likelier answers.
	Recent bool
	// When is true when the query asks for a time ("when did…", "what year…", "how many
	// days…"): a message that dates what it tells ("last Sunday", "in 2019") is a likelier
	// answer than one that does not.
	When bool
	// Anchors are the events the query places its time against ("before the trip",
	// "after we moved to Berlin"): the searcher finds when each was told of and prefers
	// what was said before (after) it (Options.AnchorBoost). Their words stay in Text:
	// the event's own messages often hold the answer ("how did she feel after the
	// accident?").
	Anchors []Anchor
	// Text is the query without the words that named Span: "what did we cook last week"
	// becomes "what did we cook", so that "last" and "week" are not searched for, nor
	// "March" and "2023" of "in March 2023": messages said then are preferred by their
	// time, and a month or a year is in the index entry of every message said in it, so
	// searching for one as a word ranks every message of that month in the database (the
	// searcher adds the months of a bounded Span itself, as such: see monthTerms).
	Text string
}

// ParseTime reads the time expressions of a query asked at now, in English, Ukrainian or
// Russian (whose words it reads as their English: see cyrillicTime): a day
// ("yesterday", "on Monday", "8 May", "2023-05-08"), a week, weekend, month, season or
// year ("last week", "two weekends ago", "the week before last", "this month", "in
// March", "March 2023", "last summer", "in 2022"), a part of one ("early March", "the end
// of last month", "the first weekend of August", "the weekend before 4 October"), a
// distance back ("3 weeks ago", "the past 10 days"), each optionally bounded ("before", "after", "since", "until", "by", "as
// of", "between … and …"). Calendar units are now's, in now's location: the chat's time
// zone when the caller sets it so. A month or date without a year is the latest one not
// after now, or the next one when the text speaks of what is to come ("what will we do
// on 8 May?", "I'll be in Lisbon on 28 March"); "tomorrow", "next week" and "in 3 weeks"
// are ahead too. What it does not recognise stays in Text.
func ParseTime(query string, now time.Time) TimeQuery {
	toks := timeTokens(query)
	return parseTime(query, toks, now, speaksAhead(toks), false)
}

// TellTime is ParseTime for what a message tells rather than for what a question asks:
// a month or date it names without a year, and without words that say which, is the
// one nearest to when it was said, before or after: "13 May is our twentieth", said on
// 8 May, is five days ahead; "I ran my first 10k on 23 April", said on 25 April, two
// days back. (A question asks of the past unless it says otherwise.)
func TellTime(text string, at time.Time) TimeQuery {
	toks := timeTokens(text)
	return parseTime(text, toks, at, speaksAhead(toks), true)
}

// off is how far span lies from t: 0 when it holds t.
func off(span Span, t time.Time) time.Duration {
	switch {
	case t.Before(span.From):
		return span.From.Sub(t)
	case !t.Before(span.To):
		return t.Sub(span.To)
	}
	return 0
}

// parseTime is ParseTime of query split into toks, a month or date without a year read
// ahead of now or not; or, nearest, each time it names read as the one nearest to now,
// ahead or back (TellTime: "no hot water since Christmas Eve and the landlord is looking
// into it", said on 4 January, is last Christmas Eve, though the text speaks ahead; "back
// on the 1st", said on 22 July, is 1 August), or the one in the year the text names.
func parseTime(query string, toks []timeToken, now time.Time, ahead, nearest bool) TimeQuery {
	tq := TimeQuery{Text: query}
	var cut [][2]int // bytes of query to drop
	var spans []Span
	named := 0 // the one year the text names, if it names one: "trips for 2024: Portland at Easter, the Peaks in September"
	for _, t := range toks {
		if y, n := year(t.w); n > 0 && (named == 0 || named == y) {
			named = y
		} else if n > 0 {
			named = -1
		}
	}
	// read reads a time with a date without a year ahead of now or not; nearest, the one
	// in the year named, or as the words around it say (tense), or the nearer.
	tense := 0
	read := func(at func(ahead bool) (Span, int)) (Span, int) {
		if nearest && named <= 0 && tense != 0 {
			return at(tense > 0)
		}
		sp, n := at(ahead)
		if !nearest || n == 0 || sp.From.IsZero() || sp.To.IsZero() {
			return sp, n
		}
		other, m := at(!ahead)
		switch {
		case m != n:
		case named > 0 && sp.From.Year() != named && other.From.Year() == named:
			return other, m
		case named > 0 && sp.From.Year() == named:
		case off(other, now) < off(sp, now):
			return other, m
		}
		return sp, n
	}
	for i := 0; i < len(toks); {
		bound, bi := "", i
		if b := boundWord(toks, i); b != "" {
			bound, bi = b, i+len(strings.Fields(b))
		}
		if nearest {
			tense = tenseAt(query, toks, i)
			if tense == 0 && bound == "by" {
				tense = 1 // "painted by autumn": a time things are to be done by
			}
		}
		// days of one month: "7 to 11 August", "between 7 and 11 August", "7–11 August",
		// «з 7 по 11 серпня»
		if sp, n := read(func(ahead bool) (Span, int) { return dayRunAt(query, toks, bi, bound, now, ahead) }); n > 0 {
			spans = append(spans, sp)
			cut = append(cut, [2]int{toks[i].start, toks[bi+n-1].end})
			i = bi + n
			continue
		}
		// "between X and Y", "from X to Y"
		if bound == "between" || bound == "from" {
			if a, n := read(func(ahead bool) (Span, int) { return spanAt(toks, bi, now, ahead) }); n > 0 && bi+n < len(toks) && rangeTo(toks[bi+n], bound) {
				b, m := read(func(ahead bool) (Span, int) { return spanAt(toks, bi+n+1, now, ahead) })
				if m == 0 && bi+n+1 < len(toks) && toks[bi+n+1].w == "may" && isMonth(a) {
					// "from March to May": after a month, "may" is the month, not the verb
					b, m = Span{From: time.Date(a.From.Year(), time.May, 1, 0, 0, 0, 0, now.Location())}, 1
					if b.From.Before(a.From) {
						b.From = b.From.AddDate(1, 0, 0)
					}
					b.To = b.From.AddDate(0, 1, 0)
				}
				if m > 0 && !b.To.IsZero() && !a.From.IsZero() {
					a = yearOf(a, b, toks[bi:bi+n])
					spans = append(spans, Span{From: a.From, To: b.To})
					cut = append(cut, [2]int{toks[i].start, toks[bi+n+m].end})
					i = bi + n + 1 + m
					continue
				}
			}
		}
		sp, n := read(func(ahead bool) (Span, int) { return spanAt(toks, bi, now, ahead) })
		if end := bi + max(n, 1); end < len(toks) && isWeekdayToken(toks[end-1].w) {
			// a weekday before a date is the date's: "on Friday the 14th", "Sat 3 May",
			// "Sunday, May 12" (of the year whose 12 May is a Sunday, when none is named)
			if d := dayAt(toks, end); isDayNumber(toks[d].w) || months[toks[d].w] != 0 {
				if date, m := read(func(ahead bool) (Span, int) { return spanAt(toks, d, now, ahead) }); m > 0 && date.To.Equal(date.From.AddDate(0, 0, 1)) {
					sp, n = weekdayYear(date, weekdays[toks[end-1].w], toks[d:d+m], ahead), d-bi+m
				}
			}
		}
		if n == 0 {
			if a, m := anchorAt(query, toks, bound, bi, now); m > 0 {
				tq.Anchors = append(tq.Anchors, a)
				i = bi + m
				continue
			}
			i++
			continue
		}
		start := toks[i].start
		if bound == "" {
			// a preposition before the expression goes with it: "in March", "on Monday",
			// and with "the" between: "during the summer"
			for j := i - 1; j >= 0 && j >= i-2 && (isTimePreposition(toks[j].w) || j == i-1 && j > 0 && toks[j].w == "the" && isTimePreposition(toks[j-1].w)); j-- {
				start = toks[j].start
			}
			// "earlier this week": its days up to today; "later this month": from today
			if day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location()); i > 0 && sp.Contains(day) {
				switch toks[i-1].w {
				case "earlier":
					sp.To, start = day.AddDate(0, 0, 1), toks[i-1].start
				case "later":
					sp.From, start = day, toks[i-1].start
				}
			}
		}
		switch bound {
		case "before":
			sp = Span{To: sp.From}
		case "until", "till", "by", "as of", "up to":
			sp = Span{To: sp.To}
		case "after":
			sp = Span{From: sp.To}
		case "since", "from":
			sp = Span{From: sp.From}
		}
		if bi+n < len(toks) && dayPart(toks[bi+n].w) && sp.To.Equal(sp.From.AddDate(0, 0, 1)) {
			n++ // "yesterday evening", «вчора ввечері»: the day's
		}
		spans = append(spans, sp)
		cut = append(cut, [2]int{start, toks[bi+n-1].end})
		i = bi + n
	}
	if len(spans) > 0 {
		tq.Span, tq.Spans = hull(spans), spans
		var b strings.Builder
		last := 0
		for _, c := range cut {
			if c[0] < last {
				continue
			}
			b.WriteString(query[last:c[0]])
			// a season's or a holiday's name stays: what is told of it often names it
			// ("our summer trip", "the Christmas market"), as it does not a week or a month
			for _, t := range toks {
				if namesTime(t.w) && t.start >= c[0] && t.end <= c[1] {
					b.WriteString(" " + query[t.start:t.end] + " ")
				}
			}
			last = c[1]
		}
		b.WriteString(query[last:])
		tq.Text = strings.Join(strings.Fields(b.String()), " ")
	}
	inCut := func(at int) bool {
		for _, c := range cut {
			if at >= c[0] && at < c[1] {
				return true
			}
		}
		return false
	}
	for i, t := range toks {
		switch t.w {
		case "current", "currently", "now", "latest", "recently", "lately", "still", "nowadays":
			tq.Recent = true
		case "when", "dates":
			tq.When = true
		case "what", "which":
			if i+1 < len(toks) && (isUnit(toks[i+1].w) || toks[i+1].w == "date" || toks[i+1].w == "time" || toks[i+1].w == "weekday") {
				tq.When = true
			}
		case "how":
			if i+2 < len(toks) && (toks[i+1].w == "long" && toks[i+2].w == "ago" ||
				(toks[i+1].w == "many" || toks[i+1].w == "long") && isUnit(toks[i+2].w)) {
				tq.When = true
			}
		case "howmany": // «скільки днів»
			if i+1 < len(toks) && isUnit(toks[i+1].w) {
				tq.When = true
			}
		}
		if t.w == "most" && i+1 < len(toks) && toks[i+1].w == "recent" {
			tq.Recent = true
		}
		if t.w == "these" && i+1 < len(toks) && toks[i+1].w == "days" {
			tq.Recent = true
		}
		if t.w == "last" && i+1 < len(toks) && !inCut(t.start) && !mayStartTime(toks[i+1].w) {
			// "last" that names no time asks for the latest: "the last time we
			// spoke", "my last haircut"
			tq.Recent = true
		}
	}
	return tq
}

// Anchor is an event a query places its time against: "before the trip" is the time
// before the trip was told of.
type Anchor struct {
	Event string // the words naming the event: "the trip to Japan"
	After bool   // after (since) the event; false: before (until) it
}

// Span is the time before or after the event, told of at t. The conversation that tells
// of it (mynah.ContextGap either side of t) belongs to both sides: what is said around an
// event's mention is often about the time just before or after it.
func (a Anchor) Span(t time.Time) Span {
	if a.After {
		return Span{From: t.Add(-mynah.ContextGap)}
	}
	return Span{To: t.Add(mynah.ContextGap)}
}

// maxEventWords bounds the words of an anchor's event: "the trip to Japan with Ann".
const maxEventWords = 6

// anchorAt reads the event a bounding word at toks[bi-1] places the query against: the
// words from toks[bi] to the end of the clause (punctuation, a conjunction, a verb that
// starts the next question, a time: "after the move in May") and at most maxEventWords,
// and how many tokens it takes (0: no anchor, as for a bound that is not temporal: "by
// bus", "from Ann").
func anchorAt(query string, toks []timeToken, bound string, bi int, now time.Time) (Anchor, int) {
	var after bool
	switch bound {
	case "before", "until", "till":
	case "after", "since":
		after = true
	default:
		return Anchor{}, 0
	}
	n := 0
	for j := bi; j < len(toks) && n < maxEventWords; j++ {
		if j > bi && strings.ContainsAny(query[toks[j-1].end:toks[j].start], ",.;:!?()") {
			break
		}
		if eventStop(toks[j].w) || boundWord(toks, j) != "" {
			break
		}
		if _, m := spanAt(toks, j, now, false); m > 0 {
			if n > 0 && isTimePreposition(toks[j-1].w) {
				n-- // "on" of "fixed on 7 July"
			}
			break
		}
		n++
	}
	if n == 0 {
		return Anchor{}, 0
	}
	event := query[toks[bi].start:toks[bi+n-1].end]
	if len(Terms(event, stopSet())) == 0 {
		return Anchor{}, 0 // "after that", "before it": no event to find
	}
	return Anchor{Event: event, After: after}, n
}

// eventStop reports whether w ends an anchor's event: a conjunction or a word that starts
// another clause ("before the trip and what did…", "after the move did she…").
func eventStop(w string) bool {
	switch w {
	case "and", "or", "but", "so", "because", "when", "while", "then", "did", "do", "does",
		"was", "were", "is", "are", "has", "have", "had", "what", "where", "who", "how", "why":
		return true
	}
	return false
}

// intersect is the span that both a and b cover; open sides take the other's.
func intersect(a, b Span) Span {
	if a.From.IsZero() || !b.From.IsZero() && b.From.After(a.From) {
		a.From = b.From
	}
	if a.To.IsZero() || !b.To.IsZero() && b.To.Before(a.To) {
		a.To = b.To
	}
	return a
}

// hull is the least span that covers spans.
func hull(spans []Span) Span {
	h := spans[0]
	for _, s := range spans[1:] {
		if s.From.IsZero() || !h.From.IsZero() && s.From.Before(h.From) {
			h.From = s.From
		}
		if s.To.IsZero() || !h.To.IsZero() && s.To.After(h.To) {
			h.To = s.To
		}
	}
	return h
}

// Dated reports whether text dates something: a time expression ParseTime reads ("last
// week", "in March") or a weekday, "tonight", "tomorrow", "next month", "ago".
func Dated(text string) bool {
	toks := timeTokens(text)
	for i, t := range toks {
		if _, ok := months[t.w]; ok && len(t.w) > 3 {
			return true
		}
		if _, ok := weekdays[t.w]; ok && len(t.w) > 3 {
			return true
		}
		switch t.w {
		case "yesterday", "today", "tonight", "tomorrow", "weekend", "morning", "evening", "afternoon", "recently", "lately",
			"ereyesterday", "overmorrow", "lastyear", "christmas", "orthodoxchristmas", "easter", "orthodoxeaster",
			"halloween", "thanksgiving":
			return true
		case "ago":
			// «тому» is "therefore" too: dated only after a unit («3 роки тому»)
			if !t.alias || i > 0 && isUnit(toks[i-1].w) {
				return true
			}
		case "back":
			if i > 0 && isUnit(toks[i-1].w) { // "two weeks back"
				return true
			}
		case "last", "next", "this", "past", "previous", "coming", "beforelast":
			if i+1 < len(toks) && (isUnit(toks[i+1].w) || toks[i+1].w == "weekend" || isWeekday(toks[i+1].w) || toks[i+1].w == "night" || seasons[toks[i+1].w] != 0) {
				return true
			}
		case "before":
			// "the week before last"
			if i > 0 && (calendarUnit(toks[i-1].w) || seasons[toks[i-1].w] != 0) && i+1 < len(toks) && toks[i+1].w == "last" {
				return true
			}
		}
		if y, err := atoi(t.w); err == nil && len(t.w) == 4 && y >= 1900 && y <= 2100 {
			return true
		}
	}
	return false
}

type timeToken struct {
	w          string // lower case; for a Ukrainian or Russian word, its English (cyrillicTime)
	start, end int    // bytes in the query
	alias      bool   // w is the English of a Ukrainian or Russian word
}

// timeTokens splits text into lower-case words and numbers; "8th" stays whole, and a
// date written with dashes or dots ("2023-05-08", "08.05.2023") is one token. A
// Ukrainian or Russian word of time becomes its English (see cyrillicTime); any
// apostrophe inside a word (п’ятниця, Ann’s) is read as '.
func timeTokens(text string) []timeToken {
	var out []timeToken
	start := -1
	for i, r := range text + " " {
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' || r == 'ʼ'
		// keep a dash, dot or slash between digits: a written date
		if !word && (r == '-' || r == '.' || r == '/') && start >= 0 && i+1 < len(text) &&
			unicode.IsDigit(rune(text[i-1])) && unicode.IsDigit(rune(text[i+1])) {
			word = true
		}
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			w := text[start:i]
			if strings.ContainsAny(w, "’ʼ") {
				w = strings.NewReplacer("’", "'", "ʼ", "'").Replace(w)
			}
			w = strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'"))
			tok := timeToken{w: w, start: start, end: i}
			switch w {
			case "xmas":
				tok.w = "christmas" // one name for the holiday's rules (holidays)
			case "til", "'til":
				tok.w = "till"
			}
			if w != "" && w[0] >= 0x80 {
				if en, ok := cyrillicTime()[w]; ok {
					tok.w, tok.alias = en, true
				}
			}
			out = append(out, tok)
			start = -1
		}
	}
	return out
}

var months = map[string]time.Month{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
	"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
	"sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}

var weekdays = map[string]time.Weekday{
	"sunday": 0, "sun": 0, "monday": 1, "mon": 1, "tuesday": 2, "tue": 2, "tues": 2, "wednesday": 3,
	"wed": 3, "thursday": 4, "thu": 4, "thurs": 4, "friday": 5, "fri": 5, "saturday": 6, "sat": 6,
}

func isWeekday(w string) bool { _, ok := weekdays[w]; return ok && len(w) > 3 }

func isUnit(w string) bool {
	switch strings.TrimSuffix(w, "s") {
	case "day", "week", "month", "year":
		return true
	}
	return false
}

// calendarUnit reports whether w is a calendar unit said of one ("week", "weekend"), as
// in "last week" or "the week before last".
func calendarUnit(w string) bool {
	return isUnit(w) && !strings.HasSuffix(w, "s") || w == "weekend"
}

func isTimePreposition(w string) bool {
	switch w {
	case "in", "on", "during", "of", "at", "over", "within", "throughout", "around":
		return true
	}
	return false
}

// isYear reports whether span is one calendar year.
func isYear(span Span) bool {
	return span.From.YearDay() == 1 && span.From.Hour() == 0 && span.To.Equal(span.From.AddDate(1, 0, 0))
}

// isMonth reports whether span is one calendar month.
func isMonth(span Span) bool {
	return span.From.Day() == 1 && span.From.Hour() == 0 && span.To.Equal(span.From.AddDate(0, 1, 0))
}

// rangeTo reports whether t joins the two ends of a range opened by bound: "between X
// and Y"; "from X to Y", "from X until Y", «з X по Y», «з X до Y».
func rangeTo(t timeToken, bound string) bool {
	if bound == "between" {
		return t.w == "and"
	}
	switch t.w {
	case "to", "until", "till", "through", "по":
		return true
	case "by": // «до»
		return t.alias
	}
	return false
}

// dayRunAt reads days of one month starting at toks[i]: a day's number, then the end of
// the run as a date ("7 to 11 August", "7–11 August", "4th–8th October", «з 7 по 11
// серпня»; after "between", "7 and 11 August"), or both days written as one token ("7-11
// August"). A day may follow "the" or its weekday ("from the 4th to the 8th of October",
// "Fri 20th to Tue 24th September"). It returns the days' span and how many tokens it
// takes, 0 when no such run starts there.
func dayRunAt(query string, toks []timeToken, i int, bound string, now time.Time, ahead bool) (Span, int) {
	from := i
	i = dayAt(toks, i)
	if i >= len(toks) {
		return Span{}, 0
	}
	first, isDay := dayNumber(toks[i].w)
	end, j := Span{}, 0
	switch {
	case isDay && i+1 < len(toks) && (rangeTo(toks[i+1], bound) || strings.ContainsAny(query[toks[i].end:toks[i+1].start], "-–—")):
		// the dash between two numbers is in the token; an en dash is not, nor a dash
		// after an ordinal ("4th-8th")
		if rangeTo(toks[i+1], bound) {
			j = dayAt(toks, i+2)
		} else {
			j = dayAt(toks, i+1)
		}
		var m int
		if end, m = spanAt(toks, j, now, ahead); m == 0 || !slices.ContainsFunc(toks[j:j+m], func(t timeToken) bool { return months[t.w] != 0 }) {
			return Span{}, 0 // not a date ("2 to 3 days ago")
		}
		j += m
	case !isDay:
		a, b, ok := strings.Cut(toks[i].w, "-")
		last, errB := strconv.Atoi(b)
		var err error
		if first, err = strconv.Atoi(a); !ok || err != nil || errB != nil || i+1 >= len(toks) || months[toks[i+1].w] == 0 {
			return Span{}, 0
		}
		month, m := spanAt(toks, i+1, now, ahead)
		if m == 0 || last < 1 || last > 31 {
			return Span{}, 0
		}
		end = Span{From: time.Date(month.From.Year(), month.From.Month(), last, 0, 0, 0, 0, now.Location())}
		end.To = end.From.AddDate(0, 0, 1)
		j = i + 1 + m
	default:
		return Span{}, 0
	}
	if end.From.IsZero() || !end.To.Equal(end.From.AddDate(0, 0, 1)) || first < 1 || first >= end.From.Day() {
		return Span{}, 0
	}
	return Span{From: time.Date(end.From.Year(), end.From.Month(), first, 0, 0, 0, 0, now.Location()), To: end.To}, j - from
}

// weekdayYear is the day date names, said to be a wd: when its year is not named (no
// year in toks) and date falls on another weekday, the same day of the nearest year back
// (ahead, for a text about what is to come) in which it is a wd.
func weekdayYear(date Span, wd time.Weekday, toks []timeToken, ahead bool) Span {
	if date.From.Weekday() == wd || slices.ContainsFunc(toks, func(t timeToken) bool { _, n := year(t.w); return n > 0 }) {
		return date
	}
	step := -1
	if ahead {
		step = 1
	}
	for k := 1; k <= 11; k++ {
		t := date.From.AddDate(k*step, 0, 0)
		if t.Day() == date.From.Day() && t.Weekday() == wd {
			return Span{From: t, To: t.AddDate(0, 0, 1)}
		}
	}
	return date
}

// dayAt returns where a day's number is at toks[i], past a "the" or a weekday before it
// ("the 4th", "Fri 20th"); i when none is skipped.
func dayAt(toks []timeToken, i int) int {
	if i+1 >= len(toks) {
		return i
	}
	if toks[i].w != "the" && !isWeekdayToken(toks[i].w) {
		return i
	}
	if _, ok := dayNumber(toks[i+1].w); ok {
		return i + 1
	}
	return i
}

// boundWord returns the bounding word (or words) at toks[i], or "".
func boundWord(toks []timeToken, i int) string {
	switch toks[i].w {
	case "before", "after", "since", "until", "till", "by", "between", "from":
		return toks[i].w
	case "as", "up":
		if toks[i].w == "up" && doingUpTo(toks, i) {
			return "" // "what did we get up to last weekend?", "what did it add up to this year?"
		}
		if i+1 < len(toks) && (toks[i].w == "as" && toks[i+1].w == "of" || toks[i].w == "up" && toks[i+1].w == "to") {
			return toks[i].w + " " + toks[i+1].w
		}
	}
	return ""
}

// doingUpTo reports whether the "up" at toks[i] is a verb's "up to", no bound of a time:
// after the verb ("what did we get up to", "what did it add up to", "what have you been
// up to") or after the verb and its subject ("what were most of us up to", "what was Tom
// up to"); not "what did I spend up to June?".
func doingUpTo(toks []timeToken, i int) bool {
	if i == 0 {
		return false
	}
	switch toks[i-1].w {
	case "be", "am", "is", "are", "was", "were", "been", "being", "get", "gets", "got", "getting", "gotten",
		"add", "adds", "added", "adding", "come", "comes", "came", "coming",
		"i", "we", "you", "they", "he", "she", "us", "them", "him", "her", "me":
		return true
	}
	if i > 1 {
		switch toks[i-2].w {
		case "am", "is", "are", "was", "were", "been":
			return true
		}
	}
	return false
}

// spanAt reads a time expression starting at toks[i]: its span and how many tokens it
// takes, 0 when none starts there.
func spanAt(toks []timeToken, i int, now time.Time, ahead bool) (Span, int) {
	if i >= len(toks) || !mayStartTime(toks[i].w) {
		return Span{}, 0
	}
	loc := now.Location()
	day := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc) }
	today := day(now)
	w := func(j int) string { // the word j after (before, when < 0) the start
		if i+j >= 0 && i+j < len(toks) {
			return toks[i+j].w
		}
		return ""
	}
	days := func(from time.Time, n int) Span { return Span{From: from, To: from.AddDate(0, 0, n)} }
	weekStart := today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7)) // Monday
	monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, loc)
	yearStart := time.Date(now.Year(), 1, 1, 0, 0, 0, 0, loc)
	unitSpan := func(unit string, back int) Span {
		switch strings.TrimSuffix(unit, "s") {
		case "day":
			return days(today.AddDate(0, 0, -back), 1)
		case "week":
			return days(weekStart.AddDate(0, 0, -7*back), 7)
		case "weekend":
			sat := weekStart.AddDate(0, 0, 5-7*back)
			if back == 0 && today.Before(sat) && !ahead {
				sat = sat.AddDate(0, 0, -7) // "this weekend" before it comes: the last one, unless the text speaks ahead
			}
			return days(sat, 2)
		case "month":
			s := monthStart.AddDate(0, -back, 0)
			return Span{From: s, To: s.AddDate(0, 1, 0)}
		case "year":
			s := yearStart.AddDate(-back, 0, 0)
			return Span{From: s, To: s.AddDate(1, 0, 0)}
		}
		return Span{}
	}
	// A time of a time reads the inner one once, which must not be another such: "early
	// early early…" costs no more than its words.
	if third, k := partAt(toks, i); k > 0 && !relative(toks, i+k) {
		// "early March", "at the end of last month"
		if sp, n := spanAt(toks, i+k, now, ahead); n > 0 {
			if part, ok := narrow(sp, third); ok {
				return part, k + n
			}
		}
	}
	if sp, n := seasonAt(toks, i, now, ahead); n > 0 {
		return sp, n
	}
	if sp, n := holidayAt(toks, i, now, ahead); n > 0 {
		return sp, n
	}
	if sp, n := quarterAt(toks, i, now, ahead); n > 0 {
		return sp, n
	}
	// "the first weekend of August", "the last week of May"
	if nth, k := ordinalAt(toks, i); k > 0 && (w(k) == "weekend" || w(k) == "week") && w(k+1) == "of" && !relative(toks, i+k+2) {
		if sp, n := spanAt(toks, i+k+2, now, ahead); n > 0 {
			if part, ok := nthOf(sp, w(k), nth); ok {
				return part, k + 2 + n
			}
		}
	}
	// "last weekend before 10 April", "over the weekend before 4 October": the weekend
	// before (after) that day, not the last one
	if k := weekendWords(toks, i); k > 0 && (w(k) == "before" || w(k) == "after") && !relative(toks, i+k+1) {
		if d, n := spanAt(toks, i+k+1, now, ahead); n > 0 && !d.From.IsZero() && !d.To.IsZero() {
			return weekendNear(d, w(k) == "after"), k + 1 + n
		}
	}
	// "the week of 9 November", "the weekend of the 14th": the week (weekend) that day is in
	if w(0) == "the" && (w(1) == "week" || w(1) == "weekend") && w(2) == "of" && !relative(toks, i+3) {
		if d, n := spanAt(toks, i+3, now, ahead); n > 0 && d.To.Equal(d.From.AddDate(0, 0, 1)) {
			if w(1) == "week" {
				return days(d.From.AddDate(0, 0, -((int(d.From.Weekday())+6)%7)), 7), 3 + n
			}
			sat := d.From.AddDate(0, 0, int(time.Saturday-d.From.Weekday())) // a weekday's: the one after it
			if d.From.Weekday() == time.Sunday {
				sat = d.From.AddDate(0, 0, -1)
			}
			return days(sat, 2), 3 + n
		}
	}
	switch t := w(0); {
	case isWeekday(t) && dayPart(w(1)):
		// "Monday night", "on Friday morning": the last one (the coming one, ahead); a
		// night runs into the next day
		d := lastWeekday(today, weekdays[t])
		if ahead {
			d = nextWeekday(today, weekdays[t])
		}
		if w(1) == "night" {
			d.To = d.To.AddDate(0, 0, 1)
		}
		return d, 2
	case t == "today" || t == "tonight":
		return days(today, 1), 1
	case t == "yesterday":
		return days(today.AddDate(0, 0, -1), 1), 1
	case t == "tomorrow":
		return days(today.AddDate(0, 0, 1), 1), 1
	case t == "the" && w(1) == "day" && w(2) == "after" && w(3) == "tomorrow":
		return days(today.AddDate(0, 0, 2), 1), 4
	case t == "overmorrow":
		return days(today.AddDate(0, 0, 2), 1), 1
	case t == "ereyesterday":
		return days(today.AddDate(0, 0, -2), 1), 1
	case t == "lastyear":
		return unitSpan("year", 1), 1
	case (t == "next" || t == "coming") && (isUnit(w(1)) && !strings.HasSuffix(w(1), "s") || w(1) == "weekend"):
		return unitSpan(w(1), -1), 2
	case t == "next" && isWeekday(w(1)):
		// that day of next week: "next Friday" said on a Thursday is eight days ahead
		return days(weekStart.AddDate(0, 0, 7+(int(weekdays[w(1)])+6)%7), 1), 2
	case t == "the" && w(1) == "day" && w(2) == "before" && w(3) == "yesterday":
		return days(today.AddDate(0, 0, -2), 1), 4
	case t == "the" && calendarUnit(w(1)) && w(2) == "before" && w(3) == "last":
		// "the week before last", "the weekend before last"
		return unitSpan(w(1), 2), 4
	case calendarUnit(t) && w(1) == "before" && w(2) == "last":
		return unitSpan(t, 2), 3
	case (t == "this" || t == "the") && w(1) == "past" && w(2) == "weekend":
		return unitSpan("weekend", 0), 3
	case t == "the" && w(1) == "weekend" && i > 0 && isTimePreposition(toks[i-1].w) && w(2) != "of",
		t == "weekend" && toks[i].alias && i > 0 && isTimePreposition(toks[i-1].w) && toks[i-1].alias:
		// "over the weekend", «на вихідних», «на выходных»: the one going on or the last,
		// or the coming one ahead
		n := 2
		if t == "weekend" {
			n = 1
		}
		if sat := weekStart.AddDate(0, 0, 5); ahead {
			return days(sat, 2), n
		}
		return unitSpan("weekend", 0), n
	case t == "the" && w(1) == "other" && w(2) == "day":
		// a few days back, not yesterday
		return days(today.AddDate(0, 0, -8), 7), 3
	case t == "beforelast" && calendarUnit(w(1)):
		// «позаминулого тижня», «позапрошлой неделе»
		return unitSpan(w(1), 2), 2
	case t == "this" && (w(1) == "morning" || w(1) == "afternoon" || w(1) == "evening"):
		return days(today, 1), 2
	case t == "last" && w(1) == "night":
		return days(today.AddDate(0, 0, -1), 2), 2
	case t == "the" && w(1) == "night" && w(2) == "before" && w(3) == "last":
		return days(today.AddDate(0, 0, -2), 2), 4
	case t == "this" && w(1) == "time" && w(2) == "last" && (w(3) == "week" || w(3) == "month" || w(3) == "year"):
		// "this time last year": the days around today's date a year ago
		then, spread := day(back(now, w(3), 1)), map[string]int{"week": 1, "month": 3, "year": 7}[w(3)]
		return Span{From: then.AddDate(0, 0, -spread), To: then.AddDate(0, 0, spread+1)}, 4
	case (t == "last" || t == "previous" || t == "this") && (isUnit(w(1)) && !strings.HasSuffix(w(1), "s") || w(1) == "weekend"):
		back := 1
		if t == "this" {
			back = 0
		}
		return unitSpan(w(1), back), 2
	case t == "latest" && toks[i].alias && isUnit(w(1)):
		// «за останній тиждень»: the past week
		return Span{From: day(back(now, w(1), 1)), To: today.AddDate(0, 0, 1)}, 2
	case (t == "last" || t == "past" || t == "previous") && isWeekday(w(1)):
		return lastWeekday(today, weekdays[w(1)]), 2
	case t == "the" && isWeekday(w(1)) && w(2) == "before" && w(3) == "last", isWeekday(t) && w(1) == "before" && w(2) == "last":
		// "(the) Friday before last": a week before last Friday
		j := 0
		if t == "the" {
			j = 1
		}
		return days(lastWeekday(today, weekdays[w(j)]).From.AddDate(0, 0, -7), 1), j + 3
	case isWeekday(t) && i > 0 && (toks[i-1].w == "on" || toks[i-1].alias && toks[i-1].w == "in"): // «у понеділок»
		if ahead { // "what are we doing on Friday?": the coming one
			return nextWeekday(today, weekdays[t]), 1
		}
		return lastWeekday(today, weekdays[t]), 1
	case t == "the" && (w(1) == "year" || w(1) == "month") && i > 1 && toks[i-1].w == "of" && partWord(toks[i-2].w):
		// "at the start of the year": this one
		return unitSpan(w(1), 0), 2
	case (t == "year" || t == "month") && toks[i].alias && i > 0 && partWord(toks[i-1].w):
		// «на початку року», «в конце месяца»: this one
		return unitSpan(t, 0), 1
	case ((t == "the" || t == "this") && (w(1) == "past" || w(1) == "last")) || t == "past" || t == "last":
		// "the past 10 days", "last 3 weeks", "the past week", "this past month"
		j := 1
		if t == "the" || t == "this" {
			j = 2
		}
		n, k := count(toks, i+j)
		if k > 0 && isUnit(w(j+k)) {
			return Span{From: day(back(now, w(j+k), n)), To: today.AddDate(0, 0, 1)}, j + k + 1
		}
		if j == 2 && isUnit(w(2)) && !strings.HasSuffix(w(2), "s") {
			return Span{From: day(back(now, w(2), 1)), To: today.AddDate(0, 0, 1)}, 3
		}
		if w(j) == "fortnight" { // "the past fortnight", "in the last fortnight": 14 days
			return Span{From: day(back(now, "week", 2)), To: today.AddDate(0, 0, 1)}, j + 1
		}
	}
	// "half a year ago": six months; "half a month ago": two weeks
	if w(0) == "half" && (w(1) == "a" || w(1) == "an") && (w(2) == "year" || w(2) == "month") && (w(3) == "ago" || w(3) == "back") {
		if w(2) == "year" {
			return about(now, "month", 6, false), 4
		}
		return about(now, "week", 2, false), 4
	}
	// "3 weeks ago", "a few days ago", "a month ago", "two weeks back"; "in 3 weeks", "in a
	// few days"
	n, k := count(toks, i)
	vague := k > 1 || w(0) == "several" || w(0) == "few"
	if more, j := count(toks, i+k+1); k > 0 && w(k) == "or" && j > 0 && more > n && isUnit(w(k+1+j)) {
		n, k, vague = (n+more)/2, k+1+j, true // "2 or 3 weeks ago", "one or two days ago"
	}
	if k > 0 && isUnit(w(k)) {
		m := k + 1                                              // past the unit
		if w(m) == "and" && w(m+1) == "a" && w(m+2) == "half" { // "a year and a half ago"
			n, m = n+0.5, m+3
		}
		if w(m) == "or" { // "a month or so ago", "a week or two ago": vaguely
			if w(m+1) == "so" {
				vague, m = true, m+2
			} else if more, j := count(toks, i+m+1); j > 0 && more > n {
				n, vague, m = (n+more)/2, true, m+1+j
			}
		}
		if w(m) == "ago" || w(m) == "back" {
			return about(now, w(k), n, vague), m + 1
		}
	}
	// "two Fridays ago": the Friday before last
	if n, k := count(toks, i); k > 0 && isWeekday(strings.TrimSuffix(w(k), "s")) && w(k+1) == "ago" && n >= 1 && n < 60 && n == float64(int(n)) {
		return days(lastWeekday(today, weekdays[strings.TrimSuffix(w(k), "s")]).From.AddDate(0, 0, -7*(int(n)-1)), 1), k + 2
	}
	// "a fortnight ago": two weeks
	if n, k := count(toks, i); k > 0 && strings.TrimSuffix(w(k), "s") == "fortnight" && w(k+1) == "ago" {
		return about(now, "week", 2*n, k > 1 || w(0) == "several" || w(0) == "few"), k + 2
	}
	// "two weekends ago": that weekend; "a few weekends ago": those around it
	if n, k := count(toks, i); k > 0 && strings.TrimSuffix(w(k), "s") == "weekend" && w(k+1) == "ago" && n < 60 {
		back := int(n)
		if k > 1 || w(0) == "several" || w(0) == "few" {
			return Span{From: unitSpan("weekend", back+1).From, To: unitSpan("weekend", max(back-1, 1)).To}, k + 2
		}
		return unitSpan("weekend", back), k + 2
	}
	later := w(0) == "in" || w(0) == "within" && toks[i].alias // «через 3 тижні»
	if n, k := count(toks, i+1); later && k > 0 && isUnit(w(1+k)) && w(2+k) != "ago" {
		return about(now, w(1+k), -n, k > 1 || w(1) == "several" || w(1) == "few"), k + 2
	}
	// «тиждень тому», «месяц назад», «через тиждень»: a unit said without a count is one
	if isUnit(w(0)) && w(1) == "ago" && toks[i].alias {
		return about(now, w(0), 1, false), 2
	}
	if w(0) == "within" && toks[i].alias && isUnit(w(1)) {
		return about(now, w(1), -1, false), 2
	}
	// «2023 року», «2022 году»: the word for year after a year goes with it
	yearWord := func(j, n int) int {
		if n == 1 && i+j < len(toks) && toks[i+j].alias && toks[i+j].w == "year" {
			return 1
		}
		return 0
	}
	// written dates: 2023-05-08, 08.05.2023
	if d, ok := writtenDate(w(0), loc); ok {
		return days(d, 1), 1
	}
	// "8 May 2023", "8th of May", "May 8, 2023", "May 2023", "May"
	if d, ok := dayNumber(w(0)); ok {
		j := 1
		if w(1) == "of" {
			j = 2
		}
		if m, ok := months[w(j)]; ok {
			y, n := year(w(j + 1))
			t := time.Date(y, m, d, 0, 0, 0, 0, loc)
			if n == 0 {
				t = nearest(time.Date(now.Year(), m, d, 0, 0, 0, 0, loc), today, ahead)
			}
			return days(t, 1), j + 1 + n + yearWord(j+2, n)
		}
		// "on the 3rd", "Friday the 14th", "Fri 14th": that day of this month, or of the
		// last while it is still to come (of the next, in a text about what is ahead)
		weekday, afterWeekday := weekdays[w(-1)]
		if wd, ok := weekdays[w(-2)]; ok && w(-1) == "the" {
			weekday, afterWeekday = wd, true
		}
		if w(0) != strconv.Itoa(d) && afterWeekday {
			// "Friday the 14th": the nearest 14th that is a Friday, back (ahead) from
			// today, within a year
			for k := range 13 {
				if !ahead {
					k = -k
				}
				t, ok := dayOfMonth(now.Year(), now.Month()+time.Month(k), d, loc)
				if ok && t.Weekday() == weekday && (ahead && !t.Before(today) || !ahead && !t.After(today)) {
					return days(t, 1), 1
				}
			}
		}
		if w(0) != strconv.Itoa(d) && (i > 1 && toks[i-1].w == "the" && toks[i-2].w == "on" || afterWeekday) {
			this, ok := dayOfMonth(now.Year(), now.Month(), d, loc)
			other, step := this.After(today), -1
			if ahead {
				other, step = this.Before(today), 1
			}
			if ok && !other {
				return days(this, 1), 1
			}
			if t, ok := dayOfMonth(now.Year(), now.Month()+time.Month(step), d, loc); ok {
				return days(t, 1), 1
			}
		}
	}
	// "Dec 25", "Sept 2023": a month's short name is read only before a day or a year
	// ("Jan" is a name, "mar" and "sat" are words)
	if m, ok := months[w(0)]; ok && (len(w(0)) > 3 || w(0) == "may" || dayOrYear(w(1))) {
		// the verb "may", «лютий» ("fierce"), «Марта» (a name): a month only after a
		// preposition, a bound or "last" («минулого березня»), before a day or a year, or
		// as the second of two months («між березнем і квітнем»)
		if (w(0) == "may" || toks[i].alias) && !(i > 0 && (isTimePreposition(toks[i-1].w) || boundWord(toks, i-1) != "" || toks[i-1].w == "last" || partWord(toks[i-1].w)) ||
			i > 1 && toks[i-1].w == "and" && months[toks[i-2].w] != 0) {
			if _, ok := dayNumber(w(1)); !ok {
				if _, n := year(w(1)); n == 0 {
					return Span{}, 0
				}
			}
		}
		if d, ok := dayNumber(w(1)); ok {
			y, n := year(w(2))
			t := time.Date(y, m, d, 0, 0, 0, 0, loc)
			if n == 0 {
				t = nearest(time.Date(now.Year(), m, d, 0, 0, 0, 0, loc), today, ahead)
			}
			return days(t, 1), 2 + n + yearWord(3, n)
		}
		y, n := year(w(1))
		of := 0
		if n == 0 && w(1) == "of" { // "May of 2024"
			if y, n = year(w(2)); n > 0 {
				of = 1
			}
		}
		t := time.Date(y, m, 1, 0, 0, 0, 0, loc)
		if n == 0 {
			t = nearest(time.Date(now.Year(), m, 1, 0, 0, 0, 0, loc), monthStart, ahead)
			if i > 0 && toks[i-1].w == "last" && t.Equal(monthStart) {
				t = t.AddDate(-1, 0, 0) // "last May" asked in May: a year ago
			}
		}
		return Span{From: t, To: t.AddDate(0, 1, 0)}, 1 + of + n + yearWord(2+of, n)
	}
	// "in 2022": a year needs a preposition or bound before it, or it may be a number
	if y, n := year(w(0)); n == 1 && i > 0 && (isTimePreposition(toks[i-1].w) || boundWord(toks, i-1) != "" || toks[i-1].w == "of" || partWord(toks[i-1].w)) {
		t := time.Date(y, 1, 1, 0, 0, 0, 0, loc)
		return Span{From: t, To: t.AddDate(1, 0, 0)}, 1 + yearWord(1, n)
	}
	return Span{}, 0
}

// dayPart reports whether w names a part of a day: "Monday night", "last Friday morning".
func dayPart(w string) bool {
	return w == "morning" || w == "afternoon" || w == "evening" || w == "night"
}

// mayStartTime reports whether w may begin an expression spanAt reads: most words of a
// message do not, and are passed over without working out the calendar.
func mayStartTime(w string) bool {
	switch w {
	case "today", "tonight", "yesterday", "tomorrow", "the", "this", "last", "next", "coming", "previous", "past", "in",
		"within", "latest", "ereyesterday", "overmorrow", "lastyear", "beforelast", "day", "week", "weekend", "month", "year",
		"early", "mid", "middle", "late", "beginning", "start", "end", "half", "q1", "q2", "q3", "q4":
		return true
	}
	if namesTime(w) || w == "new" || w == "valentines" {
		return true
	}
	if w != "" && w[0] >= '0' && w[0] <= '9' {
		return true
	}
	_, weekday := weekdays[w]
	_, month := months[w]
	_, number := numberWords[w]
	return weekday || month || number
}

// tellWords are the words of which every bounded time spanAt reads has at least one (the
// rest, "the", "last", "in", "a few", only lead to them), in English: a text with none of
// them, and no digit, names no day, week, month or year.
var tellWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"today", "tonight", "yesterday", "tomorrow", "overmorrow", "ereyesterday", "lastyear",
		"night", "morning", "afternoon", "evening", "weekend", "weekends", "fortnight", "fortnights",
		"spring", "summer", "autumn", "fall", "winter", "christmas", "xmas", "easter", "halloween", "valentine",
		"valentines", "thanksgiving", "quarter", "q1", "q2", "q3", "q4"} {
		m[w] = true
	}
	for _, u := range []string{"day", "week", "month", "year"} {
		m[u], m[u+"s"] = true, true
	}
	for w := range months {
		m[w] = true
	}
	for w := range weekdays {
		m[w] = true
		if isWeekday(w) {
			m[w+"s"] = true // "two Fridays ago"
		}
	}
	return m
}()

// mayTell reports whether text may name a bounded time (ParseTime's Span): false only
// when it surely does not, as most messages do not. It costs a tenth of ParseTime, which
// searches for a time call for every candidate (boostTold). A text not all ASCII may hold
// words of another language that mean a time, so it may tell.
func mayTell(text string) bool {
	var buf [16]byte
	n := 0
	for i := 0; i <= len(text); i++ {
		c := byte(' ')
		if i < len(text) {
			c = text[i]
		}
		switch {
		case c >= 0x80 || c >= '0' && c <= '9':
			return true
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
			fallthrough
		case c >= 'a' && c <= 'z':
			if n < len(buf) {
				buf[n] = c
			}
			n++
			continue
		}
		if n > 0 && n <= len(buf) && tellWords[string(buf[:n])] {
			return true
		}
		n = 0
	}
	return false
}

// lastWeekday is the latest day before today that falls on wd (a week ago on the same
// weekday).
func lastWeekday(today time.Time, wd time.Weekday) Span {
	back := (int(today.Weekday()) - int(wd) + 7) % 7
	if back == 0 {
		back = 7
	}
	d := today.AddDate(0, 0, -back)
	return Span{From: d, To: d.AddDate(0, 0, 1)}
}

// nextWeekday is the first day after today that falls on wd (a week ahead on the same
// weekday): "on Friday" of what is still to come.
func nextWeekday(today time.Time, wd time.Weekday) Span {
	d := today.AddDate(0, 0, (int(wd)-int(today.Weekday())+6)%7+1)
	return Span{From: d, To: d.AddDate(0, 0, 1)}
}

// about is the days around n units before now (after, for a negative n): half a unit
// either side, a whole one when the count is vague ("a few", "a couple of").
func about(now time.Time, unit string, n float64, vague bool) Span {
	at := back(now, unit, n)
	half := now.Sub(back(now, unit, 1)) / 2
	if vague {
		half *= 2
	}
	day := func(t time.Time) time.Time {
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, now.Location())
	}
	return Span{From: day(at.Add(-half)), To: day(at.Add(half)).AddDate(0, 0, 1)}
}

// nearest returns t or t moved by a year to the side of limit the text speaks of: the
// latest not after limit ("in December" asked in March is last December), or, in a text
// about what is ahead (speaksAhead: "where will we be on 8 May?"), the earliest not
// before it.
func nearest(t, limit time.Time, ahead bool) time.Time {
	switch {
	case ahead && t.Before(limit):
		return t.AddDate(1, 0, 0)
	case !ahead && t.After(limit):
		return t.AddDate(-1, 0, 0)
	}
	return t
}

// speaksAhead reports whether a text speaks of what is to come: "will", "we'll",
// "gonna", "shall", "upcoming", plans ("what are Ann's plans for May?", but not "what
// were her plans"), or the present continuous, which with a time names an arrangement
// ("where is Ann flying in May?", "I'm going to Rome on 8 May"; «збираюся»,
// «собирается»). A date it names without a year is then the next one.
func speaksAhead(toks []timeToken) bool {
	past := slices.ContainsFunc(toks, pastWord)
	for i, t := range toks {
		if aheadWord(t) {
			return true
		}
		switch t.w {
		case "plans", "planning":
			if !past || t.alias { // not "what were Ann's plans for May?"
				return true
			}
		case "am", "is", "are", "i'm", "we're", "you're", "they're": // "she's" is "she" (timeTokens)
			// the -ing form next, or after the subject of a question ("is Ann flying")
			for j := i + 1; j < len(toks) && j <= i+3 && !isTimePreposition(toks[j].w); j++ {
				if continuous(toks[j].w) {
					return true
				}
			}
		}
	}
	return false
}

// aheadWord reports whether t is a word of what is to come: "will", "won't", "we'll",
// "gonna", "shall", "upcoming" («буде», «будет»).
func aheadWord(t timeToken) bool {
	switch t.w {
	case "will", "won't", "gonna", "shall", "upcoming":
		return true
	}
	return !t.alias && strings.HasSuffix(t.w, "'ll")
}

// pastWord reports whether t is a past of "to be", "do" or "have" ("was", "did", "had";
// «був», «было»), or "went".
func pastWord(t timeToken) bool {
	if t.alias {
		return false
	}
	switch t.w {
	case "was", "were", "did", "had", "went", "wasn't", "weren't", "didn't":
		return true
	}
	return pastBe[t.w]
}

// tenseAt is whether the clause of a time, at toks[i], speaks of what is to come (1:
// "the baby is due early November", "I'll be in Rome on the 3rd", "we're flying out on
// the 2nd") or of what was (-1: "I was in Paris in March", "no hot water since
// Christmas Eve"), or does not say (0): the word that says nearest before the time
// decides, or else the nearest after it, within the clause (up to a stop, comma,
// semicolon, colon, dash, "and", "but", "so"…). Only the plainest words say it: "booked
// the cabin for August" is said in the past of what is to come.
func tenseAt(query string, toks []timeToken, i int) int {
	brk := func(j int) bool { // a clause starts at toks[j]
		switch toks[j].w {
		case "and", "but", "so", "because", "then", "while", "though", "although", "і", "й", "и", "а", "але", "но":
			return true
		}
		return strings.ContainsAny(query[toks[j-1].end:toks[j].start], ".,;:!?\n–—")
	}
	says := func(j int) int {
		switch w := toks[j].w; {
		case aheadWord(toks[j]) || w == "due":
			return 1
		case pastWord(toks[j]):
			return -1
		case continuous(w): // "are flying", "I'm starting"
			for k := j - 1; k >= 0 && k >= j-2 && !brk(k+1); k-- {
				switch toks[k].w {
				case "am", "is", "are", "i'm", "we're", "you're", "they're":
					return 1
				}
			}
		}
		return 0
	}
	for j := i - 1; j >= 0; j-- {
		if t := says(j); t != 0 {
			return t
		}
		if j > 0 && brk(j) {
			break
		}
	}
	for j := i + 1; j < len(toks) && !brk(j); j++ {
		if t := says(j); t != 0 {
			return t
		}
	}
	return 0
}

// pastBe are the past forms of "to be" in Ukrainian and Russian: «у березні я був у
// Парижі».
var pastBe = map[string]bool{"був": true, "була": true, "було": true, "були": true,
	"был": true, "была": true, "было": true, "были": true}

// continuous reports whether w is a verb's -ing form ("flying", "going"), as far as a
// word alone tells: not "something", "morning" or "wedding".
func continuous(w string) bool {
	if !strings.HasSuffix(w, "ing") || len(w) < 5 {
		return false // "sing", "king"
	}
	switch w {
	case "something", "anything", "nothing", "everything", "morning", "evening", "during",
		"wedding", "meeting", "building", "spring", "string", "ceiling", "being":
		return false
	}
	return true
}

// back returns now less n units (n may be fractional: "a couple of" is 2, "a few" 3; a
// negative n is ahead of now).
func back(now time.Time, unit string, n float64) time.Time {
	whole := int(n)
	frac := n - float64(whole)
	switch strings.TrimSuffix(unit, "s") {
	case "day":
		return now.Add(-time.Duration(n * float64(24*time.Hour)))
	case "week":
		return now.Add(-time.Duration(n * float64(7*24*time.Hour)))
	case "month":
		return now.AddDate(0, -whole, 0).Add(-time.Duration(frac * float64(30*24*time.Hour)))
	case "year":
		return now.AddDate(-whole, 0, 0).Add(-time.Duration(frac * float64(365*24*time.Hour)))
	}
	return now
}

var numberWords = map[string]float64{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "several": 3, "few": 3, "couple": 2,
}

// count reads a count at toks[i] ("3", "three", "a", "a few", "a couple of") and the
// tokens it takes.
func count(toks []timeToken, i int) (float64, int) {
	if i >= len(toks) {
		return 0, 0
	}
	w := toks[i].w
	if w == "a" && i+1 < len(toks) {
		switch toks[i+1].w {
		case "few":
			return 3, 2
		case "couple":
			if i+2 < len(toks) && toks[i+2].w == "of" {
				return 2, 3
			}
			return 2, 2
		}
	}
	if w == "couple" && i+1 < len(toks) && toks[i+1].w == "of" { // "the past couple of weeks"
		return 2, 2
	}
	if n, ok := numberWords[w]; ok {
		return n, 1
	}
	if n, err := atoi(w); err == nil && n > 0 && n < 1000 {
		return float64(n), 1
	}
	return 0, 0
}

// errNotNumber is atoi's error for a word that does not start with a digit.
var errNotNumber = errors.New("not a number")

// atoi is strconv.Atoi for the words of a text, most of which are not numbers: those
// fail without building an error each.
func atoi(w string) (int, error) {
	if w == "" || w[0] < '0' || w[0] > '9' {
		return 0, errNotNumber
	}
	return strconv.Atoi(w)
}

// dayOrYear reports whether w is a day of the month or a year ("Dec 25", "Sept 2023").
func dayOrYear(w string) bool {
	_, day := dayNumber(w)
	_, y := year(w)
	return day || y == 1
}

// dayOfMonth is day d of month m of year y (m may run over into the next or the last year),
// ok false when that month has no such day.
func dayOfMonth(y int, m time.Month, d int, loc *time.Location) (time.Time, bool) {
	t := time.Date(y, m, d, 0, 0, 0, 0, loc)
	return t, t.Day() == d
}

// dayNumber reads a day of the month: "8", "08", "8th", "1st", "22nd", "3rd".
func dayNumber(w string) (int, bool) {
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		w = strings.TrimSuffix(w, suf)
	}
	d, err := atoi(w)
	return d, err == nil && d >= 1 && d <= 31
}

func isDayNumber(w string) bool { _, ok := dayNumber(w); return ok }

// isWeekdayToken reports whether w names a weekday, in full or short ("Sat").
func isWeekdayToken(w string) bool { _, ok := weekdays[w]; return ok }

// year reads a year at w: the year and 1, or 0 tokens.
func year(w string) (int, int) {
	y, err := atoi(w)
	if err != nil || len(w) != 4 || y < 1900 || y > 2100 {
		return 0, 0
	}
	return y, 1
}

// writtenDate reads 2023-05-08, 2023/05/08 or 08.05.2023.
func writtenDate(w string, loc *time.Location) (time.Time, bool) {
	if len(w) < 8 || w[0] < '0' || w[0] > '9' || !strings.ContainsAny(w, "-/.") {
		return time.Time{}, false // not a date: no parse error to build for every word
	}
	for _, layout := range []string{"2006-01-02", "2006/01/02", "02.01.2006", "2.1.2006"} {
		if t, err := time.ParseInLocation(layout, w, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// SaidAt says when a message was said, for a model or a person reading results: the
// weekday, date and time in loc, and how long before now that was ("Tue 7 May 2024 18:30,
// 8 days ago"). A time after now has no age.
func SaidAt(t, now time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	t, now = t.In(loc), now.In(loc)
	s := t.Format("Mon 2 Jan 2006 15:04")
	if age := Age(t, now); age != "" {
		s += ", " + age
	}
	return s
}

// Age says how long before now t was, in the largest fitting unit: "just now", "5 minutes
// ago", "3 hours ago", "yesterday", "4 days ago", "2 weeks ago", "5 months ago", "2 years
// ago"; days count calendar days in now's location. A time after now has no age ("").
func Age(t, now time.Time) string {
	d := now.Sub(t)
	if d < 0 {
		return ""
	}
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit + " ago"
		}
		return strconv.Itoa(n) + " " + unit + "s ago"
	}
	t = t.In(now.Location())
	days := int(time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location()).
		Sub(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, now.Location())).Hours()+12) / 24
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case days == 0:
		return plural(int(d/time.Hour), "hour")
	case days == 1:
		return "yesterday"
	case days < 14:
		return plural(days, "day")
	case days < 60:
		return plural(days/7, "week")
	}
	months := (now.Year()-t.Year())*12 + int(now.Month()) - int(t.Month())
	if now.Day() < t.Day() {
		months--
	}
	if months < 24 {
		return plural(max(months, 2), "month")
	}
	return plural(months/12, "year")
}

// yearOf is a, the start of a range "between a and b" read in toks, moved back by whole
// years to the latest that starts before b ends (b's year or the one before), when a
// names no year and would start after b ends: "between August and November 2023" asked
// in 2026 is from August 2023, not August 2026 (a range that ran backwards, and matched
// no message); "between November and February 2023" from November 2022.
func yearOf(a, b Span, toks []timeToken) Span {
	if a.From.Before(b.To) || slices.ContainsFunc(toks, func(t timeToken) bool { _, n := year(t.w); return n > 0 }) {
		return a
	}
	years := b.To.Year() - a.From.Year()
	for range 2 {
		if moved := (Span{From: a.From.AddDate(years, 0, 0), To: a.To.AddDate(years, 0, 0)}); moved.From.Before(b.To) {
			return moved
		}
		years--
	}
	return a
}
