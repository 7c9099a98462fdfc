package prompt

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

// maxQuoted bounds how much of a reply chain is pulled in from outside the window.
const maxQuoted = 3

// selection is the history part of a prompt.
type selection struct {
	turns     []llm.Turn
	ids       []mynah.MessageID
	quotedIDs []mynah.MessageID
	trimmed   int
	omitted   int
	tokens    int
}

// selectHistory chooses, by policy and within budget tokens, the messages the prompt
// shows, and renders them in the input's format.
func (in *Input) selectHistory(budget int) selection {
	var sel selection
	hist := in.History
	first := 0 // candidates are hist[first:]
	var recap string
	switch in.Policy.Kind {
	case PolicyDelta:
		for i := len(hist) - 1; i >= 0; i-- {
			if in.own(&hist[i]) {
				first = i + 1
				recap = fmt.Sprintf("[system] You last spoke at message_id %d (%q); %d earlier messages of this conversation are not shown.",
					hist[i].ID, Excerpt(hist[i].Text, excerptRunes), i+1)
				break
			}
		}
	case PolicyWindow:
		if n := in.Policy.Window; n > 0 && len(hist) > n {
			first = len(hist) - n
		}
	}
	sel.omitted = first
	// Units are rendered and counted lazily, newest first, so a turn costs what its
	// window holds, not what the session holds.
	units := make([]unit, len(hist))
	done := make([]bool, len(hist))
	get := func(i int) unit {
		if !done[i] {
			units[i], done[i] = in.unit(&hist[i], false, ""), true
		}
		return units[i]
	}
	include := make([]bool, len(hist))
	left, n := budget, 0
	if recap != "" {
		left -= in.Count(recap)
	}
	targets := make([]int, 0, 1)
	for i := range hist {
		if hist[i].ID == in.Target {
			// The target is always shown, even when the policy would leave it out.
			include[i] = true
			targets = append(targets, i)
			n++
			if i < first {
				sel.omitted--
			}
		}
	}
	// The reply chain is shown too: in place when the window reaches it, otherwise marked
	// as quoted context before the history. Its cost is reserved before the window fills.
	index := make(map[mynah.MessageID]int, len(hist))
	for i := range hist {
		index[hist[i].ID] = i
	}
	var chain []unit
	var chainIDs []mynah.MessageID
	chainCost := 0
	for k := range in.Quoted {
		q := &in.Quoted[k]
		if k == maxQuoted || q.ID == 0 {
			break
		}
		if i, ok := index[q.ID]; ok && include[i] {
			continue // the target itself, or already in
		}
		u := in.fit(q, true, in.share(in.room/8))
		left -= u.cost
		chainCost += u.cost
		chain = append(chain, u)
		chainIDs = append(chainIDs, q.ID)
	}
	for _, i := range targets {
		units[i], done[i] = in.fit(&hist[i], false, in.share(max(in.room-chainCost, in.room/2))), true
		left -= units[i].cost
	}
	for i := len(hist) - 1; i >= first; i-- {
		if include[i] {
			continue
		}
		if n >= in.MaxMessages || get(i).cost > left {
			break
		}
		include[i] = true
		left -= units[i].cost
		n++
	}
	var quoted []unit
	for k, id := range chainIDs {
		if i, ok := index[id]; ok && include[i] {
			continue // the window reached it
		}
		quoted = append([]unit{chain[k]}, quoted...) // chronological: farthest first
		sel.quotedIDs = append([]mynah.MessageID{id}, sel.quotedIDs...)
	}
	kept := make([]unit, 0, len(quoted)+1+n) // n: the messages included
	sel.ids = make([]mynah.MessageID, 0, n)
	for _, u := range quoted {
		kept = append(kept, u)
		sel.tokens += u.cost
	}
	if recap != "" {
		kept = append(kept, unit{turn: llm.Text(llm.User, recap), line: strings.TrimPrefix(recap, "[system] "), cost: in.Count(recap)})
		sel.tokens += kept[len(kept)-1].cost
	}
	for i := range hist {
		if !include[i] {
			if i >= first {
				sel.trimmed++
			}
			continue
		}
		sel.ids = append(sel.ids, hist[i].ID)
		sel.tokens += units[i].cost
		kept = append(kept, units[i])
	}
	if in.Format == FormatCompact {
		sel.turns = compactTurns(kept)
	} else {
		sel.turns = make([]llm.Turn, 0, len(kept))
		for _, u := range kept {
			sel.turns = append(sel.turns, u.turn)
		}
	}
	return sel
}

// unit is one message rendered in the input's format, with its token cost.
type unit struct {
	turn  llm.Turn   // structured
	line  string     // compact
	media []llm.Part // compact: the message's attachments, shown after the lines
	cost  int
}

// unit renders m, quoted or not, with note (when not empty) on a line after its text.
func (in *Input) unit(m *mynah.Message, quoted bool, note string) unit {
	if in.Format == FormatCompact {
		line := in.compactLine(m)
		if quoted {
			line = "(earlier) " + line
		}
		if note != "" {
			line += "\n  " + note
		}
		media := in.Attachments[m.ID]
		return unit{line: line, media: media, cost: in.Count(line) + 1 + partsCost(media, in.Count)}
	}
	t := in.render(m)
	if note != "" {
		t.Parts[len(t.Parts)-1].Text += "\n" + note
	}
	if quoted {
		if t.Role == llm.Assistant {
			// Quoted context is shown, not re-spoken: the agent's own old words as a user turn.
			t = llm.Turn{Role: llm.User, Parts: []llm.Part{{Text: Meta(m, in.Location)}, {Text: Body(m)}}}
		}
		t.Parts = append([]llm.Part{{Text: "[quoted] an earlier message the conversation refers to, from outside the recent window:"}}, t.Parts...)
	}
	if t.Role == llm.User {
		// The images (or audio) of the target, its album and its reply chain follow the
		// message's header and text, in the same turn.
		t.Parts = append(t.Parts, in.Attachments[m.ID]...)
	}
	return unit{turn: t, cost: turnCost(t, in.Count)}
}

// share is n tokens of the room as a limit for fit: at least 1, or 0 (no limit) when the
// room is unlimited.
func (in *Input) share(n int) int {
	if in.room <= 0 {
		return 0
	}
	return max(n, 1)
}

// fit renders m as unit does, within limit tokens when limit > 0: a message that costs
// more has its text cut, on a rune boundary, and a marker says how many characters are
// not shown. Only the rendering is cut; m is not changed. When even the marker alone
// does not fit (media descriptions are never cut), that is what is returned.
func (in *Input) fit(m *mynah.Message, quoted bool, limit int) unit {
	u := in.unit(m, quoted, "")
	if limit <= 0 || u.cost <= limit || m.Text == "" {
		return u
	}
	text := []rune(m.Text)
	keep := len(text)
	for round := 0; ; round++ {
		// Keep the share of the text that fits; from the second round, when what is not
		// text (the header, the marker) made it miss, half a percent less. That ends in
		// a round or two when tokens grow with the text; halving after a few rounds ends
		// it when they do not.
		next := int(int64(keep) * int64(limit) / int64(u.cost))
		if round > 0 {
			next -= keep / 200
		}
		if round >= 8 {
			next = min(next, keep/2)
		}
		keep = max(min(next, keep-1), 0)
		cut := *m
		cut.Text = strings.TrimRightFunc(string(text[:keep]), unicode.IsSpace)
		u = in.unit(&cut, quoted, fmt.Sprintf("[… message truncated: %d characters not shown]", len(text)-keep))
		if u.cost <= limit || keep == 0 {
			return u
		}
	}
}
