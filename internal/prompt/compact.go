package prompt

import (
	"strconv"
	"strings"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

// The compact format trades structure for tokens: one transcript, a line per message,
//
//	Alice#987654: text
//	Bob#111222 → Alice#987654: a reply
//	Mynah: the agent's own words
//	[RESPOND]
//
// Speakers are named with the last six digits of their user id. Continuation lines of a
// message are indented, so text cannot start a line that imitates another speaker.

// speaker names a user compactly: "Alice#987654"; the agent itself by name alone.
func (in *Input) speaker(u mynah.User) string {
	if in.Bot.ID != 0 && u.ID == in.Bot.ID {
		return compactName(in.Bot)
	}
	id := strconv.FormatInt(int64(u.ID), 10)
	if len(id) > 6 {
		id = id[len(id)-6:]
	}
	return compactName(u) + "#" + id
}

func compactName(u mynah.User) string {
	name := u.FirstName
	if name == "" {
		name = u.Name()
	}
	return strings.Join(strings.Fields(Clean(name)), "_")
}

// compactLine renders one message as a transcript line.
func (in *Input) compactLine(m *mynah.Message) string {
	var b strings.Builder
	own := in.own(m)
	if own {
		b.WriteString(compactName(in.Bot))
	} else {
		b.WriteString(in.speaker(m.Sender))
	}
	// The agent's own lines carry no reply arrow, as its assistant turns carry no header
	// in the structured form: the model needs to know who said what to it, not what it
	// replied to.
	if !own && m.ReplyTo != nil && m.ReplyTo.Sender.ID != 0 {
		b.WriteString(" → ")
		b.WriteString(in.speaker(m.ReplyTo.Sender))
	}
	if f := m.Forward; f != nil {
		name := f.Name
		if name == "" {
			name = f.From.Name()
		}
		b.WriteString(" (fwd")
		if name = strings.Join(strings.Fields(Clean(name)), " "); name != "" {
			b.WriteString(" " + name)
		}
		b.WriteString(")")
	}
	b.WriteString(": ")
	body := Body(m)
	b.WriteString(strings.ReplaceAll(body, "\n", "\n  "))
	return b.String()
}

// compactMarker closes the transcript: "[RESPOND]" when the target is the last message,
// otherwise it names the message to respond to.
func (in *Input) compactMarker() string {
	if n := len(in.History); n > 0 && in.History[n-1].ID == in.Target {
		return "[RESPOND]"
	}
	for i := range in.History {
		if m := &in.History[i]; m.ID == in.Target {
			return "[RESPOND to " + in.speaker(m.Sender) + ": " + strconv.Quote(Excerpt(m.Text, excerptRunes)) + "]"
		}
	}
	return "[RESPOND]"
}

// compactTurns joins the lines into one user turn.
func compactTurns(units []unit) []llm.Turn {
	if len(units) == 0 {
		return nil
	}
	lines := make([]string, len(units))
	var media []llm.Part
	for i, u := range units {
		lines[i] = u.line
		media = append(media, u.media...)
	}
	t := llm.Text(llm.User, strings.Join(lines, "\n"))
	t.Parts = append(t.Parts, media...)
	return []llm.Turn{t}
}
