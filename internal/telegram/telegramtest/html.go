package telegramtest

import (
	"fmt"
	"strconv"
	"strings"
)

// parseHTML parses Bot API HTML the way TDLib's parse_html does
// (MessageEntity.cpp): the same tag set, the same error details with byte
// offsets into the input, entities with UTF-16 offsets. The error is the
// detail that follows "can't parse entities: ".
func parseHTML(s string) (string, []MessageEntity, error) {
	at := func(i int) byte { // the input is NUL-terminated in TDLib
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	type open struct {
		tag, arg string
		offset   int // UTF-16 offset in the output text
		pos      int // byte position in the output text
	}
	var (
		text     strings.Builder
		utf16    int
		stack    []open
		entities []MessageEntity
	)
	for i := 0; i < len(s); {
		c := s[i]
		if c == '&' {
			if r, next, ok := decodeHTMLEntity(s, i); ok {
				text.WriteRune(r)
				utf16 += utf16Len(r)
				i = next
				continue
			}
		}
		if c != '<' {
			text.WriteByte(c)
			if c < 0x80 || c >= 0xc0 {
				utf16++
			}
			if c >= 0xf0 {
				utf16++
			}
			i++
			continue
		}

		begin := i
		i++
		if at(i) != '/' {
			for at(i) != 0 && !isHTMLSpace(at(i)) && at(i) != '>' {
				i++
			}
			if at(i) == 0 {
				return "", nil, tdlibError("Unclosed start tag at byte offset %d", begin)
			}
			tag := strings.ToLower(s[begin+1 : i])
			if !supportedTag(tag) {
				return "", nil, tdlibError("Unsupported start tag \"%s\" at byte offset %d", tag, begin)
			}
			arg := ""
			for at(i) != '>' {
				for at(i) != 0 && isHTMLSpace(at(i)) {
					i++
				}
				if at(i) == '>' {
					break
				}
				attrBegin := i
				for !isHTMLSpace(at(i)) && at(i) != '=' && at(i) != '>' {
					if at(i) == 0 {
						return "", nil, tdlibError("Unclosed start tag \"%s\" at byte offset %d", tag, begin)
					}
					i++
				}
				attr := s[attrBegin:i]
				if attr == "" {
					return "", nil, tdlibError("Empty attribute name in the tag \"%s\" at byte offset %d", tag, begin)
				}
				for at(i) != 0 && isHTMLSpace(at(i)) {
					i++
				}
				if at(i) != '=' {
					if tag == "blockquote" && attr == "expandable" {
						arg = "expandable"
						continue
					}
					if at(i) == 0 {
						return "", nil, tdlibError("Unclosed start tag \"%s\" at byte offset %d", tag, begin)
					}
					return "", nil, tdlibError("Expected equal sign in declaration of an attribute of the tag \"%s\" at byte offset %d", tag, begin)
				}
				i++
				for at(i) != 0 && isHTMLSpace(at(i)) {
					i++
				}
				if at(i) == 0 {
					return "", nil, tdlibError("Unclosed start tag at byte offset %d", begin)
				}
				var value strings.Builder
				if q := at(i); q != '\'' && q != '"' {
					// A name token: letters, digits, periods and hyphens, case-insensitive.
					tokenBegin := i
					for isAlnum(at(i)) || at(i) == '.' || at(i) == '-' {
						i++
					}
					value.WriteString(strings.ToLower(s[tokenBegin:i]))
					if !isHTMLSpace(at(i)) && at(i) != '>' {
						return "", nil, tdlibError("Unexpected end of name token at byte offset %d", tokenBegin)
					}
				} else {
					i++
					for at(i) != q && at(i) != 0 {
						if at(i) == '&' {
							if r, next, ok := decodeHTMLEntity(s, i); ok {
								value.WriteRune(r)
								i = next
								continue
							}
						}
						value.WriteByte(at(i))
						i++
					}
					if at(i) == q {
						i++
					}
				}
				if at(i) == 0 {
					return "", nil, tdlibError("Unclosed start tag at byte offset %d", begin)
				}
				v := value.String()
				switch {
				case tag == "a" && attr == "href":
					arg = v
				case tag == "code" && attr == "class" && strings.HasPrefix(v, "language-"):
					arg = v[len("language-"):]
				case tag == "span" && attr == "class" && strings.HasPrefix(v, "tg-"):
					arg = v[len("tg-"):]
				case tag == "tg-emoji" && attr == "emoji-id":
					arg = v
				case tag == "tg-time" && attr == "unix":
					arg = v
				case tag == "blockquote" && attr == "expandable":
					arg = "expandable"
				}
			}
			if tag == "span" && arg != "spoiler" {
				return "", nil, tdlibError("Tag \"span\" must have class \"tg-spoiler\" at byte offset %d", begin)
			}
			stack = append(stack, open{tag: tag, arg: arg, offset: utf16, pos: text.Len()})
		} else {
			if len(stack) == 0 {
				return "", nil, tdlibError("Unexpected end tag at byte offset %d", begin)
			}
			i++
			nameBegin := i
			for at(i) != 0 && !isHTMLSpace(at(i)) && at(i) != '>' {
				i++
			}
			if at(i) == 0 {
				return "", nil, tdlibError("Unclosed end tag at byte offset %d", begin)
			}
			endTag := s[nameBegin:i]
			for isHTMLSpace(at(i)) {
				i++
			}
			if at(i) != '>' {
				return "", nil, tdlibError("Unclosed end tag at byte offset %d", begin)
			}
			top := stack[len(stack)-1]
			if endTag != "" && endTag != top.tag {
				return "", nil, tdlibError("Unmatched end tag at byte offset %d, expected \"</%s>\", found \"</%s>\"", begin, top.tag, endTag)
			}
			if utf16 > top.offset {
				e, err := htmlEntity(top.tag, top.arg, top.offset, utf16-top.offset, text.String()[top.pos:], entities)
				if err != nil {
					return "", nil, err
				}
				if e != nil {
					entities = append(entities, *e)
				}
			}
			stack = stack[:len(stack)-1]
		}
		i++ // '>'
	}
	if len(stack) > 0 {
		return "", nil, tdlibError("Can't find end tag corresponding to start tag \"%s\"", stack[len(stack)-1].tag)
	}
	return text.String(), mergePreCode(entities), nil
}

// htmlEntity returns the entity a closed tag produces, or nil for none.
func htmlEntity(tag, arg string, offset, length int, inner string, prev []MessageEntity) (*MessageEntity, error) {
	e := &MessageEntity{Offset: offset, Length: length}
	switch tag {
	case "i", "em":
		e.Type = "italic"
	case "b", "strong":
		e.Type = "bold"
	case "s", "strike", "del":
		e.Type = "strikethrough"
	case "u", "ins":
		e.Type = "underline"
	case "tg-spoiler", "span":
		e.Type = "spoiler"
	case "tg-emoji":
		id, err := strconv.ParseInt(arg, 10, 64)
		if err != nil || id <= 0 || arg[0] == '+' {
			return nil, tdlibError("Invalid custom emoji identifier specified")
		}
		e.Type, e.CustomEmojiID = "custom_emoji", arg
	case "tg-time":
		unix, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			return nil, nil
		}
		e.Type, e.UnixTime = "date_time", unix
	case "a":
		url := arg
		if url == "" {
			url = inner
		}
		if url == "" {
			return nil, nil
		}
		e.Type, e.URL = "text_link", url
	case "pre":
		e.Type = "pre"
	case "code":
		e.Type, e.Language = "code", arg
	case "blockquote":
		e.Type = "blockquote"
		if arg == "expandable" {
			e.Type = "expandable_blockquote"
		}
	}
	return e, nil
}

// mergePreCode turns <pre><code class="language-x"> into one pre entity with
// a language, as TDLib does, and drops a code entity spanning a whole pre.
func mergePreCode(es []MessageEntity) []MessageEntity {
	out := es[:0]
	for i, e := range es { // a code entity hands its language to the pre after it
		if e.Type == "code" && i+1 < len(es) && es[i+1].Type == "pre" &&
			es[i+1].Offset == e.Offset && es[i+1].Length == e.Length {
			es[i+1].Language = e.Language
			continue
		}
		out = append(out, e)
	}
	for i := range out {
		if out[i].Type == "code" {
			out[i].Language = ""
		}
	}
	return out
}

func supportedTag(tag string) bool {
	switch tag {
	case "a", "b", "strong", "i", "em", "s", "strike", "del", "u", "ins",
		"tg-spoiler", "tg-emoji", "tg-time", "span", "pre", "code", "blockquote":
		return true
	}
	return false
}

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// decodeHTMLEntity decodes the entity at s[i] ('&'), following TDLib's
// decode_html_entity: &lt; &gt; &amp; &quot; and numeric references, the
// semicolon optional. ok is false when s[i:] is not such an entity.
func decodeHTMLEntity(s string, i int) (r rune, next int, ok bool) {
	at := func(j int) byte {
		if j < len(s) {
			return s[j]
		}
		return 0
	}
	end := i + 1
	var res int
	if at(i+1) == '#' {
		end++
		if at(i+2) == 'x' {
			end++
			for {
				d := hexVal(at(end))
				if d < 0 {
					break
				}
				res = res*16 + d
				end++
				if res >= 0x10ffff {
					return 0, 0, false
				}
			}
		} else {
			for at(end) >= '0' && at(end) <= '9' {
				res = res*10 + int(at(end)-'0')
				end++
				if res >= 0x10ffff {
					return 0, 0, false
				}
			}
		}
		if res == 0 || end-i >= 10 {
			return 0, 0, false
		}
	} else {
		for c := at(end); c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'; c = at(end) {
			end++
		}
		switch s[i+1 : end] {
		case "lt":
			res = '<'
		case "gt":
			res = '>'
		case "amp":
			res = '&'
		case "quot":
			res = '"'
		default:
			return 0, 0, false
		}
	}
	if at(end) == ';' {
		end++
	}
	return rune(res), end, true
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// tdlibError formats a parse error in TDLib's own wording, which starts with a capital
// letter (Telegram sends it verbatim after "can't parse entities: ").
func tdlibError(format string, args ...any) error {
	return parseDetail(fmt.Sprintf(format, args...))
}

// parseDetail is the detail of a "can't parse entities" error.
type parseDetail string

func (d parseDetail) Error() string { return string(d) }
