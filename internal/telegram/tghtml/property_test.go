package tghtml

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// splitLimits are the limits every generated or fuzzed input is split at.
var splitLimits = []int{MaxMessageLen, 50, 7, 1}

// TestSplitProperties formats deterministic random Markdown and checks the contract of Split
// on the result at several limits.
func TestSplitProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 400
	if testing.Short() {
		n = 50
	}
	for i := range n {
		md := randomMarkdown(rng)
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkFormatSplit(t, md) })
	}
}

// TestSplitPropertiesLong checks inputs long enough to need several 4096-character parts.
func TestSplitPropertiesLong(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 5 {
		var b strings.Builder
		for b.Len() < 30000 {
			b.WriteString(randomMarkdown(rng))
			b.WriteString("\n\n")
		}
		md := b.String()
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			html := Format(md)
			for _, limit := range []int{MaxMessageLen, 1000} {
				checkParts(t, html, Split(html, limit), limit)
			}
		})
	}
}

// FuzzFormatSplit checks the same properties on fuzzed Markdown; the seed corpus is the golden
// inputs plus a few generated documents.
func FuzzFormatSplit(f *testing.F) {
	inputs, _ := filepath.Glob("testdata/*/*.md")
	for _, in := range inputs {
		b, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		f.Add(randomMarkdown(rng))
	}
	f.Fuzz(func(t *testing.T, md string) {
		if len(md) > 5000 {
			t.Skip("long inputs add nothing but time")
		}
		checkFormatSplit(t, md)
	})
}

// checkFormatSplit checks that Format(md) is valid Telegram HTML and that splitting it, and
// splitting its plain text, keeps the contract at every limit in splitLimits.
func checkFormatSplit(t *testing.T, md string) {
	t.Helper()
	html := Format(md)
	if _, err := parseTelegram(html); err != nil {
		t.Fatalf("Format(%q) is not valid Telegram HTML: %v\n%s", md, err, html)
	}
	plain := Plain(html)
	for _, limit := range splitLimits {
		checkParts(t, html, Split(html, limit), limit)
		if err := joinsTo(SplitPlain(plain, limit), plain); err != nil {
			t.Errorf("SplitPlain at %d: %v", limit, err)
		}
	}
}

// mdPieces are the fragments random Markdown is built from: words in several scripts, emoji
// sequences, every inline delimiter and the characters that need escaping.
var mdPieces = []string{
	"word", "слово", "中文字", "😀", "👍🏽", "👨‍👩‍👧", "🇩🇪", "e\u0301", "❤️", "x\u00a0y",
	"**", "*", "__", "_", "~~", "~", "||", "`", "``", "\\", "\\*", "[", "]", "(", ")",
	"](https://example.com/?a=1&b=\"2\")", "](/rel)", "<https://go.dev>", "<me@x.org>", "![",
	"<b>", "</i>", "<br>", "&amp;", "&lt;", "&#x1F600;", "&bogus;", "&", "<", ">", "\"", "'",
	"#", "|", "-", "1.", "  ", "\t", "supercalifragilisticexpialidocious",
}

func randomInline(rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(25) {
		b.WriteString(mdPieces[rng.IntN(len(mdPieces))])
		switch rng.IntN(4) {
		case 0:
			b.WriteByte(' ')
		case 1:
			if rng.IntN(4) == 0 {
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// randomMarkdown returns a document of random blocks, each with random inline content.
func randomMarkdown(rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(8) {
		switch rng.IntN(10) {
		case 0:
			b.WriteString(strings.Repeat("#", 1+rng.IntN(3)) + " " + randomInline(rng))
		case 1:
			lang := []string{"", "go", "py\"x", "c++"}[rng.IntN(4)]
			b.WriteString("```" + lang + "\n")
			for range rng.IntN(6) {
				b.WriteString(strings.Repeat(" ", rng.IntN(6)) + randomInline(rng) + "\n")
			}
			if rng.IntN(5) > 0 {
				b.WriteString("```")
			}
		case 2:
			for range 1 + rng.IntN(4) {
				indent := strings.Repeat("  ", rng.IntN(3))
				marker := []string{"- ", "* ", "1. ", "3) "}[rng.IntN(4)]
				b.WriteString(indent + marker + randomInline(rng) + "\n")
			}
		case 3:
			for range 1 + rng.IntN(3) {
				b.WriteString(strings.Repeat("> ", 1+rng.IntN(2)) + randomInline(rng) + "\n")
			}
		case 4:
			cols := 1 + rng.IntN(3)
			row := func() string {
				cells := make([]string, cols)
				for i := range cells {
					cells[i] = strings.ReplaceAll(randomInline(rng), "\n", " ")
				}
				return "| " + strings.Join(cells, " | ") + " |\n"
			}
			b.WriteString(row())
			b.WriteString("|" + strings.Repeat(" :-- |", cols) + "\n")
			for range rng.IntN(3) {
				b.WriteString(row())
			}
		case 5:
			b.WriteString([]string{"---", "***", "<div>\n*x*\n</div>", "    indented <code>"}[rng.IntN(4)])
		default:
			b.WriteString(randomInline(rng))
		}
		b.WriteString([]string{"\n", "\n\n", "\n\n\n"}[rng.IntN(3)])
	}
	return b.String()
}
