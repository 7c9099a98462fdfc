package prompt

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

// requestText is everything the model reads of req.
func requestText(req llm.Request) string {
	var b strings.Builder
	b.WriteString(req.System + "\n" + req.Context + "\n")
	for _, turn := range req.Turns {
		for _, p := range turn.Parts {
			b.WriteString(p.Text + "\n")
		}
	}
	return b.String()
}

var truncatedMarker = regexp.MustCompile(`\[… message truncated: (\d+) characters not shown\]`)

// TestHugeTargetIsTruncated: a 1 MB message is answered within the budget: its text is
// cut to what the budget leaves, with a marker saying how much is not shown, as are the
// messages it replies to; the messages given stay whole, and a message that fits is
// never cut.
func TestHugeTargetIsTruncated(t *testing.T) {
	huge := "START " + strings.Repeat("lorem ipsum dolor sit amet ", 40000) + " END" // ~1 MB
	quotedText := "QUOTED " + strings.Repeat("щось дуже довге ", 20000)              // Cyrillic: ~2 runes a token
	for _, format := range []string{FormatStructured, FormatCompact} {
		t.Run(format, func(t *testing.T) {
			history := []mynah.Message{
				msg(1, alice, "hello"),
				msg(2, bob, "an ordinary message"),
				{Chat: group, ID: 3, Sender: alice, Time: t0.Add(3 * time.Minute), Text: huge,
					ReplyTo: &mynah.ReplyRef{ID: 90, Sender: bob, Text: "QUOTED"}},
			}
			quoted := []mynah.Message{{Chat: group, ID: 90, Sender: bob, Time: t0, Text: quotedText}}
			const budget = 32000
			req, comp := Build(Input{System: "You are Mynah.", Chat: group, Bot: bot, History: history, Quoted: quoted,
				Target: 3, Budget: budget, Format: format})
			if comp.Tokens > budget {
				t.Errorf("the prompt costs %d tokens, over the budget of %d", comp.Tokens, budget)
			}
			text := requestText(req)
			if len(text) > 8*budget {
				t.Errorf("the prompt is %d bytes for a budget of %d tokens", len(text), budget)
			}
			marks := truncatedMarker.FindAllStringSubmatch(text, -1)
			if len(marks) != 2 {
				t.Fatalf("%d truncation markers, want 2 (the target and the quoted message):\n%.2000s", len(marks), text)
			}
			for _, mark := range marks {
				n, _ := strconv.Atoi(mark[1])
				if n <= 0 {
					t.Errorf("marker %q", mark[0])
				}
			}
			if !strings.Contains(text, "START lorem") || strings.Contains(text, " END") || !strings.Contains(text, "QUOTED щось") {
				t.Errorf("the prompt does not show the beginning of the cut messages")
			}
			// The target keeps most of the room: it is what is being answered.
			if comp.Tokens < budget*9/10 {
				t.Errorf("the prompt costs %d tokens: the target was cut more than the budget of %d needs", comp.Tokens, budget)
			}
			if shown := utf8.RuneCountInString(huge) - atoi(marks[len(marks)-1][1]); shown < budget {
				t.Errorf("the target shows %d characters of a budget of %d tokens", shown, budget)
			}
			if history[2].Text != huge || quoted[0].Text != quotedText {
				t.Error("Build changed the messages it was given")
			}
			if comp.Target != 3 || comp.Messages[len(comp.Messages)-1] != 3 {
				t.Errorf("composition %+v, want the target included", comp)
			}
		})
	}
	// A budget too small for anything still shows the target's marker, and ends.
	req, _ := Build(Input{System: strings.Repeat("system ", 100), Chat: group, Bot: bot, History: []mynah.Message{msg(1, alice, huge)},
		Target: 1, Budget: 50})
	if text := requestText(req); !truncatedMarker.MatchString(text) || strings.Contains(text, "lorem ipsum dolor sit amet lorem") {
		t.Errorf("with a budget of 50 tokens: %.300s", text)
	}
	// Without a budget, or when it fits, nothing is cut.
	history := []mynah.Message{msg(1, alice, huge)}
	for _, budget := range []int{0, 400000} {
		req, _ := Build(Input{Chat: group, Bot: bot, History: history, Target: 1, Budget: budget})
		if text := requestText(req); truncatedMarker.MatchString(text) || !strings.Contains(text, " END") {
			t.Errorf("budget %d: the message was cut", budget)
		}
	}
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return n
}
