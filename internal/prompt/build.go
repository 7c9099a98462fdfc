package prompt

import (
	"fmt"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

// DefaultMaxMessages caps the history of one prompt when Input.MaxMessages is zero.
const DefaultMaxMessages = 500

// Input is everything one prompt is built from.
type Input struct {
	System  string     // the assembled system instruction (see System)
	Chat    mynah.Chat // the chat of the turn
	Bot     mynah.User // the agent's own account: its messages become assistant turns
	History []mynah.Message
	// Target is the message to respond to; it is always included and marked.
	Target mynah.MessageID
	// Budget is the token budget of system instruction plus history; 0 means unlimited.
	Budget      int
	MaxMessages int              // 0 = DefaultMaxMessages
	Count       func(string) int // token counter; nil = Estimate
	Location    *time.Location   // time zone of [meta] times; nil = UTC
}

// Composition records what a prompt contained, for logs and for explaining a reply.
type Composition struct {
	Messages      []mynah.MessageID // included history, chronological
	Trimmed       int               // stored messages of the window left out for the budget
	SystemTokens  int
	HistoryTokens int
}

// Build renders in as a provider-neutral request (System and Turns; the caller sets the
// model and tools). History must be chronological. Messages are never split: a message
// either fits whole or is left out, oldest first; the target always stays.
func Build(in Input) (llm.Request, Composition) {
	count := in.Count
	if count == nil {
		count = Estimate
	}
	limit := in.MaxMessages
	if limit <= 0 {
		limit = DefaultMaxMessages
	}
	loc := in.Location
	if loc == nil {
		loc = time.UTC
	}
	marker := Marker(in.Target)
	comp := Composition{SystemTokens: count(in.System)}
	left := in.Budget - comp.SystemTokens - count(marker)

	turns := make([]llm.Turn, len(in.History))
	include := make([]bool, len(in.History))
	costs := make([]int, len(in.History))
	for i := range in.History {
		turns[i] = in.render(&in.History[i], loc)
		costs[i] = turnCost(turns[i], count)
		if in.History[i].ID == in.Target {
			include[i] = true
			left -= costs[i]
		}
	}
	n := 0 // included so far, the target counted up front
	for _, ok := range include {
		if ok {
			n++
		}
	}
	for i := len(in.History) - 1; i >= 0; i-- {
		if include[i] {
			continue
		}
		if n >= limit || (in.Budget > 0 && costs[i] > left) {
			break
		}
		include[i] = true
		left -= costs[i]
		n++
	}

	req := llm.Request{System: in.System}
	for i, ok := range include {
		if !ok {
			comp.Trimmed++
			continue
		}
		comp.Messages = append(comp.Messages, in.History[i].ID)
		comp.HistoryTokens += costs[i]
		req.Turns = append(req.Turns, turns[i])
	}
	if last := len(req.Turns) - 1; last >= 0 && req.Turns[last].Role == llm.User {
		req.Turns[last].Parts = append(req.Turns[last].Parts, llm.Part{Text: marker})
	} else {
		req.Turns = append(req.Turns, llm.Text(llm.User, marker))
	}
	comp.HistoryTokens += count(marker)
	return req, comp
}

// Marker is the volatile tail that tells the model which message to answer.
func Marker(target mynah.MessageID) string {
	return fmt.Sprintf("[system] Consider responding to message with message_id %d.", target)
}

// render turns one stored message into a conversation turn: the agent's own messages are
// assistant turns with their text; everyone else's are user turns led by a [meta] header.
func (in *Input) render(m *mynah.Message, loc *time.Location) llm.Turn {
	if m.Outgoing || (in.Bot.ID != 0 && m.Sender.ID == in.Bot.ID) {
		return llm.Text(llm.Assistant, Body(m))
	}
	return llm.Turn{Role: llm.User, Parts: []llm.Part{{Text: Meta(m, loc)}, {Text: Body(m)}}}
}

// Body renders a message's content: its media descriptions then its text, with header
// imitations neutralised.
func Body(m *mynah.Message) string {
	var b strings.Builder
	for _, md := range m.Media {
		b.WriteString(Media(md))
		b.WriteString("\n")
	}
	b.WriteString(Neutralize(m.Text))
	s := strings.TrimRight(b.String(), "\n")
	if s == "" {
		return "[empty message]"
	}
	return s
}

func turnCost(t llm.Turn, count func(string) int) int {
	n := 4 // per-message framing overhead of the chat formats
	for _, p := range t.Parts {
		n += count(p.Text)
	}
	return n
}
