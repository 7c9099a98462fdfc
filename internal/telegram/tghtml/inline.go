package tghtml

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"
)

func (r *renderer) inlines(parent ast.Node) {
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(c)
	}
}

func (r *renderer) inline(n ast.Node) {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(r.src)
		if n.IsRaw() {
			r.text(string(v))
		} else {
			r.text(unescape(v))
		}
		if n.SoftLineBreak() || n.HardLineBreak() {
			r.lineBreak()
		}
	case *ast.String:
		if n.IsRaw() || n.IsCode() {
			r.text(string(n.Value))
		} else {
			r.text(unescape(n.Value))
		}
	case *ast.CodeSpan:
		r.wrap(tagCode, "<code>", func() { r.text(codeSpanText(n, r.src)) })
	case *ast.Emphasis:
		switch n.Level {
		case 1:
			r.wrap(tagI, "<i>", func() { r.inlines(n) })
		case 2:
			r.wrap(tagB, "<b>", func() { r.inlines(n) })
		default:
			r.inlines(n)
		}
	case *east.Strikethrough:
		r.wrap(tagS, "<s>", func() { r.inlines(n) })
	case *spoiler:
		r.wrap(tagSpoiler, "<tg-spoiler>", func() { r.inlines(n) })
	case *ast.Link:
		r.link(n.Destination, func() { r.inlines(n) })
	case *ast.Image:
		r.link(n.Destination, func() { r.inlines(n) })
	case *ast.AutoLink:
		if n.AutoLinkType == ast.AutoLinkEmail {
			// Telegram links e-mail addresses in text by itself.
			r.text(string(n.Label(r.src)))
			return
		}
		label := string(n.Label(r.src))
		r.link(n.URL(r.src), func() { r.text(label) })
	case *ast.RawHTML:
		r.text(string(n.Segments.Value(r.src)))
	default:
		r.inlines(n)
	}
}

// link renders body as a link to dest. Telegram drops or rejects links it cannot open
// (relative paths, anchors, javascript:), so those keep only their text; a link without text
// shows its address.
func (r *renderer) link(dest []byte, body func()) {
	href := string(util.URLEscape(dest, true))
	if !linkable(href) {
		body()
		return
	}
	r.wrap(tagA, `<a href="`+escapeAttr(href)+`">`, func() {
		m := r.mark()
		body()
		if len(r.out) == m.n {
			r.text(href)
		}
	})
}

// linkSchemes are the URL schemes Telegram opens from a text link.
var linkSchemes = [...]string{"http://", "https://", "tg://", "ton://"}

func linkable(href string) bool {
	for _, s := range linkSchemes {
		if len(href) > len(s) && strings.EqualFold(href[:len(s)], s) {
			return true
		}
	}
	return false
}

// codeSpanText is the literal content of a code span; line endings inside it read as spaces.
func codeSpanText(n *ast.CodeSpan, src []byte) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		}
	}
	return strings.ReplaceAll(b.String(), "\n", " ")
}

// unescape resolves what Markdown text may still hold after parsing: backslash escapes of
// ASCII punctuation and HTML character references, as goldmark's own renderer does.
func unescape(v []byte) string {
	var b strings.Builder
	b.Grow(len(v))
	for i := 0; i < len(v); {
		switch c := v[i]; {
		case c == '\\' && i+1 < len(v) && util.IsPunct(v[i+1]):
			b.WriteByte(v[i+1])
			i += 2
		case c == '&':
			s, n := charRef(v[i:])
			if n == 0 {
				s, n = "&", 1
			}
			b.WriteString(s)
			i += n
		case c == 0:
			b.WriteRune(utf8.RuneError)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// charRef decodes the HTML character reference (&name; &#123; &#x1F;) at the start of v,
// returning its text and length in bytes, or 0 if v does not start with one.
func charRef(v []byte) (string, int) {
	semi := -1
	for i := 1; i < len(v) && i < 40; i++ {
		if v[i] == ';' {
			semi = i
			break
		}
	}
	if semi < 2 {
		return "", 0
	}
	body := string(v[1:semi])
	if body[0] != '#' {
		for _, c := range []byte(body) {
			if !util.IsAlphaNumeric(c) {
				return "", 0
			}
		}
		e, ok := util.LookUpHTML5EntityByName(body)
		if !ok {
			return "", 0
		}
		return string(e.Characters), semi + 1
	}
	digits, base, maxLen := body[1:], 10, 7
	if digits != "" && (digits[0] == 'x' || digits[0] == 'X') {
		digits, base, maxLen = digits[1:], 16, 6
	}
	if digits == "" || len(digits) > maxLen {
		return "", 0
	}
	n, err := strconv.ParseUint(digits, base, 32)
	if err != nil {
		return "", 0
	}
	cp := rune(n)
	if cp == 0 || !utf8.ValidRune(cp) {
		cp = utf8.RuneError
	}
	return string(cp), semi + 1
}
