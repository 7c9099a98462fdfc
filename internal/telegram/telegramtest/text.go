package telegramtest

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Text limits in Unicode code points after entity parsing (TDLib
// message_text_length_max, message_caption_length_max) and the raw limit in
// bytes before parsing (Client.cpp).
const (
	maxTextLen    = 4096
	maxCaptionLen = 1024
	maxRawTextLen = 32768
)

// textRule is what a method allows for one text parameter.
type textRule struct {
	max        int
	allowEmpty bool
	tooLong    string
}

func messageRule() textRule { return textRule{max: maxTextLen, tooLong: msgTextTooLong} }
func captionRule() textRule {
	return textRule{max: maxCaptionLen, allowEmpty: true, tooLong: msgCaptionTooLong}
}
func draftRule() textRule {
	return textRule{max: maxTextLen, allowEmpty: true, tooLong: msgTextTooLong}
}

// formatted is a text after entity parsing.
type formatted struct {
	text     string
	entities []MessageEntity
}

// parseText parses raw per parse_mode, or takes entities from the
// entitiesParam parameter when no parse_mode is given. It reports the
// server's parse errors; limits are checked later by finish.
func parseText(raw string, p params, entitiesParam string) (formatted, *Error) {
	if len(raw) > maxRawTextLen {
		return formatted{}, badRequest(msgRawTextTooLong)
	}
	switch strings.ToLower(p.str("parse_mode")) {
	case "", "none":
		var es []MessageEntity
		if p.has(entitiesParam) {
			if err := p.decode(entitiesParam, &es); err != nil {
				return formatted{}, badRequest("can't parse MessageEntity: " + err.Error())
			}
		}
		return formatted{text: raw, entities: es}, nil
	case "html":
		text, es, err := parseHTML(raw)
		if err != nil {
			return formatted{}, parseEntitiesError(err.Error())
		}
		return formatted{text: text, entities: es}, nil
	case "markdown", "markdownv2":
		// Markdown is not parsed by the emulator; the text is kept as is.
		return formatted{text: raw}, nil
	}
	return formatted{}, badRequest(msgBadParseMode)
}

// finish trims the text as TDLib's fix_formatted_text does, enforces the
// rule's limits and adds the entities Telegram detects by itself.
func (f formatted) finish(rule textRule) (formatted, *Error) {
	trimmed := strings.TrimLeftFunc(f.text, unicode.IsSpace)
	left := utf16Count(f.text[:len(f.text)-len(trimmed)])
	trimmed = strings.TrimRightFunc(trimmed, unicode.IsSpace)
	if trimmed == "" && !rule.allowEmpty {
		return formatted{}, badRequest(msgTextMustBeNonEmpty)
	}
	if utf8.RuneCountInString(trimmed) > rule.max {
		return formatted{}, badRequest(rule.tooLong)
	}
	n := utf16Count(trimmed)
	var es []MessageEntity
	for _, e := range f.entities {
		start, end := max(e.Offset-left, 0), min(e.Offset-left+e.Length, n)
		if end > start {
			e.Offset, e.Length = start, end-start
			es = append(es, e)
		}
	}
	return formatted{text: trimmed, entities: detectEntities(trimmed, es)}, nil
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// utf16Count returns the length of s in UTF-16 code units.
func utf16Count(s string) int {
	n := 0
	for _, r := range s {
		n += utf16Len(r)
	}
	return n
}

// UTF16Range returns the UTF-16 offset and length of the first occurrence of
// sub in s, as message entities count them; ok is false if sub is absent.
func UTF16Range(s, sub string) (offset, length int, ok bool) {
	i := strings.Index(s, sub)
	if i < 0 {
		return 0, 0, false
	}
	return utf16Count(s[:i]), utf16Count(sub), true
}

var (
	mentionRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@[A-Za-z0-9_]{3,32}`) })
	botCommandRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?`) })
	urlRE        = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`https?://[^\s<>"]+`) })
	hashtagRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`#[\p{L}\p{N}_]+`) })
)

// detectEntities adds the mention, bot_command, url and hashtag entities
// Telegram finds in plain text, outside code, pre and links, to es.
func detectEntities(text string, es []MessageEntity) []MessageEntity {
	wordByte := func(i int) bool {
		if i < 0 || i >= len(text) {
			return false
		}
		r, _ := utf8.DecodeRuneInString(text[i:])
		if i > 0 && !utf8.RuneStart(text[i]) {
			r, _ = utf8.DecodeLastRuneInString(text[:i+1])
		}
		return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	prevRune := func(i int) rune {
		if i == 0 {
			return ' '
		}
		r, _ := utf8.DecodeLastRuneInString(text[:i])
		return r
	}
	covered := func(off, length int) bool {
		for _, e := range es {
			switch e.Type {
			case "code", "pre", "text_link", "text_mention", "url", "mention", "bot_command":
				if off < e.Offset+e.Length && e.Offset < off+length {
					return true
				}
			}
		}
		return false
	}
	add := func(typ string, start, end int) {
		off, length := utf16Count(text[:start]), utf16Count(text[start:end])
		if !covered(off, length) {
			es = append(es, MessageEntity{Type: typ, Offset: off, Length: length})
		}
	}
	for _, m := range mentionRE().FindAllStringIndex(text, -1) {
		if p := prevRune(m[0]); p != '@' && p != '/' && !wordByte(m[0]-1) && !wordByte(m[1]) {
			add("mention", m[0], m[1])
		}
	}
	for _, m := range botCommandRE().FindAllStringIndex(text, -1) {
		if p := prevRune(m[0]); (unicode.IsSpace(p) || p == '(') && !wordByte(m[1]) {
			add("bot_command", m[0], m[1])
		}
	}
	for _, m := range urlRE().FindAllStringIndex(text, -1) {
		end := m[0] + len(strings.TrimRight(text[m[0]:m[1]], ".,;:!?)'"))
		add("url", m[0], end)
	}
	for _, m := range hashtagRE().FindAllStringIndex(text, -1) {
		if !wordByte(m[0] - 1) {
			add("hashtag", m[0], m[1])
		}
	}
	slices.SortStableFunc(es, func(a, b MessageEntity) int {
		return cmp.Or(cmp.Compare(a.Offset, b.Offset), cmp.Compare(b.Length, a.Length))
	})
	return es
}
