package memory_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/memory/locomo"
	"github.com/mynah-ai/mynah/internal/sqlite"
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

// echoTurns is longTurns where an assistant's answer also repeats what it answers: every
// turn of the second speaker gets the content words of the turn before it, then ~150
// words of another conversation's talk. The answer next to the evidence then shares its
// words, as an assistant's reply shares the user's, and competes with it.
func echoTurns(convs []locomo.Conversation) []locomo.Conversation {
	stop := memory.StopWords()
	long := longTurns(convs)
	for i, c := range long {
		c.Turns = append([]locomo.Turn(nil), c.Turns...)
		for j := range c.Turns {
			if j == 0 || c.Turns[j].Speaker != c.Speakers[1] {
				continue
			}
			own, pad, _ := strings.Cut(c.Turns[j].Text, "\n\n")
			echo := strings.Join(memory.Terms(convs[i].Turns[j-1].Text, stop), ", ")
			c.Turns[j].Text = own + "\n\nSo, about " + echo + ": " + pad
		}
		long[i] = c
	}
	return long
}

// firstPerson makes echoTurns look like a user's chat with an assistant, asked by the
// user: the first speaker is "User", the second "Assistant" (its turns long and echoing,
// as in echoTurns), and only the questions about the first speaker are asked, in the
// first person ("What did Caroline paint?": "What did I paint?"). No name is left for the
// speaker features to find, as in a chat-assistant history.
func firstPerson(convs []locomo.Conversation) []locomo.Conversation {
	return withAssistant(convs, 0, "I", "my")
}

// secondPerson is firstPerson asked of the assistant: only the questions about the second
// speaker, in the second person ("What did Melanie paint?": "What did you paint?"), whose
// answers are in the assistant's long, echoing turns.
func secondPerson(convs []locomo.Conversation) []locomo.Conversation {
	return withAssistant(convs, 1, "you", "your")
}

// talkative is firstPerson where the user's turns are long too: each of the first
// speaker's turns sits between ~40 words of another conversation's talk before it and
// ~40 after, as a person writing to an assistant gives context, then the thing, then a
// request. The evidence is then a sentence inside a long turn on both sides, and the
// length of a turn says nothing of who wrote it.
func talkative(convs []locomo.Conversation) []locomo.Conversation {
	out := firstPerson(convs)
	for i, c := range out {
		other := convs[(i+3)%len(convs)].Turns
		pad := func(from int) string {
			var p []string
			for k := from; len(strings.Fields(strings.Join(p, " "))) < 40; k++ {
				p = append(p, other[k%len(other)].Text)
			}
			return strings.Join(p, " ")
		}
		c.Turns = slices.Clone(c.Turns)
		for j := range c.Turns {
			if t := &c.Turns[j]; t.Speaker == "User" {
				t.Text = pad(7*j) + " " + t.Text + " " + pad(7*j+3)
			}
		}
		out[i] = c
	}
	return out
}

// withAssistant makes echoTurns a chat of "User" and "Assistant" asked only about speaker
// asked (0 the first, 1 the second), named in its questions by pronoun and possessive.
func withAssistant(convs []locomo.Conversation, asked int, pronoun, possessive string) []locomo.Conversation {
	out := echoTurns(convs)
	for i, c := range out {
		name, other := c.Speakers[asked], c.Speakers[1-asked]
		c.Turns = append([]locomo.Turn(nil), c.Turns...)
		for j := range c.Turns {
			if c.Turns[j].Speaker == c.Speakers[0] {
				c.Turns[j].Speaker = "User"
			} else {
				c.Turns[j].Speaker = "Assistant"
			}
		}
		c.Speakers = [2]string{"User", "Assistant"}
		var qs []locomo.Question
		for _, q := range c.Questions {
			if !strings.Contains(q.Text, name) || strings.Contains(q.Text, other) {
				continue
			}
			q.Text = strings.ReplaceAll(q.Text, name+"'s", possessive)
			q.Text = strings.ReplaceAll(q.Text, name, pronoun)
			qs = append(qs, q)
		}
		c.Questions = qs
		out[i] = c
	}
	return out
}

// TestLongTurns holds the default ranking to beating plain BM25 on each half of LoCoMo
// turned into long turns (longTurns): features tuned on short alternating turns
// (neighbours, the conversation before a message, the length prior) must not push real
// evidence out when half the turns are long — what a chat-assistant history looks like.
// Each set is measured with the conversations in one store and in a store each; those
// of one person with an assistant also imported as one chat (oneChat): a person's whole
// history with an assistant, where every question is asked of all of it.
func TestLongTurns(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("imports the whole benchmark: runs without -short and -race")
	}
	convs := readLoCoMo(t)
	ks := []int{5, 10, 20}
	check := func(how, half, set string, dbs []*sqlite.DB, convs []locomo.Conversation, of string) {
		rep := evaluate(t.Context(), t, dbs, memory.DefaultOptions(), convs, of, ks)
		plain := evaluate(t.Context(), t, dbs, plainBM25(t), convs, of, ks)
		t.Logf("%s, half %s, %s, turn recall@5/10/20\ndefault ranking:\n%s\nplain BM25:\n%s", how, half, set, formatReport(rep), formatReport(plain))
		if got, b := recallAt10(&rep.Core), recallAt10(&plain.Core); got <= b {
			t.Errorf("%s, half %s, %s: turn recall@10 over categories 1-4 = %.3f, not above plain BM25's %.3f", how, half, set, got, b)
		}
	}
	for _, set := range []struct {
		name    string
		convs   []locomo.Conversation
		oneChat bool // one person and an assistant throughout, so one chat can hold them
	}{{"long turns", longTurns(convs), false}, {"echoing long turns", echoTurns(convs), false},
		{"first person", firstPerson(convs), true}, {"second person", secondPerson(convs), true},
		{"talkative user", talkative(convs), true}} {
		for _, p := range protocols {
			dbs := p.stores(t, set.convs)
			for _, half := range locomo.Halves {
				check(p.name, half, set.name, dbs, set.convs, half)
			}
		}
		for _, half := range locomo.Halves {
			if set.oneChat {
				one := []locomo.Conversation{oneChat(set.convs, half)}
				check("one chat", half, set.name, []*sqlite.DB{importLoCoMo(t, one, 0)}, one, "")
			}
		}
	}
}

// oneChat joins the conversations of half into one, in order, each one's sessions
// numbered after the last one's (its turns' ids and its questions' evidence with them):
// the sessions of one person's chat with an assistant over months. Each keeps its times,
// so ids do not follow times from one to the next, as in a chat imported from several
// exports; its questions are asked as of the last one's end.
func oneChat(convs []locomo.Conversation, half string) locomo.Conversation {
	out := locomo.Conversation{ID: "half " + half, Speakers: convs[0].Speakers}
	last := 0
	for i, c := range convs {
		if !locomo.InHalf(half, i, len(convs)) {
			continue
		}
		off := last
		for _, t := range c.Turns {
			t.Session += off
			last = max(last, t.Session)
			out.Turns = append(out.Turns, t)
		}
		for _, q := range c.Questions {
			q.Evidence = slices.Clone(q.Evidence)
			for j := range q.Evidence {
				q.Evidence[j] += mynah.MessageID(off * 1000)
			}
			out.Questions = append(out.Questions, q)
		}
	}
	return out
}
