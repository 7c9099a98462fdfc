package tghtml

import (
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// table renders a GFM table as a <pre> block: Telegram has no tables, and a monospace grid
// with columns padded to equal width in runes is the most readable stand-in. Formatting inside
// cells is dropped because Telegram allows nothing inside <pre>.
func (r *renderer) table(t *east.Table) {
	var rows [][]string
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, strings.TrimSpace(r.plainInlines(c)))
		}
		rows = append(rows, cells)
	}
	var widths []int
	for _, cells := range rows {
		for i, c := range cells {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	if len(widths) == 0 {
		return
	}
	var b strings.Builder
	for i, cells := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		for len(cells) > 1 && cells[len(cells)-1] == "" {
			cells = cells[:len(cells)-1]
		}
		var line strings.Builder
		for j, c := range cells {
			if j > 0 {
				line.WriteString(" | ")
			}
			align := east.AlignNone
			if j < len(t.Alignments) {
				align = t.Alignments[j]
			}
			line.WriteString(pad(c, widths[j], align))
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		if i == 0 {
			b.WriteByte('\n')
			for j, w := range widths {
				if j > 0 {
					b.WriteString("-+-")
				}
				b.WriteString(strings.Repeat("-", w))
			}
		}
	}
	r.content("<pre>")
	r.out = append(r.out, escapeText(b.String())...)
	r.out = append(r.out, "</pre>"...)
}

// pad pads s with spaces to w runes according to align.
func pad(s string, w int, align east.Alignment) string {
	gap := w - utf8.RuneCountInString(s)
	switch align {
	case east.AlignRight:
		return strings.Repeat(" ", gap) + s
	case east.AlignCenter:
		return strings.Repeat(" ", gap/2) + s + strings.Repeat(" ", gap-gap/2)
	default:
		return s + strings.Repeat(" ", gap)
	}
}

// plainInlines is the text of the inline children of n without any formatting.
func (r *renderer) plainInlines(n ast.Node) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				if c.IsRaw() {
					b.Write(c.Segment.Value(r.src))
				} else {
					b.WriteString(unescape(c.Segment.Value(r.src)))
				}
				if c.SoftLineBreak() || c.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(c.Value)
			case *ast.CodeSpan:
				b.WriteString(codeSpanText(c, r.src))
			case *ast.AutoLink:
				b.Write(c.Label(r.src))
			case *ast.RawHTML:
				b.Write(c.Segments.Value(r.src))
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return b.String()
}
