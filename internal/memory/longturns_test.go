package memory_test

import (
	"strings"
	"testing"

	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/memory/locomo"
)

// longTurns makes LoCoMo look like a chat with an assistant: every turn of the second
// speaker gets ~150 words of another conversation's talk appended, so half the turns
// are long and mostly about something else, as an assistant's answers are, while the
// evidence stays where it was.
func longTurns(convs []locomo.Conversation) []locomo.Conversation {
	out := make([]locomo.Conversation, len(convs))
	for i, c := range convs {
		other := convs[(i+len(convs)/2)%len(convs)].Turns
		c.Turns = append([]locomo.Turn(nil), c.Turns...)
		for j := range c.Turns {
			t := &c.Turns[j]
			if t.Speaker != c.Speakers[1] {
				continue
			}
			var pad []string
			for k := j; len(strings.Fields(strings.Join(pad, " "))) < 150; k++ {
				pad = append(pad, other[k%len(other)].Text)
			}
			t.Text += "\n\n" + strings.Join(pad, " ")
		}
		out[i] = c
	}
	return out
}

// TestLongTurns holds the default ranking to beating plain BM25 on each half of LoCoMo
// turned into long turns (longTurns): features tuned on short alternating turns
// (neighbours, the conversation before a message, the length prior) must not push real
// evidence out when half the turns are long — what a chat-assistant history looks like.
func TestLongTurns(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("imports the whole benchmark: runs without -short and -race")
	}
	convs := longTurns(readLoCoMo(t))
	ks := []int{5, 10, 20}
	for _, p := range protocols {
		dbs := p.stores(t, convs)
		for _, half := range locomo.Halves {
			rep := evaluate(t.Context(), t, dbs, memory.DefaultOptions(), convs, half, ks)
			plain := evaluate(t.Context(), t, dbs, plainBM25(t), convs, half, ks)
			t.Logf("%s, half %s, long turns, turn recall@5/10/20\ndefault ranking:\n%s\nplain BM25:\n%s", p.name, half, formatReport(rep), formatReport(plain))
			if got, b := recallAt10(&rep.Core), recallAt10(&plain.Core); got <= b {
				t.Errorf("%s, half %s, long turns: turn recall@10 over categories 1-4 = %.3f, not above plain BM25's %.3f", p.name, half, got, b)
			}
		}
	}
}
