package memory

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/mynah-ai/mynah/internal/stem"
)

// kinds are everyday words for a kind of thing, each with the things of that kind people
// name instead: asked "what pets does Ann have?", a chat says "my dog". Words for the
// same kind share its list (see sameKinds).
var kinds = withSameKinds(map[string][]string{
	"pet":        {"dog", "dogs", "puppy", "cat", "cats", "kitten", "hamster", "rabbit", "bunny", "parrot", "turtle", "snake", "lizard", "goldfish"},
	"instrument": {"guitar", "piano", "violin", "drums", "flute", "saxophone", "cello", "trumpet", "ukulele", "clarinet", "harp", "banjo"},
	"sport":      {"football", "soccer", "basketball", "baseball", "tennis", "volleyball", "hockey", "golf", "swimming", "cycling", "boxing", "rugby", "cricket", "skiing", "surfing", "badminton"},
	"console":    {"nintendo", "playstation", "xbox", "wii", "switch", "ps5", "ps4"},
	"drink":      {"coffee", "tea", "beer", "wine", "juice", "soda", "cocktail", "smoothie"},
	"fruit":      {"apple", "apples", "banana", "bananas", "orange", "mango", "strawberries", "grapes", "peach", "pear", "cherries", "berries"},
	"vehicle":    {"car", "truck", "motorcycle", "bike", "van", "suv", "scooter"},
	"language":   {"english", "spanish", "french", "german", "italian", "chinese", "japanese", "russian", "portuguese", "arabic", "korean"},
	"relative":   {"mother", "mom", "father", "dad", "sister", "brother", "son", "daughter", "grandma", "grandpa", "aunt", "uncle", "cousin"},
	"sibling":    {"sister", "brother", "sisters", "brothers"},
	"parent":     {"mother", "mom", "father", "dad"},
	"kid":        {"son", "daughter", "sons", "daughters", "children"},
	"child":      {"son", "daughter", "sons", "daughters", "kids"},
	"art":        {"painting", "paint", "drawing", "sculpture", "pottery", "photography", "sketch"},
	"craft":      {"knitting", "sewing", "pottery", "woodworking", "crochet", "quilting"},
	"genre":      {"rock", "jazz", "pop", "classical", "country", "hip-hop", "fantasy", "mystery", "romance", "horror", "comedy", "thriller"},
	"flower":     {"roses", "rose", "tulips", "sunflowers", "lilies", "daisies", "orchids"},
	"meat":       {"chicken", "beef", "pork", "steak", "lamb", "turkey", "bacon", "ham", "sausage", "veal"},
	"dessert":    {"cake", "pie", "cookies", "brownies", "cupcakes", "pudding", "cheesecake", "tiramisu", "chocolate", "cookie", "muffins"},
	"vegetable":  {"carrots", "broccoli", "spinach", "potatoes", "tomatoes", "lettuce", "peppers", "onions", "cucumbers", "zucchini", "kale"},
	"snack":      {"chips", "popcorn", "pretzels", "nuts", "crackers", "granola", "cookies"},
	"cuisine":    {"italian", "mexican", "chinese", "japanese", "thai", "indian", "french", "greek", "korean", "vietnamese"},
	"exercise":   {"yoga", "running", "jogging", "pilates", "weightlifting", "gym", "swimming", "cycling", "hiking", "cardio", "stretching", "squats", "boxing"},
	"hobby":      {"painting", "reading", "hiking", "cooking", "baking", "gardening", "photography", "knitting", "fishing", "camping", "writing", "drawing", "gaming", "yoga", "dancing", "pottery"},
	"activity":   {"hiking", "camping", "swimming", "painting", "cooking", "baking", "reading", "biking", "running", "yoga", "dancing", "fishing", "gardening", "pottery", "museum", "beach", "picnic"},
	"job":        {"teacher", "nurse", "doctor", "engineer", "lawyer", "counselor", "developer", "programmer", "designer", "chef", "writer", "artist", "firefighter", "accountant", "manager", "therapist", "volunteer", "intern"},
	"career":     {"teacher", "nurse", "doctor", "engineer", "lawyer", "counselor", "counseling", "developer", "programmer", "designer", "chef", "writer", "artist", "firefighter", "accountant", "therapist", "business"},
	"subject":    {"math", "physics", "chemistry", "biology", "history", "literature", "english", "economics", "psychology", "art"},
	"holiday":    {"christmas", "thanksgiving", "easter", "halloween", "hanukkah", "diwali", "passover", "ramadan"},
	"color":      {"red", "blue", "green", "yellow", "purple", "pink", "orange", "black", "white", "brown", "gray", "grey"},
	"game":       {"chess", "monopoly", "scrabble", "catan", "poker", "sudoku", "checkers", "minecraft", "fortnite", "zelda", "tetris"},
	"country": slices.Concat([]string{"usa", "canada", "mexico", "brazil", "england", "france", "germany", "italy", "spain",
		"portugal", "greece", "ireland", "japan", "china", "india", "korea", "thailand", "australia", "egypt", "turkey", "sweden",
		"norway", "netherlands", "switzerland", "poland", "uk", "scotland", "wales", "denmark", "finland", "austria", "belgium",
		"czechia", "hungary", "croatia", "iceland", "indonesia", "vietnam", "philippines", "peru", "argentina", "chile",
		"colombia", "cuba", "morocco", "kenya", "israel", "ukraine", "russia"},
		worldCities), // "which countries has Deborah been to?" is answered "I was in Rio"
	"food":       {"pizza", "pasta", "sushi", "tacos", "burgers", "burger", "salad", "soup", "curry", "ramen", "sandwich", "chicken", "steak", "pie", "pastries", "noodles", "rice"},
	"clothing":   {"shirt", "shirts", "jacket", "dress", "jeans", "shoes", "sweater", "boots", "coat", "pants", "skirt", "blazer", "hoodie", "sneakers", "scarf", "suit"},
	"shoe":       {"sneakers", "boots", "sandals", "heels", "loafers", "slippers", "trainers"},
	"jewelry":    {"necklace", "bracelet", "earrings", "ring", "watch", "pendant", "brooch"},
	"plant":      {"fern", "succulent", "succulents", "cactus", "orchid", "basil", "monstera", "ivy", "bonsai", "tomatoes", "herbs"},
	"herb":       {"basil", "mint", "rosemary", "thyme", "parsley", "cilantro", "oregano", "dill", "sage"},
	"doctor":     {"dermatologist", "dentist", "physician", "therapist", "cardiologist", "pediatrician", "surgeon", "gynecologist", "optometrist", "chiropractor", "psychiatrist", "orthodontist", "allergist"},
	"fish":       {"goldfish", "betta", "guppy", "guppies", "tetra", "tetras", "angelfish", "cichlid", "koi", "salmon", "tuna", "cod", "trout"},
	"bird":       {"parrot", "eagle", "owl", "hawk", "robin", "sparrow", "hummingbird", "cardinal", "pigeon", "parakeet", "woodpecker", "heron", "bluebird"},
	"tree":       {"oak", "pine", "maple", "birch", "willow", "cedar", "palm", "apple", "cherry", "spruce"},
	"furniture":  {"sofa", "couch", "table", "chair", "desk", "bed", "dresser", "bookshelf", "shelf", "wardrobe", "cabinet", "ottoman"},
	"appliance":  {"fridge", "refrigerator", "oven", "microwave", "dishwasher", "washer", "dryer", "blender", "toaster", "vacuum", "kettle", "mixer"},
	"device":     {"phone", "laptop", "tablet", "ipad", "iphone", "smartwatch", "kindle", "headphones", "earbuds", "camera", "console", "drone", "fitbit"},
	"app":        {"instagram", "facebook", "tiktok", "twitter", "youtube", "spotify", "netflix", "whatsapp", "duolingo", "strava", "uber", "snapchat"},
	"supplement": {"vitamin", "vitamins", "protein", "magnesium", "zinc", "iron", "creatine", "probiotics", "collagen"},
	"city":       slices.Concat(worldCities, usCities),
	"state": slices.Concat([]string{"alabama", "alaska", "arizona", "arkansas", "california", "colorado", "connecticut",
		"delaware", "florida", "georgia", "hawaii", "idaho", "illinois", "indiana", "iowa", "kansas", "kentucky", "louisiana",
		"maine", "maryland", "massachusetts", "michigan", "minnesota", "mississippi", "missouri", "montana", "nebraska", "nevada",
		"hampshire", "jersey", "carolina", "dakota", "ohio", "oklahoma", "oregon", "pennsylvania", "tennessee", "texas", "utah",
		"vermont", "virginia", "washington", "wisconsin", "wyoming"},
		usCities), // "what state did Nate visit?" is answered "the beach in Tampa"
	"dance": {"salsa", "ballet", "tango", "hip-hop", "contemporary", "jazz", "swing", "waltz", "breakdance"},
})

// worldCities and usCities are the cities people name when asked which city, country or
// (American) state: one word each, the one that tells a city of two ("san francisco",
// "new york"). Not "nice": an everyday word.
var (
	worldCities = []string{"paris", "london", "rome", "tokyo", "berlin", "madrid", "barcelona", "amsterdam", "prague", "vienna",
		"dublin", "edinburgh", "lisbon", "athens", "venice", "florence", "milan", "istanbul", "budapest", "copenhagen", "stockholm",
		"munich", "seoul", "beijing", "shanghai", "bangkok", "singapore", "sydney", "melbourne", "toronto", "vancouver", "montreal",
		"rio", "dubai", "mumbai", "delhi", "cairo"}
	usCities = []string{"chicago", "boston", "seattle", "portland", "denver", "austin", "dallas", "houston", "miami", "atlanta",
		"nashville", "orleans", "vegas", "angeles", "francisco", "diego", "york", "nyc", "philadelphia", "detroit", "orlando",
		"honolulu", "tampa", "phoenix", "sacramento", "pittsburgh", "baltimore", "minneapolis"}
)

// sameKinds are the other words for a kind of kinds: "what beverages…" asks for drinks.
var sameKinds = map[string]string{"beverage": "drink", "clothes": "clothing", "workout": "exercise", "gadget": "device", "specialist": "doctor"}

// withSameKinds adds to kinds the words of sameKinds, each with its kind's list.
func withSameKinds(kinds map[string][]string) map[string][]string {
	for w, k := range sameKinds {
		kinds[w] = kinds[k]
	}
	return kinds
}

// severalOnly are the kinds whose things are everyday words of any chat ("what activity
// did Ann do after the trek?" is answered in other words than hiking or swimming): they
// weigh only where a query asks for several ("what activities…"). A word of sameKinds
// counts as its kind ("workout" as exercise).
var severalOnly = map[string]bool{"activity": true, "hobby": true, "game": true, "color": true, "subject": true,
	"job": true, "career": true, "exercise": true, "country": true, "dance": true, "food": true}

// kindOfWords may stand between what, which or how many and a kind: "what kind of
// flowers", "how many items of clothing".
var kindOfWords = map[string]bool{"kind": true, "kinds": true, "type": true, "types": true, "sort": true, "sorts": true, "of": true,
	"item": true, "items": true, "piece": true, "pieces": true}

// cyrillicKinds are kinds as Ukrainian and Russian questions ask for them: the forms of
// the kind's word a question uses, and the things of that kind in both languages (the
// store stems them, so that «собака» finds «собаку» and «собаки»).
var cyrillicKinds = []struct{ forms, things []string }{
	{[]string{"тварина", "тварини", "тварин", "улюбленці", "улюбленців", "вихованці", "вихованців",
		"животное", "животные", "животных", "питомец", "питомцы", "питомцев"},
		[]string{"собака", "пес", "цуценя", "кіт", "кішка", "кошеня", "хом'як", "кролик", "папуга", "черепаха", "змія",
			"пёс", "щенок", "кот", "кошка", "котёнок", "хомяк", "попугай", "змея"}},
	{[]string{"інструмент", "інструменти", "інструментах", "інструментів", "инструмент", "инструменты", "инструментах", "инструментов"},
		[]string{"гітара", "піаніно", "скрипка", "барабани", "флейта", "саксофон", "укулеле", "гитара", "пианино", "барабаны"}},
	{[]string{"спорт", "спорту", "спортом", "спорта"},
		[]string{"футбол", "баскетбол", "теніс", "волейбол", "хокей", "плавання", "бокс", "біг", "теннис", "хоккей", "плавание", "бег"}},
	{[]string{"мова", "мови", "мов", "мовами", "мовою", "язык", "языки", "языков", "языками", "языке"},
		[]string{"англійська", "німецька", "французька", "іспанська", "польська", "італійська", "японська",
			"английский", "немецкий", "французский", "испанский", "польский", "итальянский", "японский"}},
	{[]string{"родичі", "родичів", "рідні", "рідних", "родственники", "родственников", "родня"},
		[]string{"мама", "тато", "батько", "брат", "сестра", "бабуся", "дідусь", "тітка", "дядько",
			"папа", "отец", "мать", "бабушка", "дедушка", "тётя", "дядя"}},
	{[]string{"діти", "дітей", "дітьми", "дети", "детей", "детьми"},
		[]string{"син", "донька", "дочка", "сын", "дочь"}},
	{[]string{"напої", "напоїв", "напій", "напиток", "напитки", "напитков"},
		[]string{"кава", "чай", "пиво", "вино", "сік", "кофе", "сок"}},
	{[]string{"місто", "міста", "міст", "містах", "містам", "город", "города", "городов", "городах", "городам"}, cyrillicCities},
	{[]string{"країна", "країни", "країн", "країнах", "країнам", "страна", "страны", "стран", "странах", "странам"},
		slices.Concat([]string{"україна", "польща", "німеччина", "франція", "італія", "іспанія", "туреччина", "греція", "чехія",
			"японія", "сша", "украина", "польша", "германия", "франция", "италия", "испания", "турция", "греция", "чехия",
			"япония"}, cyrillicCities)},
}

// cyrillicCities are the cities people name in Ukrainian and Russian when asked which
// city or country, as worldCities are in English.
var cyrillicCities = []string{"київ", "львів", "одеса", "харків", "дніпро", "варшава", "краків", "прага", "берлін", "париж",
	"рим", "лондон", "відень", "будапешт", "стамбул", "барселона", "киев", "львов", "одесса", "харьков", "днепр", "краков",
	"берлин", "вена", "москва", "петербург"}

// cyrillicAsks are the words that ask for things (which, how many) in Ukrainian and
// Russian, in every form; «що за», «что за» are asked by their «за».
var cyrillicAsks = func() map[string]bool {
	m := map[string]bool{"скільки": true, "сколько": true, "за": true}
	for _, w := range strings.Fields("який яка яке які якого якої яких якій якою яку яким якими " +
		"какой какая какое какие какого каких каком какую каким какими") {
		m[w] = true
	}
	return m
}()

// cyrillicKindOf maps each form of cyrillicKinds' kind words to the kind's things.
var cyrillicKindOf = func() map[string][]string {
	m := map[string][]string{}
	for _, k := range cyrillicKinds {
		for _, f := range k.forms {
			m[f] = k.things
		}
	}
	return m
}()

// cyrillicKind returns the things of the kind words[i] asks for, a Ukrainian or Russian
// form of a kind's word with an asking word at most three words before it («які тварини»,
// «скільки в неї дітей», «что за инструмент»); nil when none.
func cyrillicKind(words []string, i int) []string {
	things := cyrillicKindOf[words[i]]
	if things == nil {
		return nil
	}
	for j := max(0, i-3); j < i; j++ {
		if cyrillicAsks[words[j]] {
			return things
		}
	}
	return nil
}

// kindWords returns the things of the kinds a query asks for, without its own words: a
// kind asked for as several ("what pets", "how many instruments") or with what or which
// ("what console", "which kind of flower"); not one named as such ("her pet snake", "a
// search for a pet"), whose messages say the kind's word. In Ukrainian and Russian, a
// kind asked with which or how many (see cyrillicKind). words are the query's, lower-cased;
// the things go into more.
func kindWords(words []string, more *extra) {
	for i, w := range words {
		more.add(cyrillicKind(words, i)...)
		k, plural := kindOf(w)
		if k == "" {
			continue
		}
		j := i - 1
		for j >= 0 && kindOfWords[words[j]] {
			j--
		}
		asked := j >= 0 && (words[j] == "what" || words[j] == "which" || words[j] == "many")
		if plural && askedBefore(words, i) || !severalOnly[cmp.Or(sameKinds[k], k)] && asked {
			more.add(kinds[k]...)
		}
	}
}

// severalThings returns the things of the kinds a query asks for as several ("what pets",
// "how many countries"; see kindWords), but the query's own words: English kinds only
// (see Options.SearchKinds). words are the query's, lower-cased.
func severalThings(words []string) []string {
	var asked []string // the kinds asked for as several
	for i, w := range words {
		if k, plural := kindOf(w); k != "" && plural && askedBefore(words, i) {
			asked = append(asked, k)
		}
	}
	things := lookUp(asked, func(k string) []string { return kinds[k] })
	return slices.DeleteFunc(things, func(t string) bool { return slices.Contains(words, t) })
}

// extra collects the words added to a query's: each once, and none of its own.
type extra struct {
	have map[string]bool
	out  []string
}

// moreWords returns the words of text, lower-cased, and an extra for them that also
// leaves out have.
func moreWords(text string, have ...string) ([]string, *extra) {
	words := splitWords(strings.ToLower(text))
	e := &extra{have: make(map[string]bool, len(words)+len(have))}
	for _, w := range slices.Concat(words, have) {
		e.have[w] = true
	}
	return words, e
}

// add adds the words of vs that are not there yet.
func (e *extra) add(vs ...string) {
	for _, v := range vs {
		if !e.have[v] {
			e.have[v] = true
			e.out = append(e.out, v)
		}
	}
}

// askedBefore reports whether one of the three words before words[i] asks for things
// (what, which, how many): "what outdoor activities", not "colors and patterns".
func askedBefore(words []string, i int) bool {
	for j := max(0, i-3); j < i; j++ {
		if words[j] == "what" || words[j] == "which" || words[j] == "many" {
			return true
		}
	}
	return false
}

// kindOf returns the kind w names, and whether as several; "" when none.
func kindOf(w string) (string, bool) {
	if _, ok := kinds[w]; ok {
		return w, false
	}
	switch {
	case w == "children":
		return "child", true
	case strings.HasSuffix(w, "ies") && kinds[w[:len(w)-3]+"y"] != nil: // activities, hobbies
		return w[:len(w)-3] + "y", true
	case strings.HasSuffix(w, "es") && kinds[w[:len(w)-2]] != nil: // dishes
		return w[:len(w)-2], true
	case strings.HasSuffix(w, "s") && kinds[w[:len(w)-1]] != nil: // every kind's plural but child's
		return w[:len(w)-1], true
	}
	return "", false
}

// sameWords are groups of words that people use for the same thing in a chat: the
// everyday short forms ("gf", "bday", "mom") and the British spellings. Not the words for
// a thing that a chat says often anyway: in a chat about dogs, "pup" and "puppy" beside
// "dog", or "fav" beside "favorite", weighed the messages that say both over the one that
// answers (LoCoMo's dog owners' conversation lost more single-hop questions than it won
// multi-hop ones; the photo group changed nothing and was left out too).
var sameWords = [][]string{
	{"girlfriend", "gf"}, {"boyfriend", "bf"}, {"birthday", "bday"},
	{"mother", "mom", "mum", "mommy"}, {"father", "dad", "daddy"}, {"grandmother", "grandma", "granny", "nana"},
	{"grandfather", "grandpa"}, {"brother", "bro"}, {"sister", "sis"}, {"husband", "hubby"},
	{"children", "kids"}, {"child", "kid"}, {"television", "tv"}, {"university", "uni"},
	{"congratulations", "congrats"}, {"information", "info"}, {"movie", "film"}, {"video", "vid"},
	{"conversation", "convo"}, {"favorite", "favourite"}, {"color", "colour"}, {"theater", "theatre"},
}

// sameAs maps each word of sameWords, and its plural by s, to its group.
var sameAs = func() map[string][]string {
	m := map[string][]string{}
	for _, g := range sameWords {
		for _, w := range g {
			m[w] = g
			if !strings.HasSuffix(w, "s") {
				m[w+"s"] = g
			}
		}
	}
	return m
}()

// variants adds to more the other words of the groups of sameWords the query's words
// (lower-cased) are in: asked about Ann's girlfriend, her chat says "my gf".
func variants(words []string, more *extra) {
	for _, w := range words {
		for _, v := range sameAs[w] {
			if w != v+"s" { // not "movie" for "movies": the same word to the index
				more.add(v)
			}
		}
	}
}

// compounds returns each two neighbouring English words of text (lower-cased; Latin
// letters only, neither a stop word, each of three letters or more) written as one, as
// English chats write many compounds: asked about a road trip, ice cream or a video game,
// a chat says "roadtrip", "icecream", "videogame". A pair no chat writes as one
// ("brotherslike") matches nothing and costs a lookup; it is never read as a typo (see
// stem.Typos).
func compounds(text string) []string {
	words := splitWords(strings.ToLower(text))
	stop := stopSet()
	part := func(w string) bool {
		return len(w) >= 3 && !stop[w] && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == ""
	}
	var out []string
	for i := 1; i < len(words); i++ {
		if a, b := words[i-1], words[i]; part(a) && part(b) && !slices.Contains(out, a+b) {
			out = append(out, a+b)
		}
	}
	return out
}

// pastForms are the past forms of English verbs that do not take -ed, by the form a
// question asks with ("what did Ann buy?"): a chat tells what was done in the past
// ("I bought a bike"), and stemming does not join the two.
var pastForms = map[string][]string{
	"buy": {"bought"}, "eat": {"ate", "eaten"}, "see": {"saw", "seen"},
	"make": {"made"}, "take": {"took", "taken"}, "give": {"gave", "given"},
	"meet": {"met"}, "run": {"ran"}, "win": {"won"}, "pay": {"paid"}, "sell": {"sold"},
	"think": {"thought"}, "write": {"wrote", "written"}, "leave": {"left"}, "fly": {"flew", "flown"},
	"drive": {"drove", "driven"}, "find": {"found"}, "lose": {"lost"}, "bring": {"brought"},
	"teach": {"taught"}, "catch": {"caught"}, "feel": {"felt"}, "keep": {"kept"}, "sleep": {"slept"},
	"spend": {"spent"}, "build": {"built"}, "send": {"sent"}, "begin": {"began", "begun"},
	"drink": {"drank", "drunk"}, "sing": {"sang", "sung"}, "swim": {"swam", "swum"},
	"break": {"broke", "broken"}, "choose": {"chose", "chosen"}, "wear": {"wore", "worn"},
	"grow": {"grew", "grown"}, "know": {"knew", "known"}, "throw": {"threw", "thrown"},
	"draw": {"drew", "drawn"}, "fall": {"fell", "fallen"}, "hold": {"held"}, "stand": {"stood"},
	"sit": {"sat"}, "hear": {"heard"}, "become": {"became"}, "come": {"came"},
	"forget": {"forgot", "forgotten"}, "ride": {"rode", "ridden"}, "wake": {"woke", "woken"},
	"lead": {"led"}, "lend": {"lent"}, "shoot": {"shot"}, "steal": {"stole", "stolen"},
	"dig": {"dug"}, "feed": {"fed"}, "fight": {"fought"}, "hide": {"hid", "hidden"},
	"freeze": {"froze", "frozen"}, "tell": {"told"}, "say": {"said"},
	"speak": {"spoke", "spoken"}, "hang": {"hung"}, "bite": {"bit", "bitten"}, "mean": {"meant"},
}

// pastAsks are the words that ask of the past.
var pastAsks = map[string]bool{"did": true, "didn": true, "has": true, "have": true, "had": true, "hasn": true, "haven": true}

// pastOf returns the past forms of the verbs of text, a question that asks of the past
// ("what did Ann buy?", "where has Bob been?"; see pastForms), that its words lack. A
// question in the present asks of the present: "where does John get his ideas?".
func pastOf(text string) []string {
	words := splitWords(strings.ToLower(text))
	if !slices.ContainsFunc(words, func(w string) bool { return pastAsks[w] }) {
		return nil
	}
	return lookUp(words, func(w string) []string { return pastForms[w] })
}

// lookUp returns the words that table gives for each of words, but words themselves,
// each once, in order.
func lookUp(words []string, table func(w string) []string) []string {
	var out []string
	for _, w := range words {
		for _, t := range table(w) {
			if !slices.Contains(words, t) && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// within are places, each by its names in English, Ukrainian and Russian, with the places
// in them that people name instead: asked "when did Ann visit Italy?" («коли Олена була в
// Італії?»), a chat says "Rome was amazing" («Рим був чудовий»; see Options.Places).
var within = func() []struct{ names, places []string } {
	england := []string{"london", "manchester", "liverpool", "oxford", "cambridge"}
	return []struct{ names, places []string }{
		{[]string{"france", "франція", "франция"}, []string{"paris", "lyon", "marseille", "bordeaux", "provence", "париж", "ліон", "лион", "марсель", "ніцца", "ницца"}},
		{[]string{"italy", "італія", "италия"}, []string{"rome", "venice", "florence", "milan", "naples", "tuscany", "sicily", "рим", "венеція", "венеция", "флоренція", "флоренция", "мілан", "милан", "неаполь"}},
		{[]string{"spain", "іспанія", "испания"}, []string{"madrid", "barcelona", "seville", "valencia", "ibiza", "мадрид", "барселона", "валенсія", "валенсия"}},
		{[]string{"germany", "німеччина", "германия"}, []string{"berlin", "munich", "hamburg", "frankfurt", "cologne", "берлін", "берлин", "мюнхен", "гамбург"}},
		{[]string{"england", "англія", "англия"}, slices.Concat(england, []string{"лондон"})},
		{[]string{"uk", "britain", "британія", "британия"}, slices.Concat(england, []string{"edinburgh", "scotland", "wales", "лондон"})},
		{[]string{"scotland"}, []string{"edinburgh", "glasgow", "highlands"}},
		{[]string{"ireland"}, []string{"dublin", "galway"}},
		{[]string{"japan", "японія", "япония"}, []string{"tokyo", "kyoto", "osaka", "hokkaido", "okinawa", "токіо", "токио", "кіото", "киото", "осака"}},
		{[]string{"china"}, []string{"beijing", "shanghai", "hong", "shenzhen"}},
		{[]string{"canada"}, []string{"toronto", "vancouver", "montreal", "ottawa", "calgary", "quebec", "jasper", "banff"}},
		{[]string{"mexico"}, []string{"cancun", "tulum", "oaxaca", "guadalajara"}},
		{[]string{"brazil"}, []string{"rio", "janeiro", "paulo", "salvador"}},
		{[]string{"greece", "греція", "греция"}, []string{"athens", "santorini", "crete", "mykonos", "афіни", "афины", "крит"}},
		{[]string{"portugal"}, []string{"lisbon", "porto", "algarve", "madeira"}},
		{[]string{"netherlands"}, []string{"amsterdam", "rotterdam", "hague"}},
		{[]string{"australia"}, []string{"sydney", "melbourne", "brisbane", "perth"}},
		{[]string{"thailand"}, []string{"bangkok", "phuket", "chiang"}},
		{[]string{"turkey", "туреччина", "турция"}, []string{"istanbul", "ankara", "cappadocia", "стамбул", "анталія", "анталья", "анкара"}},
		{[]string{"india"}, []string{"mumbai", "delhi", "goa", "bangalore"}},
		{[]string{"indonesia"}, []string{"bali", "jakarta"}},
		{[]string{"korea"}, []string{"seoul", "busan"}},
		{[]string{"usa"}, slices.Concat(usCities, []string{"california", "texas", "florida", "hawaii"})}, // not "america": South America
		{[]string{"california"}, []string{"angeles", "francisco", "diego", "sacramento", "yosemite"}},
		{[]string{"florida"}, []string{"miami", "orlando", "tampa"}},
		{[]string{"texas"}, []string{"austin", "dallas", "houston"}},
		{[]string{"україна", "украина"}, []string{"київ", "львів", "одеса", "харків", "дніпро", "карпати", "киев", "львов", "одесса", "харьков", "днепр", "карпаты"}},
		{[]string{"польща", "польша"}, []string{"варшава", "краків", "вроцлав", "гданськ", "краков", "гданьск"}},
		{[]string{"чехія", "чехия"}, []string{"прага"}},
		{[]string{"єгипет", "египет"}, []string{"каїр", "хургада", "шарм", "каир"}},
		{[]string{"грузія", "грузия"}, []string{"тбілісі", "батумі", "тбилиси", "батуми"}},
	}
}()

// placesIn maps each of within's names, as the store looks it up (stem.Query: a Ukrainian
// or Russian name by its stems, so that «Італії» and «Італію» find «Італія»'s places), to
// its places. Built on the first search that asks (stemming its names costs ~130 KB and
// 0.2 ms), not when a process starts.
var placesIn = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	for _, p := range within {
		for _, n := range p.names {
			for _, s := range stem.Query(n) {
				m[s] = p.places
			}
		}
	}
	return m
})

// placeWords adds to more the places in each place the query names (see within).
func placeWords(words []string, more *extra) {
	for _, w := range words {
		for _, s := range stem.Query(w) {
			more.add(placesIn()[s]...)
		}
	}
}
