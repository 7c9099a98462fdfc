package memory

import (
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/mynah-ai/mynah/internal/stem"
)

// nicknameGroups are the names one person goes by: a Telegram profile says «Дмитро», and
// the chat, and a question about it, say «Діма». Each group is the full name in Ukrainian
// and Russian, then its usual short forms; a short form of two full names (Саша) is in
// both groups. Names are compared by their stems (see nameKey), so «Діму» and «Дімою» are
// «Діма». English short forms (Dan, Mike) are not here: they cost LoCoMo's half B 0.005
// of recall@10, and many are everyday words (Will, Bill, Rob, Pat, Sue).
var nicknameGroups = []string{
	"дмитро дмитрий діма дима",
	"олександр александр саша сашко шура",
	"олександра александра саша",
	"олексій алексей льоша лёша леша",
	"володимир владимир володя вова",
	"михайло михаил міша миша",
	"микола николай коля",
	"сергій сергей сергійко серёжа сережа",
	"іван иван ваня",
	"євген евгений женя",
	"євгенія евгения женя",
	"андрій андрей андрійко андрюша",
	"павло павел паша",
	"петро пётр петр петя",
	"юрій юрий юра",
	"віктор виктор вітя витя",
	"анатолій анатолий толя",
	"костянтин константин костя",
	"станіслав станислав стас",
	"ярослав ярик",
	"богдан бодя",
	"тимофій тимофей тима",
	"катерина екатерина катя",
	"олена елена лена",
	"ірина ирина іра ира ірочка",
	"наталія наталья наталя наташа",
	"тетяна татьяна таня",
	"юлія юлия юля",
	"марія мария маша марійка",
	"анна ганна аня",
	"ольга оля",
	"софія софия софійка соня",
	"анастасія анастасия настя",
	"дарина дарья даша",
	"світлана светлана світла света",
	"людмила люда",
	"валентина валя",
	"христина кристина христя",
	"вікторія виктория віка вика",
	"оксана ксюша",
	"ксенія ксения ксюша",
	"галина галя",
	"надія надежда надя",
	"любов любовь люба",
}

// nameKey is how a name is compared: the stem of its lower-case form (stem.Text), so
// that a Ukrainian or Russian name is the same name in any case it is said in.
func nameKey(w string) string { return stem.Text(strings.ToLower(w)) }

// nickname is a name of nicknameGroups and its nameKey.
type nickname struct{ name, key string }

// nicknameSets are nicknameGroups's names with their keys, group by group, and
// nicknameKeys maps each key to the groups it is in.
var nicknameSets, nicknameKeys = func() ([][]nickname, map[string][]int) {
	groups, keys := make([][]nickname, len(nicknameGroups)), map[string][]int{}
	for i, g := range nicknameGroups {
		for _, n := range strings.Fields(g) {
			k := nameKey(n)
			groups[i] = append(groups[i], nickname{n, k})
			keys[k] = append(keys[k], i)
		}
	}
	return groups, keys
}()

// askedNames are the words of a query as names are compared (nameKey): all of them, and
// those it capitalises (not only its first), in each language a word may be stemmed in
// (stem.Query). Only a capitalised word is taken for a nickname: «дома» (at home) has the
// stem of «Діма».
type askedNames struct{ words, names map[string]bool }

func askedNamesOf(query string) askedNames {
	a := askedNames{words: map[string]bool{}, names: map[string]bool{}}
	for _, w := range splitWords(query) {
		lower := strings.ToLower(w)
		keys := append(stem.Query(lower), lower)
		r := []rune(w)
		name := len(r) > 1 && unicode.IsUpper(r[0]) && !unicode.IsUpper(r[1]) // not an acronym
		for _, k := range keys {
			a.words[k] = true
			if name {
				a.names[k] = true
			}
		}
	}
	return a
}

// others returns the other names of the people the query names by one of theirs (see
// nicknameGroups): «Що Діма казав?» also asks of «Дмитро» and «Дмитрий».
func (a askedNames) others() []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range slices.Sorted(maps.Keys(a.names)) { // in one order: the same query, the same search
		for _, g := range nicknameKeys[k] {
			for _, n := range nicknameSets[g] {
				if !a.names[n.key] && !seen[n.key] {
					seen[n.key] = true
					out = append(out, n.name)
				}
			}
		}
	}
	return out
}

// sender reports whether the query names first, a sender's first name: in any case it
// is said in («Татові» for «Тато»), or, with nicknames, by another name of theirs.
func (a askedNames) sender(first string, nicknames bool) bool {
	if first == "" {
		return false
	}
	k := nameKey(first)
	if a.words[k] || a.words[strings.ToLower(first)] {
		return true
	}
	if !nicknames {
		return false
	}
	for _, g := range nicknameKeys[k] {
		if slices.ContainsFunc(nicknameSets[g], func(n nickname) bool { return a.names[n.key] }) {
			return true
		}
	}
	return false
}
