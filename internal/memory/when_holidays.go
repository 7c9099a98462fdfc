package memory

import "time"

// Holidays, as spanAt reads them: "last Christmas", "at Easter", "on New Year's Eve",
// "Thanksgiving 2023", «на Різдво», «на Новий рік», «на Пасху».

// holidays are the holidays a question may name, each by the days it takes in year y:
// Christmas from its Eve to Boxing Day, the New Year from its Eve to the day after,
// Easter from Good Friday to Easter Monday, Thanksgiving (the United States') from the
// Thursday to the Sunday. «Різдво» is Ukraine's Christmas, on 25 December since 2023;
// «Рождество» Russia's, on 7 January. Ukrainian and Russian Easter are the Orthodox one.
// "Xmas" is read as Christmas (timeTokens).
var holidays = map[string]func(y int, loc *time.Location) Span{
	"christmas":         func(y int, loc *time.Location) Span { return dayRun(y, time.December, 24, 3, loc) },
	"orthodoxchristmas": func(y int, loc *time.Location) Span { return dayRun(y, time.January, 6, 3, loc) },
	"newyear":           func(y int, loc *time.Location) Span { return dayRun(y-1, time.December, 31, 2, loc) },
	"halloween":         func(y int, loc *time.Location) Span { return dayRun(y, time.October, 31, 1, loc) },
	"valentine":         func(y int, loc *time.Location) Span { return dayRun(y, time.February, 14, 1, loc) },
	"easter": func(y int, loc *time.Location) Span {
		m, d := easter(y)
		return dayRun(y, m, d-2, 4, loc)
	},
	"orthodoxeaster": func(y int, loc *time.Location) Span {
		m, d := orthodoxEaster(y)
		return dayRun(y, m, d-2, 4, loc)
	},
	"thanksgiving": func(y int, loc *time.Location) Span {
		first := time.Date(y, time.November, 1, 0, 0, 0, 0, loc)
		thu := 1 + (int(time.Thursday)-int(first.Weekday())+7)%7
		return dayRun(y, time.November, thu+21, 4, loc)
	},
}

// holidayDays are the single days a holiday's name with "Eve" or "Day" names: which day
// of its run, 0 the first.
var holidayDays = map[string]map[string]int{
	"christmas": {"eve": 0, "day": 1},
	"newyear":   {"eve": 0, "day": 1},
	"easter":    {"sunday": 2, "monday": 3},
}

// dayRun is n days from the dth of month m of year y (d may run over into the next month).
func dayRun(y int, m time.Month, d, n int, loc *time.Location) Span {
	from := time.Date(y, m, d, 0, 0, 0, 0, loc)
	return Span{From: from, To: from.AddDate(0, 0, n)}
}

// easter is the date of Easter Sunday in year y of the Gregorian calendar (the anonymous
// Gregorian computus).
func easter(y int) (time.Month, int) {
	a, b, c := y%19, y/100, y%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	n := h + l - 7*m + 114
	return time.Month(n / 31), n%31 + 1
}

// orthodoxEaster is the date of Orthodox Easter Sunday in year y, in the Gregorian
// calendar (Meeus's Julian computus, 13 days on in 1900–2099).
func orthodoxEaster(y int) (time.Month, int) {
	a, b, c := y%4, y%7, y%19
	d := (19*c + 15) % 30
	e := (2*a + 4*b - d + 34) % 7
	n := d + e + 114
	t := time.Date(y, time.Month(n/31), n%31+1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 13)
	return t.Month(), t.Day()
}

// holidayName reads a holiday's name at toks[i]: its key in holidays and how many tokens
// it takes ("new year" is two; "Valentine's Day" two); 0 for none.
func holidayName(toks []timeToken, i int) (string, int) {
	w := func(j int) string { return tokenAt(toks, i+j) }
	switch {
	case w(0) == "new" && w(1) == "year":
		return "newyear", 2
	case w(0) == "valentine" || w(0) == "valentines":
		if w(1) == "day" {
			return "valentine", 2
		}
		return "valentine", 1
	}
	if _, ok := holidays[w(0)]; ok {
		return w(0), 1
	}
	return "", 0
}

// holidayAt reads a holiday at toks[i] and how many tokens it takes: "last Christmas"
// (the latest one over by today), "this Easter" (the one going on, or else the next,
// unless the last ended within a month), "next Halloween", "Christmas 2022", "Christmas Eve", "New Year's
// Day", and a holiday after a preposition or a bound ("at Easter", "before Christmas":
// the latest one begun by today, or the next when the text speaks of what is to come).
// "In the new year" is the year to come, not the holiday.
func holidayAt(toks []timeToken, i int, now time.Time, ahead bool) (Span, int) {
	loc := now.Location()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	rel := tokenAt(toks, i)
	switch rel {
	case "last", "previous", "this", "next", "coming":
		i++
	default:
		rel = ""
	}
	name, n := holidayName(toks, i)
	if n == 0 {
		return Span{}, 0
	}
	at := yearly(func(y int) Span { return holidays[name](y, loc) })
	d, day := holidayDays[name][tokenAt(toks, i+n)]
	one := func(sp Span) Span { // "Christmas Eve": that day of it
		if day {
			return dayRun(sp.From.Year(), sp.From.Month(), sp.From.Day()+d, 1, loc)
		}
		return sp
	}
	if day {
		n++
	}
	y := at.latest(today)
	latest, next := at(y), at(y+1)
	taken := n
	if rel != "" {
		taken++
	}
	switch rel {
	case "next", "coming":
		return one(next), taken
	case "this":
		// the one going on, or else the next, unless the last ended in the month gone
		if !today.Before(latest.To) && today.Sub(latest.To) > 30*24*time.Hour {
			return one(next), taken
		}
		return one(latest), taken
	case "last", "previous":
		return one(at(at.over(today))), taken
	}
	// "Christmas 2022", "Easter of 2023"
	j := n
	if tokenAt(toks, i+j) == "of" {
		j++
	}
	if y, k := year(tokenAt(toks, i+j)); k == 1 {
		if name == "newyear" && tokenAt(toks, i+n-1) == "eve" {
			y++ // "New Year's Eve 2022" ends 2022
		}
		return one(at(y)), j + 1
	}
	prev := func(k int) string { return tokenAt(toks, i-k) }
	if name == "newyear" && (prev(1) == "in" || prev(1) == "the" && prev(2) == "in") {
		return Span{}, 0 // "in the new year"
	}
	prep := func(w string) bool { return isTimePreposition(w) && w != "of" || w == "for" } // not "the spirit of Christmas"
	said := prep(prev(1)) || prev(1) == "the" && prep(prev(2)) || i > 0 && boundWord(toks, i-1) != ""
	if !said {
		return Span{}, 0 // "Christmas presents", "the Easter bunny"
	}
	if ahead && !latest.To.After(today) {
		return one(next), n
	}
	return one(latest), n
}
