package memory

import (
	"slices"
	"testing"
)

// kindWords adds the things of a kind a query asks for (several of them, or with what or
// which), and nothing for a kind named as such or for words the query already has.
func TestKindWords(t *testing.T) {
	for _, c := range []struct {
		query      string
		want, lack []string
	}{
		{"What pets does Ann have?", []string{"dog", "cat", "hamster"}, nil},
		{"how many children does Ann have", []string{"son", "daughter"}, []string{"children"}},
		{"Which instrument is Tim learning?", []string{"guitar", "piano"}, nil},
		{"what kind of flowers does Audrey grow", []string{"roses", "tulips"}, nil},
		{"what sports besides basketball", []string{"tennis"}, []string{"basketball"}},
		{"when did Jolene buy her pet snake?", nil, []string{"dog", "snake"}},
		{"the dog ate my homework", nil, []string{"cat"}},
		{"Які тварини є в Анни?", []string{"собака", "кіт", "кот"}, nil},
		{"скільки в неї дітей", []string{"син", "донька"}, nil},
		{"Что за инструмент купил Тим?", []string{"гитара"}, nil},
		{"какие языки знает Оля", []string{"английский", "англійська"}, nil},
		{"де живе ця тварина", nil, []string{"собака"}},
		{"Which meat does Audrey prefer?", []string{"chicken", "beef"}, nil},
		{"What outdoor activities has Andrew done?", []string{"hiking", "camping"}, nil},
		{"what European countries has Maria been to", []string{"france", "italy"}, nil},
		{"What hobbies does Evan have?", []string{"painting", "gardening"}, nil},
		{"which workout did Ann do after the trek?", nil, []string{"yoga", "running"}},
		{"which workouts does Ann like?", []string{"yoga", "running"}, nil},
		{"What are some foods that Audrey likes eating?", []string{"sushi", "pizza"}, nil},
		{"How many items of clothing do I need to pick up or return from a store?", []string{"jacket", "shoes"}, nil},
		{"How many different doctors did I visit?", []string{"dermatologist", "dentist"}, nil},
		{"what plants did I buy last month", []string{"fern", "succulent"}, nil},
		{"Which cities has Jon visited?", []string{"paris", "boston"}, nil},
		{"What state did Nate visit?", []string{"florida", "tampa"}, nil},
		{"Which countries has Deborah traveled to?", []string{"france", "rome"}, nil},
		{"we moved to the city last year", nil, []string{"paris"}},
		{"в яких містах була Олена?", []string{"київ", "львів"}, nil},
		{"какие страны посетил Тим?", []string{"италия", "париж"}, nil},
		// an everyday kind asked as one is answered in other words than its things
		{"What activity did Melanie do with her dad?", nil, []string{"hiking"}},
		// a kind named, not asked for
		{"Why did Melanie use colors and patterns in her pottery?", nil, []string{"red"}},
		{"How did Nate feel about sharing his dairy-free desserts?", nil, []string{"cake"}},
	} {
		words, more := moreWords(c.query)
		kindWords(words, more)
		got := more.out
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("kindWords(%q) = %q, lacks %q", c.query, got, w)
			}
		}
		for _, w := range c.lack {
			if slices.Contains(got, w) {
				t.Errorf("kindWords(%q) = %q, holds %q", c.query, got, w)
			}
		}
		if c.want == nil && got != nil {
			t.Errorf("kindWords(%q) = %q, want none", c.query, got)
		}
	}
}

// variants adds the other words of a query's words' groups, for a plural too, once each,
// and nothing for words in no group or already in the query.
func TestVariants(t *testing.T) {
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"What did Andrew do with his girlfriend?", []string{"gf"}},
		{"when is Ann's bday", []string{"birthday"}},
		{"Which movies did my brothers like?", []string{"film", "bro"}},
		{"what colour is the car", []string{"color"}},
		{"mom and mother", []string{"mum", "mommy"}},
		{"what did we talk about yesterday", nil},
	} {
		words, more := moreWords(c.query)
		variants(words, more)
		if got := more.out; !slices.Equal(got, c.want) {
			t.Errorf("variants(%q) = %q, want %q", c.query, got, c.want)
		}
	}
}

// compounds gives a query's neighbouring words written as one, but for stop words and
// words of one or two letters.
func TestCompounds(t *testing.T) {
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"When did Sam go on a road trip?", []string{"roadtrip"}},
		{"Did she like the ice cream?", []string{"icecream"}},
		{"which video games, which video games", []string{"videogames"}},
		{"Which movies did my brothers like?", []string{"brotherslike"}}, // a pair no chat joins matches nothing
		{"Де Олена купила морозиво?", nil},                               // English compounds only
		{"my café visit", nil},
		{"what did we talk about yesterday", nil},
	} {
		if got := compounds(c.query); !slices.Equal(got, c.want) {
			t.Errorf("compounds(%q) = %q, want %q", c.query, got, c.want)
		}
	}
}

// pastOf gives the past forms of a question of the past's verbs, and nothing for one in
// the present or a form already asked.
func TestPastOf(t *testing.T) {
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"What did Ann buy last week?", []string{"bought"}},
		{"Where did Jolene meet her new friend Anna?", []string{"met"}},
		{"what has Tim written or taught", nil},            // past forms already
		{"How did Sam get into watercolor painting?", nil}, // "got": too common a word
		{"Where does John get his ideas from?", nil},
		{"where did Andrew go in August", nil}, // "went": too common to help
	} {
		if got := pastOf(c.query); !slices.Equal(got, c.want) {
			t.Errorf("pastOf(%q) = %q, want %q", c.query, got, c.want)
		}
	}
}
