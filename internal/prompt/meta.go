package prompt

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mynah-ai/mynah"
)

// excerptRunes bounds the reply excerpt in a [meta] header.
const excerptRunes = 80

// Meta renders the header that precedes a message in the prompt:
//
//	[meta] message_id=456 time=2026-11-21 10:02 UTC name="Alice" username=@alice user_id=987654 reply_to=455 reply_excerpt="…"
func Meta(m *mynah.Message, loc *time.Location) string {
	var b strings.Builder
	b.WriteString("[meta] message_id=")
	b.WriteString(strconv.FormatInt(int64(m.ID), 10))
	if !m.Time.IsZero() {
		b.WriteString(" time=")
		b.WriteString(quoteIfNeeded(m.Time.In(loc).Format("2006-01-02 15:04 MST")))
	}
	writeSender(&b, "", m.Sender)
	if !m.Edited.IsZero() {
		b.WriteString(" edited=true")
	}
	if r := m.ReplyTo; r != nil {
		fmt.Fprintf(&b, " reply_to=%d", r.ID)
		if r.Sender.ID != 0 {
			writeSender(&b, "reply_to_", r.Sender)
		}
		if ex := Excerpt(r.Text, excerptRunes); ex != "" {
			b.WriteString(" reply_excerpt=")
			b.WriteString(strconv.Quote(ex))
		}
	}
	if f := m.Forward; f != nil {
		name := f.Name
		if name == "" {
			name = f.From.Name()
		}
		if name == "" {
			name = "hidden"
		}
		b.WriteString(" forwarded_from=")
		b.WriteString(strconv.Quote(name))
	}
	return b.String()
}

func writeSender(b *strings.Builder, prefix string, u mynah.User) {
	if name := u.Name(); name != "" {
		b.WriteString(" " + prefix + "name=")
		b.WriteString(strconv.Quote(name))
	}
	if u.Username != "" {
		b.WriteString(" " + prefix + "username=@")
		b.WriteString(u.Username)
	}
	if u.ID != 0 {
		b.WriteString(" " + prefix + "user_id=")
		b.WriteString(strconv.FormatInt(int64(u.ID), 10))
	}
}

func quoteIfNeeded(s string) string {
	if strings.ContainsAny(s, " \"") {
		return strconv.Quote(s)
	}
	return s
}

// Excerpt returns the first n runes of s on one line, with "…" when cut.
func Excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n])) + "…"
}

// Media renders an attachment as compact text: "[sticker MrRibbit 💻: a grumpy frog at a
// laptop]", "[photo: a sunset]", "[voice 12s: "see you at six"]". A document shows an
// excerpt of its text (the whole text is searchable); one with no text yet shows its
// type and size. Kinds mynah cannot describe are kept as placeholders ("[poll]"), never
// dropped.
func Media(md mynah.Media) string {
	var b strings.Builder
	b.WriteString("[")
	b.WriteString(string(md.Kind))
	switch md.Kind {
	case mynah.MediaSticker:
		if md.SetName != "" {
			b.WriteString(" " + md.SetName)
		}
		if md.Emoji != "" {
			b.WriteString(" " + md.Emoji)
		}
	case mynah.MediaDocument, mynah.MediaAudio:
		if md.FileName != "" {
			b.WriteString(" " + strconv.Quote(md.FileName))
		}
		if md.Description == "" {
			if md.MimeType != "" {
				b.WriteString(" " + md.MimeType)
			}
			if md.Size > 0 {
				b.WriteString(" " + Size(md.Size))
			}
		}
	}
	if md.Duration > 0 {
		fmt.Fprintf(&b, " %ds", md.Duration)
	}
	if d := Clean(md.Description); d != "" {
		if md.Kind == mynah.MediaDocument && utf8.RuneCountInString(d) > documentRunes {
			d = fmt.Sprintf("%s (%d characters in all; search finds the rest)", Excerpt(d, documentRunes), utf8.RuneCountInString(d))
		}
		b.WriteString(": " + Neutralize(d))
	}
	b.WriteString("]")
	return b.String()
}

// documentRunes is how much of a document's text a prompt shows.
const documentRunes = 2000

// Size renders a byte count for people: "812 B", "3.4 KB", "19.9 MB".
func Size(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// StripMeta removes prompt headers the model echoed ("[meta] message_id=… name=…"), so
// they never reach Telegram: a [meta] header's key=value pairs are cut and any text after
// them on the line is kept; other header lines ("[system] …") are dropped whole.
func StripMeta(reply string) string {
	if !strings.Contains(reply, "[") {
		return strings.TrimSpace(reply)
	}
	lines := strings.Split(reply, "\n")
	kept := lines[:0]
	for _, line := range lines {
		trimmed := strings.TrimSpace(line)
		if !IsHeader(trimmed) {
			kept = append(kept, line)
			continue
		}
		end := strings.IndexByte(trimmed, ']')
		if strings.EqualFold(strings.TrimSpace(trimmed[1:end]), "meta") {
			if rest := skipPairs(trimmed[end+1:]); rest != "" {
				kept = append(kept, rest)
			}
		}
	}
	return strings.TrimSpace(strings.Join(kept, "\n"))
}

// skipPairs drops leading key=value pairs (values bare or double-quoted) and returns the rest.
func skipPairs(s string) string {
	for {
		s = strings.TrimLeft(s, " \t")
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || strings.ContainsAny(s[:eq], " \t\"") {
			return s
		}
		v := s[eq+1:]
		if strings.HasPrefix(v, "\"") {
			q, err := strconv.QuotedPrefix(v)
			if err != nil {
				return s
			}
			s = v[len(q):]
			continue
		}
		if sp := strings.IndexAny(v, " \t"); sp >= 0 {
			s = v[sp:]
		} else {
			s = ""
		}
	}
}
