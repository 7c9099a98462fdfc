package stem

import (
	"slices"
	"strings"
	"testing"
)

// TestFamilies: the forms of a word, as a chat writes them, share one stem, and a query
// for any of them finds the others.
func TestFamilies(t *testing.T) {
	const russianFrom = 19 // the families from here on are Russian
	for i, family := range []string{
		// Ukrainian nouns.
		"машина машини машині машину машиною машин машинами машинах",
		"Львів Львова Львові Львовом",
		"Київ Києва Києві Києвом",
		"лікар лікаря лікарю лікареві лікарем лікарі лікарів лікарям лікарями лікарях",
		"потяг потяга потягу потягом потязі потяги потягів потягами",
		"історія історії історію історією історіями",
		"кінь коня коневі конем коні коней",
		"рік року році роком роки років",
		"пам'ять пам’ять памʼять пам'яті",
		"радість радості радістю",
		"ґудзик гудзика ґудзиком ґудзики",
		"рука руки руці руку рукою руками",
		"дорога дороги дорозі дорогу дорогою",
		// Ukrainian adjectives and verbs.
		"новий нового новому новим новій нову новою нові нових новими",
		"синій синього синьому синім синя синю синьою сині",
		"читати читав читала читали читаю читаєш читає читаємо читаєте читають читаючи читатиму",
		"купувати купую купуєш купує купують купував купувала",
		"навчатися навчаюся навчаєшся навчається навчався навчалася навчалися",
		"робити робив робила робили робиш робить робимо робите",
		// Russian.
		"машина машины машине машину машиной машин машинами",
		"Киев Киева Киеву Киевом Киеве",
		"ёлка ёлки елке ёлкой",
		"врач врача врачу врачом враче врачи врачей",
		"читать читал читала читали читаю читаешь читает читаем",
	} {
		forms := strings.Fields(family)
		lang := ukrainianLang
		if i >= russianFrom {
			lang = russianLang
		}
		first := rewrite(forms[0], lang)
		for _, f := range forms[1:] {
			if got := rewrite(f, lang); got != first {
				t.Errorf("%s: %q stems to %q, %q to %q", family, forms[0], first, f, got)
			}
		}
		for _, f := range forms {
			if q := Query(f); !slices.Contains(q, first) {
				t.Errorf("%s: a query for %q looks up %q, not %q", family, f, q, first)
			}
		}
	}
}

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// English and other Latin text is left to the index's tokenizer, byte for byte.
		{"She was running to the café, didn't she?", "She was running to the café, didn't she?"},
		{"", ""},
		// ʼ outside Cyrillic words splits as ' does.
		{"donʼt", "don't"},
		// Each Cyrillic word by its own letters, the rest by the text's language.
		{"Оля купила машину in Lviv, у Львові!", "оля куп машин in Lviv, у львов!"},
		{"Мы купили машину, Оля.", "мы куп машин, ол."},
		// Folds: ё, ґ, stress marks, apostrophes, Latin look-alikes.
		{"Ёжик", "ежик"},
		{"ЁЖИК", "ежик"},
		{"за\u0301мок зáмок", "замок замок"},
		{"ґанок", "ганок"},
		{"Пам'ять пам’ять памʼять пам`ять", "памят памят памят памят"},
		{"Kиiв Киïв", "kиов києв"},
		// Words with digits are folded, not stemmed.
		{"5км 2ёж", "5км 2еж"},
		// Quotes around a word are not apostrophes.
		{"'машина'", "'машин'"},
		// A Latin compound word stays as typed, and its parts follow the text, so that
		// "gym" finds PureGym; parts of a letter, or of two not both capitals, say too
		// little, and a plural of capitals (RPGs) is one word; a word that goes on in
		// Cyrillic letters is not one of them.
		{"I joined PureGym, then bought AirPods.", "I joined PureGym, then bought AirPods. Pure Gym Air Pods"},
		{"HTMLParser on my iPhone at McDonald's", "HTMLParser on my iPhone at McDonald's HTML Parser Phone Donald"},
		{"RPGs, MOBAs and PhDs on LinkedIn #ThrowbackThursday", "RPGs, MOBAs and PhDs on LinkedIn #ThrowbackThursday Linked Throwback Thursday"},
		{"OpenAI macOS", "OpenAI macOS Open AI mac OS"},
		{"Мой iPhone у Львові", "мой iPhone у львов Phone"},
		{"Kиiв CamelКейс", "kиов саmеlкейс"},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestQuery(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"running", []string{"running"}},
		{"", nil},
		{"  ", nil},
		{"Львів", []string{"львов"}}, // Ukrainian letters: Ukrainian only
		{"ёлки", []string{"елк", "елок", "елек"}},                                       // Russian letters: Russian only (and ёлок, see TestFleeting)
		{"машину", []string{"машин"}},                                                   // both agree
		{"робити", []string{"робит", "роб"}},                                            // neither: both stems
		{"пам'ять", []string{"памят"}},                                                  // the apostrophe is Ukrainian
		{"Олі", []string{"олі", "ола", "ол", "оля", "оли", "олу", "олю", "оле", "оло"}}, // three letters: every form
		{"очі", []string{"очі", "оча", "оч", "очя", "очи", "очу", "очю", "оче", "очо"}},
		{"ліс", []string{"лох"}}, // no vowel ending
	} {
		if got := Query(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Query(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestFleeting: where a vowel comes and goes before a stem's last consonant between a
// word's forms, a query for any form finds the others as the index holds them (each
// form keeps its own stem there).
func TestFleeting(t *testing.T) {
	for _, c := range []struct {
		lang   lang
		family string
	}{
		{russianLang, "кошка кошки кошек кошкам"},
		{russianLang, "подарок подарка подарки подарков"},
		{russianLang, "поездка поездки поездок"},
		{russianLang, "сестра сестры сестёр сестрам"},
		{russianLang, "отец отца отцу отцом"},
		{russianLang, "ветер ветра ветром"},
		{russianLang, "камень камня камнем"},
		{russianLang, "окно окна окон"},
		{russianLang, "уголь угля угли углей"},
		{russianLang, "число числа чисел"},
		{ukrainianLang, "кішка кішки кішок"},
		{ukrainianLang, "поїздка поїздки поїздок"},
		{ukrainianLang, "подарунок подарунка подарунки подарунків"},
		{ukrainianLang, "сестра сестри сестер"},
		{ukrainianLang, "отець отця отцем"},
		{ukrainianLang, "ганок ганку ганком"},
		{ukrainianLang, "вікно вікна вікон"},
	} {
		forms := strings.Fields(c.family)
		for _, a := range forms {
			q := Query(a)
			for _, b := range forms {
				if indexed := rewrite(b, c.lang); !slices.Contains(q, indexed) {
					t.Errorf("a query for %q looks up %q, not %q (%q as indexed)", a, q, indexed, b)
				}
			}
		}
	}
	// A stem without a fleeting vowel gains none, and words of other kinds nothing.
	for in, want := range map[string][]string{
		"сколько": {"скольк"}, "батька": {"батьк"}, "кот": {"кот"}, "park": {"park"}, "5 кошек": {"5 кошек"},
	} {
		if got := Query(in); !slices.Equal(got, want) {
			t.Errorf("Query(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestUkrainianShort: an ending never takes a word below three letters, and a word of
// two letters is kept.
func TestUkrainianShort(t *testing.T) {
	for in, want := range map[string]string{"їх": "іх", "очі": "очі", "мрії": "мрі", "ніч": "ноч", "ночі": "ноч"} {
		if got := Text(in + " і"); got != want+" і" {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkText(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"ru", "Вчера мы наконец-то купили новую машину, красную, с большим багажником для поездок"},
		{"uk", "Завтра поїдемо потягом до Львова, бо машиною їхати довше, а квитки вже купила"},
		{"en", "Yesterday we finally bought a new car, a red one, with a big trunk for our trips"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Text(c.text)
			}
		})
	}
}
