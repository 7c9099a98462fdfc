package ingest

import (
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
)

// Trigger finds how a message addresses the agent: in a group, an @mention of the bot
// (mention or text_mention entity), a reply to one of the bot's messages, or one of the
// agent's names as a whole word. Which of them count is the group's trigger mode
// (access.Trigger).
type Trigger struct {
	bot   mynah.User
	names [][]rune // lower-cased
}

// NewTrigger returns the trigger rules for bot with the given names.
func NewTrigger(bot mynah.User, names []string) Trigger {
	t := Trigger{bot: bot}
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			t.names = append(t.names, []rune(strings.ToLower(n)))
		}
	}
	return t
}

// Addressed reports whether msg addresses the agent under the default trigger mode
// (access.Mention): every private message does; in a group, any of Signals.
func (t Trigger) Addressed(msg *mynah.Message) bool {
	if !msg.Chat.IsGroup() {
		return msg.Chat.Type == mynah.ChatPrivate
	}
	return t.Signals(msg).Match(access.Mention)
}

// Signals reports the ways msg addresses the agent: an @mention of the bot (a mention or
// text_mention entity), a reply to one of the bot's messages, one of the agent's names.
func (t Trigger) Signals(msg *mynah.Message) access.Signals {
	var s access.Signals
	s.Reply = msg.ReplyTo != nil && msg.ReplyTo.Sender.ID == t.bot.ID && t.bot.ID != 0
	for _, e := range msg.Entities {
		switch e.Type {
		case "mention":
			if t.bot.Username != "" && strings.EqualFold(entityText(msg.Text, e), "@"+t.bot.Username) {
				s.Mention = true
			}
		case "text_mention":
			if e.User != nil && e.User.ID == t.bot.ID {
				s.Mention = true
			}
		}
	}
	s.Name = t.named(msg.Text)
	return s
}

// named reports whether text contains one of the names as a whole word. Word boundaries
// are Unicode-aware (letters and digits of any script), unlike regexp's ASCII-only \b.
func (t Trigger) named(text string) bool {
	if len(t.names) == 0 || text == "" {
		return false
	}
	lower := []rune(strings.ToLower(text))
	for _, name := range t.names {
		for i := 0; i+len(name) <= len(lower); i++ {
			if !equalRunes(lower[i:i+len(name)], name) {
				continue
			}
			if i > 0 && isWordRune(lower[i-1]) {
				continue
			}
			if end := i + len(name); end < len(lower) && isWordRune(lower[end]) {
				continue
			}
			return true
		}
	}
	return false
}

func equalRunes(a, b []rune) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || unicode.Is(unicode.Mn, r)
}

// entityText returns the text an entity covers; offsets are UTF-16 code units.
func entityText(text string, e mynah.Entity) string {
	u := utf16.Encode([]rune(text))
	if e.Offset < 0 || e.Length < 0 || e.Offset+e.Length > len(u) {
		return ""
	}
	return string(utf16.Decode(u[e.Offset : e.Offset+e.Length]))
}
