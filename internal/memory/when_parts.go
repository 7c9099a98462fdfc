package memory

import "time"

// Seasons and parts of a time, as spanAt reads them: "last summer", "in the winter of
// 2022", "early March", "mid-April", "at the end of last month", «минулого літа», «на
// початку березня».

// seasons are the months the seasons start in, on the meteorological calendar of the
// northern hemisphere: each lasts three months (winter runs into the next year).
var seasons = map[string]time.Month{
	"spring": time.March, "summer": time.June, "autumn": time.September, "fall": time.September,
	"winter": time.December,
}

// seasonIn is the season starting in month s of year y.
func seasonIn(s time.Month, y int, loc *time.Location) Span {
	from := time.Date(y, s, 1, 0, 0, 0, 0, loc)
	return Span{From: from, To: from.AddDate(0, 3, 0)}
}

// tokenAt is the word of toks[i], "" past either end.
func tokenAt(toks []timeToken, i int) string {
	if i >= 0 && i < len(toks) {
		return toks[i].w
	}
	return ""
}

// seasonAt reads a season at toks[i] and how many tokens it takes: "last summer" (the
// latest one over by today), "the summer before last", "this summer" (the one going on,
// or else this year's; a winter not going on, the nearer of the last and the next), "next
// spring", "summer 2022", "the summer of 2022", and a season after a preposition or "the" ("in the summer", "during summer":
// the latest one begun by today, or the next when the text speaks of what is to come).
// "Fall" is read only after last, this or next, before a year or in "in (the) fall":
// "after the fall" is an accident.
func seasonAt(toks []timeToken, i int, now time.Time, ahead bool) (Span, int) {
	w := func(j int) string { return tokenAt(toks, i+j) }
	loc := now.Location()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	// "the summer before last", «позаминулого літа»: the one before last summer
	beforeLast, k := w(0) == "the" && w(2) == "before" && w(3) == "last", 4
	if w(0) == "beforelast" {
		beforeLast, k = true, 2
	}
	switch t := w(0); {
	case t == "last" || t == "previous" || t == "this" || t == "next" || t == "coming" || beforeLast:
		s, ok := seasons[w(1)]
		if !ok {
			return Span{}, 0
		}
		at := yearly(func(y int) Span { return seasonIn(s, y, loc) })
		switch {
		case beforeLast:
			return at(at.over(today) - 1), k
		case t == "next" || t == "coming":
			return at(at.latest(today) + 1), 2
		case t == "this":
			cur, next := at(at.latest(today)), at(at.latest(today)+1)
			switch {
			case today.Before(cur.To): // the one going on
				return cur, 2
			case s != time.December:
				// spring, summer, autumn: this year's ("this summer" asked in May; "this
				// spring" asked in December is the one gone, in January the one to come)
				return at(today.Year()), 2
			case next.From.Sub(today) < today.Sub(cur.To): // "this winter" asked in November
				return next, 2
			}
			return cur, 2
		}
		return at(at.over(today)), 2
	}
	s, ok := seasons[w(0)]
	if !ok {
		return Span{}, 0
	}
	// "summer 2022", "the summer of 2022"
	j := 1
	if w(1) == "of" {
		j = 2
	}
	if y, n := year(w(j)); n == 1 {
		return seasonIn(s, y, loc), j + 1
	}
	prev := func(k int) string { return tokenAt(toks, i-k) }
	said := toks[i].alias // «влітку», «летом»: in summer
	if w(0) == "fall" {
		said = said || prev(1) == "in" || prev(1) == "the" && (prev(2) == "in" || prev(2) == "during")
	} else {
		// "in (the) summer", "during the summer", "early summer"; not "plans for the
		// summer", whose summer is to come, nor "the beauty of autumn"
		at := func(w string) bool { return isTimePreposition(w) && w != "of" }
		said = said || at(prev(1)) || prev(1) == "the" && at(prev(2)) || i > 0 && boundWord(toks, i-1) != "" ||
			partWord(prev(1)) || prev(1) == "of" && partWord(prev(2)) || prev(1) == "the" && prev(2) == "of" && partWord(prev(3))
	}
	if !said {
		return Span{}, 0
	}
	at := yearly(func(y int) Span { return seasonIn(s, y, loc) })
	y := at.latest(today)
	if ahead && !at(y).To.After(today) {
		y++
	}
	return at(y), 1
}

// yearly is a time that comes every year, a season or a holiday: at(y) is that of year y.
type yearly func(y int) Span

// latest is the year of the one begun last by today.
func (at yearly) latest(today time.Time) int {
	y := today.Year() + 1
	for at(y).From.After(today) {
		y--
	}
	return y
}

// over is the year of the last one over by today ("last summer", "last Christmas"): the
// one before the one going on.
func (at yearly) over(today time.Time) int {
	y := at.latest(today)
	if today.Before(at(y).To) {
		y--
	}
	return y
}

// partAt reads, at toks[i], the part of a time named after it: "early", "mid" or "late",
// "the beginning (start, middle, end) of", «на початку», «в конце». It returns which third
// (1 to 3) and how many tokens name it; 0 when none.
func partAt(toks []timeToken, i int) (third, n int) {
	w := func(j int) string { return tokenAt(toks, i+j) }
	j := 0
	if w(0) == "the" {
		j = 1
	}
	third = partThirds[w(j)]
	if third == 0 {
		return 0, 0
	}
	n = j + 1
	switch {
	case w(n) == "of":
		n++
	case w(j) == "early" || w(j) == "mid" || w(j) == "late" || i+j < len(toks) && toks[i+j].alias:
	default:
		return 0, 0 // "the end" alone, "a fresh start"
	}
	if j == 1 && (w(1) == "early" || w(1) == "late") {
		return 0, 0 // "the late Mr Brown"
	}
	if _, ok := seasons[w(n+1)]; ok && w(n) == "the" {
		n++ // "the end of the summer"
	}
	return third, n
}

// narrow is the third of sp that part names, in whole days, for a span of a month or
// more ("early March": 1–10 March, "late 2022": September–December); any other span is
// not narrowed (ok false).
func narrow(sp Span, third int) (Span, bool) {
	if sp.From.IsZero() || sp.To.IsZero() || sp.To.Sub(sp.From) < 27*24*time.Hour {
		return sp, false
	}
	days := int(sp.To.Sub(sp.From).Hours()/24 + 0.5)
	at := func(k int) time.Time {
		if k == 3 {
			return sp.To
		}
		return sp.From.AddDate(0, 0, days*k/3)
	}
	if days > 360 { // a year: by months, January–April, May–August, September–December
		at = func(k int) time.Time { return sp.From.AddDate(0, 4*k, 0) }
	}
	return Span{From: at(third - 1), To: at(third)}, true
}

// partThirds are the words that name a part of a time, each with the third of it that
// it names: "early", "mid" and "late" before the time ("early 2022"), "the beginning
// (middle, end) of" it.
var partThirds = map[string]int{"early": 1, "beginning": 1, "start": 1, "mid": 2, "middle": 2, "late": 3, "end": 3}

// partWord reports whether w names a part of a time before it ("early 2022").
func partWord(w string) bool { return partThirds[w] != 0 }

// weekendWords reads, at toks[i], a weekend named relative to another time: "last
// weekend", "the weekend", "that weekend"; it returns how many tokens, 0 for none.
func weekendWords(toks []timeToken, i int) int {
	if i+1 < len(toks) && toks[i+1].w == "weekend" {
		switch toks[i].w {
		case "last", "the", "that", "previous":
			return 2
		}
	}
	return 0
}

// weekendNear is the last weekend (Saturday and Sunday) wholly before d, or with after the
// first wholly after it.
func weekendNear(d Span, after bool) Span {
	if after {
		t := time.Date(d.To.Year(), d.To.Month(), d.To.Day(), 0, 0, 0, 0, d.To.Location())
		for t.Weekday() != time.Saturday {
			t = t.AddDate(0, 0, 1)
		}
		return Span{From: t, To: t.AddDate(0, 0, 2)}
	}
	t := time.Date(d.From.Year(), d.From.Month(), d.From.Day(), 0, 0, 0, 0, d.From.Location()).AddDate(0, 0, -2)
	for t.Weekday() != time.Saturday {
		t = t.AddDate(0, 0, -1)
	}
	return Span{From: t, To: t.AddDate(0, 0, 2)}
}

// ordinalAt reads "the first" ("second", "third", "fourth", "last") at toks[i]: which (-1
// for the last) and how many tokens; 0 tokens for none.
func ordinalAt(toks []timeToken, i int) (int, int) {
	if i+1 >= len(toks) || toks[i].w != "the" {
		return 0, 0
	}
	switch toks[i+1].w {
	case "first", "1st":
		return 1, 2
	case "second", "2nd":
		return 2, 2
	case "third", "3rd":
		return 3, 2
	case "fourth", "4th":
		return 4, 2
	case "last", "final":
		return -1, 2
	}
	return 0, 0
}

// nthOf is the nth week (days 1–7, 8–14…) or weekend (Saturday and Sunday, the first
// whose Saturday is in sp…) of sp, a month or more; nth -1 is the last. ok is false for a
// shorter span, or one without that many.
func nthOf(sp Span, unit string, nth int) (Span, bool) {
	if sp.From.IsZero() || sp.To.IsZero() || sp.To.Sub(sp.From) < 27*24*time.Hour {
		return Span{}, false
	}
	var out Span
	switch unit {
	case "week":
		if nth == -1 {
			out = Span{From: sp.To.AddDate(0, 0, -7), To: sp.To}
		} else {
			from := sp.From.AddDate(0, 0, 7*(nth-1))
			out = Span{From: from, To: from.AddDate(0, 0, 7)}
		}
	default:
		sat := sp.From
		for sat.Weekday() != time.Saturday {
			sat = sat.AddDate(0, 0, 1)
		}
		if nth == -1 {
			for sat.AddDate(0, 0, 7).Before(sp.To) {
				sat = sat.AddDate(0, 0, 7)
			}
		} else {
			sat = sat.AddDate(0, 0, 7*(nth-1))
		}
		out = Span{From: sat, To: sat.AddDate(0, 0, 2)}
	}
	return out, !out.From.Before(sp.From) && out.From.Before(sp.To)
}

// relative reports whether toks[i] starts a time named relative to another (a part, the
// nth week of, a weekend before), which spanAt reads by reading the other.
func relative(toks []timeToken, i int) bool {
	if _, k := partAt(toks, i); k > 0 {
		return true
	}
	if _, k := ordinalAt(toks, i); k > 0 {
		return true
	}
	return weekendWords(toks, i) > 0
}

// namesTime reports whether w, a word of a query as timeTokens reads it, is a season's or
// a holiday's name: a time, but also a word that what is told of it often holds.
func namesTime(w string) bool {
	if _, ok := seasons[w]; ok {
		return true
	}
	_, ok := holidays[w]
	return ok
}

// seasonWord reports whether w, a word of a query, is a season's or a holiday's name, in
// any of the languages.
func seasonWord(w string) bool {
	if namesTime(w) || w == "" || w[0] < 0x80 {
		return namesTime(w)
	}
	return namesTime(cyrillicTime()[w])
}

// quarterAt reads a quarter of a year at toks[i]: "Q3", "Q3 2025", "Q1 of 2024", "the
// third quarter of 2025 (of last year)", "the last quarter of 2024" (its fourth), "last
// quarter", "this quarter", "next quarter", "the quarter before last", «минулого
// кварталу», «в этом квартале». A quarter named without a year is the latest begun by
// today (the next one, in a text about what is ahead). "A quarter" (of an hour, of the
// budget) is no time, nor is a quarter said with "the" and no year, as a game's are:
// "trailing in the 4th quarter", "in the last quarter", "the last quarter of the game".
func quarterAt(toks []timeToken, i int, now time.Time, ahead bool) (Span, int) {
	w := func(j int) string { return tokenAt(toks, i+j) }
	loc := now.Location()
	in := func(y, q int) Span {
		from := time.Date(y, time.Month(3*q-2), 1, 0, 0, 0, 0, loc)
		return Span{From: from, To: from.AddDate(0, 3, 0)}
	}
	thisOne := now.Year()*4 + (int(now.Month())-1)/3 // quarters since year 0
	back := func(n int) Span { return in((thisOne-n)/4, (thisOne-n)%4+1) }
	switch t := w(0); {
	case (t == "last" || t == "previous" || t == "past") && w(1) == "quarter" && (t != "last" || w(-1) != "the"):
		return back(1), 2
	case t == "beforelast" && w(1) == "quarter":
		return back(2), 2
	case t == "this" && w(1) == "quarter":
		return back(0), 2
	case (t == "next" || t == "coming") && w(1) == "quarter":
		return back(-1), 2
	case t == "the" && w(1) == "quarter" && w(2) == "before" && w(3) == "last":
		return back(2), 4
	}
	q, k := 0, 0
	if t := w(0); len(t) == 2 && t[0] == 'q' && t[1] >= '1' && t[1] <= '4' {
		q, k = int(t[1]-'0'), 1
	} else if nth, n := ordinalAt(toks, i); n > 0 && w(n) == "quarter" && w(n+1) == "of" {
		// only of a year: "the 4th quarter", "the last quarter" alone are a game's as often
		q, k = nth, n+1
	}
	if q == 0 {
		return Span{}, 0
	}
	if q == -1 {
		q = 4 // the last of a year
	}
	if w(k) == "of" {
		// "of 2024", "of last year": a year, as spanAt reads it; not "of the game"
		if sp, n := spanAt(toks, i+k+1, now, ahead); n > 0 && isYear(sp) {
			return in(sp.From.Year(), q), k + 1 + n
		}
		return Span{}, 0
	}
	if y, n := year(w(k)); n == 1 { // "Q3 2025"
		return in(y, q), k + 1
	}
	y := now.Year()
	if in(y, q).From.After(now) {
		y--
	}
	if ahead && !in(y, q).To.After(now) {
		y++
	}
	return in(y, q), k
}
