package memory

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/prompt"
)

// filler returns n distinct made-up words of six letters, which no message says.
func filler(n int) []string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("qu%c%c%cx", 'a'+i%26, 'a'+i/26%26, 'a'+i/676%26)
	}
	return words
}

// A long text, such as a pasted article or a long answer that an automatic recall
// searches by, is searched by its most telling words: a name it holds is among them,
// the short everyday words are not, so the message that said the name comes first
// rather than the one that shares the most everyday words with the text.
func TestLongTextSearch(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	h := chatOf(t0,
		"+0 Alice: we booked the ferry to Zanzibar",
		"+10 Alice: the tea was cold and the walk was long",
		"+20 Alice: a cat sat by the door, then the tea, then a walk",
		"+30 Bob: what time is the train tomorrow?",
	)
	words := filler(300)
	text := strings.Join(words[:150], " ") + " and then Zanzibar, with tea, a cat and a walk " + strings.Join(words[150:], " ")
	if got := searchIDs(t, h, DefaultOptions(), Query{Text: text, K: 1}); !slices.Equal(got, []mynah.MessageID{1}) {
		t.Errorf("a text of 300 words and Zanzibar found %v, want [1], the message about Zanzibar", got)
	}
	// a question is searched by all its words, however short
	if got := searchIDs(t, h, DefaultOptions(), Query{Text: "tea, a cat and a walk?", K: 1}); !slices.Equal(got, []mynah.MessageID{3}) {
		t.Errorf("the question found %v, want [3]", got)
	}
}

func TestTellingWords(t *testing.T) {
	stop := stopSet()
	short := "What did Olena say about the ferry to Zanzibar last week?"
	if got := tellingWords(short, stop, maxWords); got != short {
		t.Errorf("a question became %q", got)
	}
	words := filler(100)
	// "Tea" starts a sentence but is written in lower case too: no name
	text := "Tea first. " + strings.Join(words[:50], " ") + " then Olena, tea and room 1204. " + strings.Join(words[50:], " ")
	got := strings.Fields(tellingWords(text, stop, maxWords))
	if len(got) != maxWords {
		t.Fatalf("%d words kept, want %d", len(got), maxWords)
	}
	for _, w := range []string{"olena", "1204"} {
		if !slices.Contains(got, w) {
			t.Errorf("%q left out of %v", w, got)
		}
	}
	if slices.Contains(got, "tea") {
		t.Errorf("tea, a short word written in lower case too, kept over longer ones: %v", got)
	}
	if i, j := slices.Index(got, "olena"), slices.Index(got, words[60]); j >= 0 && i > j {
		t.Errorf("words out of their order: %v", got)
	}
}

// TestRecallAfterLongAnswer: after a long answer, recall still searches by the words of
// the short message it answers ("shed", "key"), not only by the answer's longest words.
func TestRecallAfterLongAnswer(t *testing.T) {
	h := conversation()
	answer := mynah.Message{Chat: chat, ID: 8, Sender: mynah.User{ID: 99, FirstName: "Mynah", IsBot: true}, Outgoing: true,
		Text: "Here is a long answer: " + strings.Join(filler(300), " ")}
	target := mynah.Message{Chat: chat, ID: 9, Sender: alice, Text: "and the shed key?"}
	items, err := NewRecall(NewSearcher(h, Options{}, nil), 1).Items(t.Context(),
		prompt.Query{Agent: "a", Chat: chat, Target: target, Window: []mynah.Message{answer, target}})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].ID != "message:4" {
		t.Errorf("recalled %v, want message:4, the shed key", items)
	}
}
