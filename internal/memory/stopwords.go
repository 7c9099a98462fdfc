package memory

import "sync"

// stopSet is stopWords built once and shared (every Searcher, ParseTime): read only.
var stopSet = sync.OnceValue(stopWords)

// StopWords returns the words search drops from queries (a new map each call), for what
// measures search from outside it: a reference ranking, the benchmark's keyword reach.
func StopWords() map[string]bool { return stopWords() }

// stopWords are dropped from search queries: they match most messages, so they add
// nothing to ranking and cost the most to look up (a term in 94% of rows made one query
// take ~200 ms). Lists in lower case, per language:
//
//   - English: the Snowball English stop word list (snowballstem.org/algorithms/english,
//     BSD licence), with modal verbs, a few contractions' pieces ("didn") and chat fillers
//     ("okay", "hey").
//   - Russian: the Snowball Russian stop word list (snowballstem.org/algorithms/russian).
//   - Ukrainian: after the stopwords-iso Ukrainian list (github.com/stopwords-iso/
//     stopwords-uk, MIT licence), trimmed to function words.
//
// Words that carry meaning in a chat ("home", "work", "never") are not here on purpose.
func stopWords() map[string]bool {
	set := make(map[string]bool, 600)
	for _, list := range [][]string{englishStopWords, russianStopWords, ukrainianStopWords} {
		for _, w := range list {
			set[w] = true
		}
	}
	return set
}

var englishStopWords = []string{
	"i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours",
	"yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself",
	"it", "its", "itself", "they", "them", "their", "theirs", "themselves", "what", "which",
	"who", "whom", "whose", "this", "that", "these", "those", "am", "is", "are", "was", "were",
	"be", "been", "being", "have", "has", "had", "having", "do", "does", "did", "doing",
	"would", "should", "could", "ought", "will", "shall", "can", "may", "might", "must",
	"a", "an", "the", "and", "but", "if", "or", "because", "as", "until", "while", "of", "at",
	"by", "for", "with", "about", "against", "between", "into", "through", "during", "before",
	"after", "above", "below", "to", "from", "up", "down", "in", "out", "on", "off", "over",
	"under", "again", "further", "then", "once", "here", "there", "when", "where", "why",
	"how", "all", "any", "both", "each", "few", "more", "most", "other", "some", "such", "no",
	"nor", "not", "only", "own", "same", "so", "than", "too", "very", "s", "t", "d", "ll",
	"m", "re", "ve", "don", "didn", "doesn", "isn", "wasn", "aren", "weren", "won", "wouldn",
	"hasn", "haven", "hadn", "couldn", "shouldn", "also", "just", "yet", "ever", "us",
	"yes", "okay", "ok", "oh", "hey", "hi",
}

var russianStopWords = []string{
	"и", "в", "во", "не", "что", "он", "на", "я", "с", "со", "как", "а", "то", "все", "она",
	"так", "его", "но", "да", "ты", "к", "у", "же", "вы", "за", "бы", "по", "только", "ее",
	"её", "мне", "было", "вот", "от", "меня", "еще", "ещё", "нет", "о", "из", "ему", "теперь",
	"когда", "даже", "ну", "вдруг", "ли", "если", "уже", "или", "ни", "быть", "был", "него",
	"до", "вас", "нибудь", "опять", "уж", "вам", "ведь", "там", "потом", "себя", "ничего",
	"ей", "может", "они", "тут", "где", "есть", "надо", "ней", "для", "мы", "тебя", "их",
	"чем", "была", "сам", "чтоб", "без", "будто", "чего", "раз", "тоже", "себе", "под",
	"будет", "ж", "тогда", "кто", "этот", "того", "потому", "этого", "какой", "совсем",
	"ним", "здесь", "этом", "один", "почти", "мой", "тем", "чтобы", "нее", "неё", "сейчас",
	"были", "куда", "зачем", "всех", "никогда", "можно", "при", "наконец", "два", "об",
	"другой", "хоть", "после", "над", "больше", "тот", "через", "эти", "нас", "про", "всего",
	"них", "какая", "много", "разве", "три", "эту", "моя", "впрочем", "хорошо", "свою",
	"этой", "перед", "иногда", "лучше", "чуть", "том", "нельзя", "такой", "им", "более",
	"всегда", "конечно", "всю", "между", "это", "эта", "мой", "твой", "наш", "ваш",
}

var ukrainianStopWords = []string{
	"і", "й", "та", "в", "у", "на", "з", "із", "зі", "до", "від", "за", "по", "про", "для",
	"без", "під", "над", "при", "через", "між", "після", "перед", "о", "об", "а", "але",
	"або", "чи", "що", "як", "коли", "де", "куди", "звідки", "чому", "навіщо", "хто", "який",
	"яка", "яке", "які", "якого", "якої", "яких", "це", "цей", "ця", "ці", "цього", "цієї",
	"цих", "той", "та", "те", "ті", "того", "тієї", "тих", "я", "ти", "він", "вона", "воно",
	"ми", "ви", "вони", "мене", "тебе", "його", "її", "нас", "вас", "їх", "мені", "тобі",
	"йому", "їй", "нам", "вам", "їм", "мій", "моя", "моє", "мої", "твій", "твоя", "наш",
	"ваш", "свій", "своя", "себе", "собі", "не", "ні", "так", "також", "теж", "вже", "ще",
	"лише", "тільки", "навіть", "ж", "же", "би", "б", "ось", "от", "тут", "там", "тоді",
	"зараз", "потім", "був", "була", "було", "були", "бути", "є", "буде", "будуть", "мав",
	"мала", "може", "можна", "треба", "якщо", "щоб", "бо", "ну", "адже", "хоча", "чим",
}
