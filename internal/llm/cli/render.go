package cli

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

// A command-line agent reads one text: the instructions, then the conversation, each
// message as the context engine rendered it ([meta] header and text; the agent's own
// earlier messages marked as its own), then the turn's closing line (time, chat, the
// message to respond to).

// metaID finds a message's id in its [meta] header.
var metaID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[meta\] message_id=(\d+)`) })

// Full is the prompt of a new session: the instructions and the whole conversation.
func Full(req llm.Request) string {
	turns, tail := split(req.Turns)
	var b strings.Builder
	if sys := strings.TrimSpace(llm.SystemText(req)); sys != "" {
		b.WriteString("## Your instructions\n\n")
		b.WriteString(sys)
		b.WriteString("\n\n")
	}
	b.WriteString("## The conversation so far\n")
	for _, t := range turns {
		b.WriteString("\n")
		b.WriteString(render(t))
		b.WriteString("\n")
	}
	return finish(&b, tail)
}

// Delta is the prompt of a live session that was sent the conversation up to message
// seen: the messages after it (the agent's own are known to it) and the closing line,
// after the instructions again when remind is set.
func Delta(req llm.Request, seen mynah.MessageID, remind bool) string {
	turns, tail := split(req.Turns)
	var b strings.Builder
	if sys := strings.TrimSpace(llm.SystemText(req)); remind && sys != "" {
		b.WriteString("## Your instructions (a reminder)\n\n")
		b.WriteString(sys)
		b.WriteString("\n\n")
	}
	b.WriteString("## New messages\n")
	for _, t := range turns {
		if t.Role != llm.User || id(t) <= seen {
			continue
		}
		b.WriteString("\n")
		b.WriteString(render(t))
		b.WriteString("\n")
	}
	return finish(&b, tail)
}

func finish(b *strings.Builder, tail string) string {
	if tail != "" {
		b.WriteString("\n")
		b.WriteString(tail)
		b.WriteString("\n")
	}
	return b.String()
}

// split separates the closing line (the last part of the last user turn, a [system]
// line) from the turns.
func split(turns []llm.Turn) ([]llm.Turn, string) {
	if len(turns) == 0 {
		return nil, ""
	}
	last := turns[len(turns)-1]
	if last.Role != llm.User || len(last.Parts) == 0 {
		return turns, ""
	}
	p := last.Parts[len(last.Parts)-1]
	if !strings.HasPrefix(p.Text, "[system]") || (len(last.Parts) == 1 && id(last) != 0) {
		return turns, ""
	}
	out := append([]llm.Turn(nil), turns...)
	if len(last.Parts) == 1 {
		return out[:len(out)-1], p.Text
	}
	out[len(out)-1] = llm.Turn{Role: last.Role, Parts: last.Parts[:len(last.Parts)-1]}
	return out, p.Text
}

// id is the message id in a user turn's [meta] header; 0 when it has none.
func id(t llm.Turn) mynah.MessageID {
	if len(t.Parts) == 0 {
		return 0
	}
	m := metaID().FindStringSubmatch(t.Parts[0].Text)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return mynah.MessageID(n)
}

// newest is the newest message id the turns show.
func newest(turns []llm.Turn) mynah.MessageID {
	var n mynah.MessageID
	for _, t := range turns {
		n = max(n, id(t))
	}
	return n
}

// render writes one turn as text.
func render(t llm.Turn) string {
	var parts []string
	for _, p := range t.Parts {
		switch {
		case p.ToolCall != nil:
			parts = append(parts, "[you called "+p.ToolCall.Name+"] "+string(p.ToolCall.Arguments))
		case p.ToolResult != nil:
			parts = append(parts, "[result of "+p.ToolResult.Name+"] "+p.ToolResult.Content)
		case p.Image != nil || p.Audio != nil:
			parts = append(parts, llm.MediaPlaceholder(p))
		default:
			parts = append(parts, p.Text)
		}
	}
	text := strings.Join(parts, "\n")
	if t.Role == llm.Assistant {
		return "[you] " + text
	}
	return text
}
