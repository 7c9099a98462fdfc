// Package tghtml turns Markdown, as language models write it, into the HTML subset that
// Telegram accepts with parse_mode HTML, and cuts such HTML (or plain text) into parts that
// fit Telegram's per-message limit.
//
// Every function in this package is pure and safe for concurrent use.
package tghtml

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// parsers holds parsers for Format to reuse: building one allocated ~18 KB of the ~21 KB
// a short reply cost (5% of the bytes a serving process allocates per answered message),
// and a goldmark parser keeps each parse's state in the parse's own context, so one used
// by a goroutine at a time can parse again.
var parsers = sync.Pool{New: func() any { return newParser() }}

// newParser returns a parser for CommonMark plus GFM strikethrough and tables plus
// ||spoilers||.
func newParser() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
			util.Prioritized(extension.NewStrikethroughParser(), 500),
			util.Prioritized(spoilerParser{}, 500),
		)...),
		parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
			util.Prioritized(extension.NewTableParagraphTransformer(), 200),
		)...),
		parser.WithASTTransformers(util.Prioritized(extension.NewTableASTTransformer(), 0)),
	)
}

// Format renders Markdown as Telegram HTML (parse_mode HTML).
//
// Emphasis, strikethrough (~~x~~), code spans and ||spoilers|| map to b, i, s, code and
// tg-spoiler; code blocks to pre (with <code class="language-x"> for a fenced language); block
// quotes to blockquote; links, autolinks and images to <a href> (links Telegram cannot open,
// such as relative or mailto: ones, keep only their text). Headings become bold lines, lists
// "• item" or "1. item" lines indented by nesting, tables a <pre> grid, thematic breaks "———".
//
// The output escapes &, < and > in text (and " in attributes), never passes raw HTML from the
// input through, keeps single newlines, separates blocks by one blank line and has no leading
// or trailing whitespace. Text without Markdown syntax comes out unchanged apart from that
// escaping. Invalid UTF-8 becomes U+FFFD.
func Format(markdown string) string {
	// Telegram rejects invalid UTF-8 outright, and goldmark's CR handling is incomplete.
	src := []byte(strings.ReplaceAll(strings.ToValidUTF8(markdown, "\uFFFD"), "\r\n", "\n"))
	p := parsers.Get().(parser.Parser)
	doc := p.Parse(text.NewReader(src))
	parsers.Put(p)
	r := renderer{src: src, out: make([]byte, 0, len(src)+len(src)/8), lineStart: true}
	r.blocks(doc, 2)
	return strings.Trim(string(r.out), " \t\r\n")
}

// tag is an HTML element Format may open; renderer counts open ones to avoid nesting an
// element inside itself, which Telegram either rejects (a, blockquote) or gains nothing from.
type tag int

const (
	tagB tag = iota
	tagI
	tagS
	tagCode
	tagPre
	tagA
	tagBlockquote
	tagSpoiler
	numTags
)

// closers holds the end tag of each tag; it is never modified.
var closers = [numTags]string{
	tagB: "</b>", tagI: "</i>", tagS: "</s>", tagCode: "</code>", tagPre: "</pre>",
	tagA: "</a>", tagBlockquote: "</blockquote>", tagSpoiler: "</tg-spoiler>",
}

// renderer writes Telegram HTML for a goldmark AST. Newlines are owed lazily (pending) and
// paid only when more content follows, so nothing trails a block and blank lines never carry
// indentation.
type renderer struct {
	src       []byte
	out       []byte
	indent    string // written before the first content of every line
	pending   int    // newlines owed before the next content
	lineStart bool
	open      [numTags]int
}

// mark is a point in the output that renderer can return to.
type mark struct {
	n, pending int
	lineStart  bool
}

func (r *renderer) mark() mark { return mark{len(r.out), r.pending, r.lineStart} }

// content writes s (already HTML) after paying owed newlines and indentation.
func (r *renderer) content(s string) {
	if r.pending > 0 {
		if len(r.out) > 0 {
			for range r.pending {
				r.out = append(r.out, '\n')
			}
			r.lineStart = true
		}
		r.pending = 0
	}
	if r.lineStart {
		r.out = append(r.out, r.indent...)
		r.lineStart = false
	}
	r.out = append(r.out, s...)
}

// text writes s escaped; newlines in s become line breaks (indented like any other line).
func (r *renderer) text(s string) {
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			r.lineBreak()
		}
		if line != "" {
			r.content(escapeText(line))
		}
	}
}

func (r *renderer) lineBreak() { r.pending++ }

// blockBreak owes at least n newlines: 1 between tight list items, 2 between blocks.
func (r *renderer) blockBreak(n int) { r.pending = max(r.pending, n) }

// wrap renders body inside the element t opened by the start tag open. If t is already open
// only body is rendered; if body writes nothing, neither is the element.
func (r *renderer) wrap(t tag, open string, body func()) {
	if r.open[t] > 0 {
		body()
		return
	}
	m := r.mark()
	r.content(open)
	after := len(r.out)
	r.open[t]++
	body()
	r.open[t]--
	if len(r.out) == after {
		r.out, r.lineStart, r.pending = r.out[:m.n], m.lineStart, max(m.pending, r.pending)
		return
	}
	r.out = append(r.out, closers[t]...)
}

// blocks renders the children of parent, owing sep newlines between them.
func (r *renderer) blocks(parent ast.Node, sep int) {
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		if c != parent.FirstChild() {
			r.blockBreak(sep)
		}
		r.block(c)
	}
}

func (r *renderer) block(n ast.Node) {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		r.inlines(n)
	case *ast.Heading:
		r.wrap(tagB, "<b>", func() { r.inlines(n) })
	case *ast.ThematicBreak:
		r.content("———")
	case *ast.FencedCodeBlock:
		r.code(n.Lines(), string(n.Language(r.src)))
	case *ast.CodeBlock:
		r.code(n.Lines(), "")
	case *ast.HTMLBlock:
		s := string(n.Lines().Value(r.src))
		if n.HasClosure() {
			s += string(n.ClosureLine.Value(r.src))
		}
		r.text(strings.TrimRight(s, " \t\r\n"))
	case *ast.Blockquote:
		r.wrap(tagBlockquote, "<blockquote>", func() { r.blocks(n, 2) })
	case *ast.List:
		r.list(n)
	case *east.Table:
		r.table(n)
	default:
		r.blocks(n, 2)
	}
}

// code renders a code block as <pre>, with <code class="language-…"> inside when the fence
// names a language. Its lines are written verbatim: list indentation would change the code.
func (r *renderer) code(lines *text.Segments, lang string) {
	body := strings.TrimRight(string(lines.Value(r.src)), "\r\n")
	if strings.TrimSpace(body) == "" {
		return
	}
	open := "<pre>"
	if lang != "" {
		open = `<pre><code class="language-` + escapeAttr(lang) + `">`
	}
	r.content(open)
	r.out = append(r.out, escapeText(body)...)
	if lang != "" {
		r.out = append(r.out, "</code>"...)
	}
	r.out = append(r.out, "</pre>"...)
}

// list renders items as "• item" or "N. item" lines; continuation lines and nested lists are
// indented by the width of the marker.
func (r *renderer) list(l *ast.List) {
	sep := 2
	if l.IsTight {
		sep = 1
	}
	num := l.Start
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		if item != l.FirstChild() {
			r.blockBreak(sep)
		}
		marker := "•"
		if l.IsOrdered() {
			marker = strconv.Itoa(num) + string(l.Marker)
			num++
		}
		if !item.HasChildren() {
			r.content(marker)
			continue
		}
		r.content(marker + " ")
		outer := r.indent
		r.indent += strings.Repeat(" ", utf8.RuneCountInString(marker)+1)
		r.blocks(item, sep)
		r.indent = outer
	}
}

// escapeText escapes s for use as text in Telegram HTML.
func escapeText(s string) string {
	if !strings.ContainsAny(s, "&<>") {
		return s
	}
	return textEscaper.Replace(s)
}

// escapeAttr escapes s for use inside a double-quoted attribute value.
func escapeAttr(s string) string { return attrEscaper.Replace(s) }

// textEscaper and attrEscaper are immutable; strings.Replacer is safe for concurrent use.
var (
	textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
)
