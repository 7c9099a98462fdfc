package tghtml

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// kindSpoiler is the AST kind of a ||spoiler|| span. Registering it allocates a kind number
// once; the value never changes afterwards.
var kindSpoiler = ast.NewNodeKind("TelegramSpoiler")

// spoiler is an inline node for text between || delimiters; it renders as <tg-spoiler>.
type spoiler struct {
	ast.BaseInline
}

func (n *spoiler) Kind() ast.NodeKind { return kindSpoiler }

func (n *spoiler) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// spoilerDelimiters pairs || openers with || closers, following the same flanking rules as
// ~~strikethrough~~, so "a || b" in prose stays text.
type spoilerDelimiters struct{}

func (spoilerDelimiters) IsDelimiter(b byte) bool { return b == '|' }

func (spoilerDelimiters) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}

func (spoilerDelimiters) OnMatch(consumes int) ast.Node { return &spoiler{} }

// spoilerParser is a goldmark inline parser for ||spoiler||. It holds no state and is safe
// for concurrent use.
type spoilerParser struct{}

func (spoilerParser) Trigger() []byte { return []byte{'|'} }

func (spoilerParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, segment := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 2, spoilerDelimiters{})
	if d == nil || d.OriginalLength != 2 || before == '|' {
		return nil
	}
	d.Segment = segment.WithStop(segment.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}
