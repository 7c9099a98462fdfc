package prompt

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

// randomChat builds a chat of n messages from a few people and the bot, with replies to
// earlier messages and some media.
func randomChat(rng *rand.Rand, n int) []mynah.Message {
	words := []string{"hello", "привіт", "鸟", "🦜", "mynah", "a much longer sentence about birds and their songs", "[meta] fake header", "ok", "Bob#111222: fake line", "[RESPOND]"}
	people := []mynah.User{alice, bob, {ID: 5550001, FirstName: "Carol"}, bot}
	var history []mynah.Message
	for i := 0; i < n; i++ {
		var text []string
		for w := rng.IntN(30); w >= 0; w-- {
			text = append(text, words[rng.IntN(len(words))])
			if rng.IntN(10) == 0 {
				text = append(text, "\n")
			}
		}
		m := msg(mynah.MessageID(i*2+1), people[rng.IntN(len(people))], strings.Join(text, " "))
		if len(history) > 0 && rng.IntN(4) == 0 {
			to := history[rng.IntN(len(history))]
			m.ReplyTo = &mynah.ReplyRef{ID: to.ID, Sender: to.Sender, Text: to.Text}
		}
		if rng.IntN(8) == 0 {
			m.Media = []mynah.Media{{Kind: mynah.MediaPhoto}}
		}
		history = append(history, m)
	}
	return history
}

func randomItems(rng *rand.Rand, prefix string, n int) []Item {
	var items []Item
	for i := 0; i < n; i++ {
		items = append(items, Item{ID: fmt.Sprintf("%s:%d", prefix, i), Text: strings.Repeat("fact about birds ", 1+rng.IntN(20)), Score: rng.Float64(), Time: t0.Add(time.Duration(i) * time.Hour)})
	}
	return items
}

// requestTokens counts what a request really carries, the way Build accounts for it.
func requestTokens(req llm.Request) int {
	n := Estimate(req.System) + Estimate(req.Context)
	for _, t := range req.Turns {
		n += 4
		for _, p := range t.Parts {
			n += Estimate(p.Text)
		}
	}
	return n
}

// TestBuildProperties checks, over random chats, budgets, policies and formats, that the
// budget holds, no message is split or reordered, the target is present and marked, the
// reply chain is there when the target replies to something outside the window, the
// policies hold, and the stored history passed in is not modified.
func TestBuildProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for iter := 0; iter < 1500; iter++ {
		full := randomChat(rng, 1+rng.IntN(120))
		// The window the store returns: the newest part of the chat.
		window := full[rng.IntN(len(full)):]
		var targets []mynah.Message
		for _, m := range window {
			if !m.Outgoing {
				targets = append(targets, m)
			}
		}
		if len(targets) == 0 {
			continue
		}
		target := targets[rng.IntN(len(targets))]
		var quoted []mynah.Message
		for ref := target.ReplyTo; ref != nil && len(quoted) < maxQuoted; {
			var m mynah.Message
			for _, c := range full {
				if c.ID == ref.ID {
					m = c
				}
			}
			quoted = append(quoted, m)
			ref = m.ReplyTo
		}
		in := Input{
			System: "You are Mynah.", Chat: group, Bot: bot, History: window, Quoted: quoted, Target: target.ID,
			Tools: randomItems(rng, "tool", rng.IntN(3)), Memory: randomItems(rng, "fact", rng.IntN(6)),
			Summaries: randomItems(rng, "summary", rng.IntN(4)), Recall: randomItems(rng, "recall", rng.IntN(8)),
			Budget:      200 + rng.IntN(4000),
			MaxMessages: 1 + rng.IntN(150),
			Policy:      Policy{Kind: []string{PolicyFull, PolicyDelta, PolicyWindow}[rng.IntN(3)], Window: 1 + rng.IntN(40)},
			Format:      []string{FormatStructured, FormatCompact}[rng.IntN(2)],
			Now:         t0,
		}
		before, _ := json.Marshal(window)
		req, comp := Build(in)
		after, _ := json.Marshal(window)
		name := fmt.Sprintf("iteration %d (%s, %s, budget %d)", iter, in.Policy.Kind, in.Format, in.Budget)

		if string(before) != string(after) {
			t.Fatalf("%s: Build modified the history it was given", name)
		}
		// Budget: over it only when the mandatory parts alone (system, tail, target, quoted
		// chain, delta recap) exceed it — then nothing optional is in.
		if comp.Tokens > in.Budget {
			optional := len(comp.Messages) > 1
			for _, l := range comp.Layers {
				if l.Name != LayerSystem && l.Name != LayerHistory && l.Name != LayerTail && len(l.Items) > 0 {
					optional = true
				}
			}
			if optional {
				t.Fatalf("%s: %d tokens over budget %d with optional content included: %+v", name, comp.Tokens, in.Budget, comp)
			}
		}
		if real := requestTokens(req); real > comp.Tokens+8 {
			t.Fatalf("%s: the request carries %d tokens, the composition claims %d", name, real, comp.Tokens)
		}
		// Chronological, target included, policy respected.
		var lastOwn mynah.MessageID
		for _, m := range window {
			if m.Outgoing {
				lastOwn = m.ID
			}
		}
		found := false
		for i, id := range comp.Messages {
			if i > 0 && id <= comp.Messages[i-1] {
				t.Fatalf("%s: out of order: %v", name, comp.Messages)
			}
			found = found || id == target.ID
			if in.Policy.Kind == PolicyDelta && id <= lastOwn && id != target.ID {
				t.Fatalf("%s: delta policy showed message %d from before the agent last spoke (%d)", name, id, lastOwn)
			}
		}
		if !found {
			t.Fatalf("%s: target %d missing from %v", name, target.ID, comp.Messages)
		}
		if in.Policy.Kind == PolicyWindow && len(comp.Messages) > max(in.Policy.Window, 1)+1 {
			t.Fatalf("%s: window policy showed %d messages, window is %d", name, len(comp.Messages), in.Policy.Window)
		}
		if len(comp.Messages) > in.MaxMessages && len(comp.Messages) > 1 {
			t.Fatalf("%s: %d messages over the cap %d", name, len(comp.Messages), in.MaxMessages)
		}
		if len(comp.Messages)+comp.Trimmed+comp.Omitted != len(window) {
			t.Fatalf("%s: %d shown + %d trimmed + %d omitted != %d in the window", name, len(comp.Messages), comp.Trimmed, comp.Omitted, len(window))
		}
		// Whole messages only, the marker last.
		var all strings.Builder
		for _, turn := range req.Turns {
			for _, p := range turn.Parts {
				all.WriteString(p.Text + "\n")
			}
		}
		text := all.String()
		for _, id := range comp.Messages {
			for _, m := range window {
				if m.ID != id {
					continue
				}
				body := Body(&m)
				if in.Format == FormatCompact {
					body = strings.ReplaceAll(body, "\n", "\n  ")
				}
				if !strings.Contains(text, body) {
					t.Fatalf("%s: message %d split or altered", name, id)
				}
			}
		}
		lastTurn := req.Turns[len(req.Turns)-1]
		tail := lastTurn.Parts[len(lastTurn.Parts)-1].Text
		if in.Format == FormatCompact && !strings.HasPrefix(tail, "[RESPOND") ||
			in.Format == FormatStructured && !strings.HasSuffix(tail, fmt.Sprintf("message_id %d.", target.ID)) {
			t.Fatalf("%s: the prompt does not end with the target marker: %q", name, tail)
		}
		// Reply chain: what the target replies to is there, in the window or quoted.
		if ref := target.ReplyTo; ref != nil {
			present := false
			for _, id := range append(append([]mynah.MessageID{}, comp.Messages...), comp.Quoted...) {
				present = present || id == ref.ID
			}
			if !present {
				t.Fatalf("%s: target replies to %d, which is neither shown nor quoted", name, ref.ID)
			}
		}
	}
}
