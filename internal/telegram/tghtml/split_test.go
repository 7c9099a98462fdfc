package tghtml

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSplitGolden formats testdata/split/NAME.md, splits it at the given limit and compares the
// parts with NAME.golden.
func TestSplitGolden(t *testing.T) {
	tests := []struct {
		name  string
		limit int
	}{
		{"long_code", 120},
		{"inside_bold", 40},
		{"priorities", 60},
		{"quote_list_link", 45},
		{"llm_reply", 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := filepath.Join("testdata", "split", tt.name+".md")
			html := Format(readFile(t, in))
			parts := Split(html, tt.limit)
			checkParts(t, html, parts, tt.limit)
			var b strings.Builder
			for i, p := range parts {
				fmt.Fprintf(&b, "=== part %d (%d characters) ===\n%s\n", i+1, utf8.RuneCountInString(Plain(p)), p)
			}
			golden(t, filepath.Join("testdata", "split", tt.name+".golden"), strings.TrimSuffix(b.String(), "\n"))
		})
	}
}

// TestSplitCodeBlockReopens checks that a code block longer than the limit is cut on lines
// and every part is its own <pre> with the same language class.
func TestSplitCodeBlockReopens(t *testing.T) {
	var code strings.Builder
	for i := range 400 {
		fmt.Fprintf(&code, "\tfmt.Println(%d, \"<&>\")\n", i)
	}
	html := Format("Intro.\n\n```go\n" + code.String() + "```")
	parts := Split(html, MaxMessageLen)
	checkParts(t, html, parts, MaxMessageLen)
	if len(parts) < 3 {
		t.Fatalf("got %d parts, want at least 3", len(parts))
	}
	if parts[0] != "Intro." {
		t.Errorf("part 0 = %q, want the paragraph before the code alone", parts[0])
	}
	for i, p := range parts[1:] {
		if !strings.HasPrefix(p, `<pre><code class="language-go">`) || !strings.HasSuffix(p, "</code></pre>") {
			t.Errorf("part %d is not one whole go code block: %.60q…%.30q", i+1, p, p[len(p)-30:])
		}
		if !strings.HasSuffix(Plain(p), `"<&>")`) {
			t.Errorf("part %d is not cut at a line end: …%q", i+1, p[len(p)-40:])
		}
	}
}

func TestSplitInsideBold(t *testing.T) {
	html := Format("**" + strings.TrimSpace(strings.Repeat("жирный текст ", 10)) + "**")
	parts := Split(html, 30)
	checkParts(t, html, parts, 30)
	want := []string{
		"<b>жирный текст жирный текст</b>",
		"<b>жирный текст жирный текст</b>",
		"<b>жирный текст жирный текст</b>",
		"<b>жирный текст жирный текст</b>",
		"<b>жирный текст жирный текст</b>",
	}
	if diff := cmp.Diff(want, parts); diff != "" {
		t.Errorf("Split mismatch (-want +got):\n%s", diff)
	}
}

// TestSplitEntities checks that the limit applies to parsed text: 5000 '&' are 25000 bytes of
// HTML but only 5000 characters for Telegram.
func TestSplitEntities(t *testing.T) {
	html := Format(strings.Repeat("&", 5000))
	if len(html) != 25000 {
		t.Fatalf("len(Format) = %d, want 25000", len(html))
	}
	parts := Split(html, MaxMessageLen)
	checkParts(t, html, parts, MaxMessageLen)
	want := []string{strings.Repeat("&amp;", 4096), strings.Repeat("&amp;", 904)}
	if diff := cmp.Diff(want, parts); diff != "" {
		t.Errorf("Split mismatch (-want +got):\n%s", diff)
	}
	// An entity never splits, whatever the limit.
	html = "a&lt;b &#x1F600;&quot;c&gt;"
	for limit := 1; limit < 12; limit++ {
		checkParts(t, html, Split(html, limit), limit)
	}
}

func TestSplitLongWord(t *testing.T) {
	word := strings.Repeat("x", 10000)
	html := Format("short " + word + " end")
	parts := Split(html, MaxMessageLen)
	checkParts(t, html, parts, MaxMessageLen)
	want := []string{"short", word[:4096], word[4096:8192], word[8192:] + " end"}
	if diff := cmp.Diff(want, parts); diff != "" {
		t.Errorf("Split mismatch (-want +got):\n%s", diff)
	}
}

// TestSplitEmoji checks that hard cuts never split a code point and keep emoji sequences
// (skin tones, ZWJ families, flags, variation selectors, combining accents) whole when they fit.
func TestSplitEmoji(t *testing.T) {
	clusters := []string{"👍🏽", "👨‍👩‍👧‍👦", "🇩🇪", "❤️", "é", "😀", "ж", "中"}
	var all []string
	for range 20 {
		all = append(all, clusters...)
	}
	text := strings.Join(all, "")
	for _, limit := range []int{7, 8, 9, 10, 13, 50} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			parts := Split(text, limit)
			checkParts(t, text, parts, limit)
			for i, p := range parts {
				if !utf8.ValidString(p) {
					t.Fatalf("part %d is not valid UTF-8", i)
				}
				// Every part must be a whole number of clusters.
				rest := p
				for rest != "" {
					n := 0
					for _, c := range clusters {
						if strings.HasPrefix(rest, c) {
							n = len(c)
							break
						}
					}
					if n == 0 {
						t.Fatalf("part %d cuts a cluster: %q", i, p)
					}
					rest = rest[n:]
				}
			}
			got := SplitPlain(text, limit)
			if diff := cmp.Diff(parts, got); diff != "" {
				t.Errorf("SplitPlain differs from Split on text without markup (-Split +SplitPlain):\n%s", diff)
			}
		})
	}
	// A cluster longer than the limit must still be cut, on a code point.
	parts := SplitPlain("👨‍👩‍👧‍👦", 3)
	if diff := cmp.Diff([]string{"👨\u200d👩", "\u200d👧\u200d", "👦"}, parts); diff != "" {
		t.Errorf("SplitPlain mismatch (-want +got):\n%s", diff)
	}
}

func TestSplitSmall(t *testing.T) {
	tests := []struct {
		name  string
		html  string
		limit int
		want  []string
	}{
		{"empty", "", 10, nil},
		{"whitespace", " \n\n ", 10, nil},
		{"empty tags", "<b> </b>", 10, nil},
		{"fits", "<b>bold</b> &amp; text", 11, []string{"<b>bold</b> &amp; text"}},
		{"paragraph first", "aa bb\ncc\n\ndd ee", 12, []string{"aa bb\ncc", "dd ee"}},
		{"paragraph after limit", "aaaa\n\nbb", 4, []string{"aaaa", "bb"}},
		{"line before word", "aa bb\ncc dd", 10, []string{"aa bb", "cc dd"}},
		{"word", "aa bb cc", 6, []string{"aa bb", "cc"}},
		{"nbsp is no break", "aa\u00a0bbbb", 5, []string{"aa\u00a0bb", "bb"}},
		{"attributes reopen", `<a href="https://e.com/?a=1&amp;b=2">one two</a>`, 4,
			[]string{`<a href="https://e.com/?a=1&amp;b=2">one</a>`, `<a href="https://e.com/?a=1&amp;b=2">two</a>`}},
		{"nested reopen", "<blockquote><b>x <i>y z</i></b></blockquote>", 3,
			[]string{"<blockquote><b>x <i>y</i></b></blockquote>", "<blockquote><b><i>z</i></b></blockquote>"}},
		{"no empty element at cut", "aaa <b>bbb</b>", 3, []string{"aaa", "<b>bbb</b>"}},
		{"closing tag stays", "<b>aaa</b> bbb", 3, []string{"<b>aaa</b>", "bbb"}},
		{"hard cut before tag", "aaa<b>bbb</b>", 3, []string{"aaa", "<b>bbb</b>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.html, tt.limit)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Split(%q, %d) mismatch (-want +got):\n%s", tt.html, tt.limit, diff)
			}
		})
	}
}

func TestSplitPlain(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		limit int
		want  []string
	}{
		{"empty", "", 5, nil},
		{"fits", "<b>&amp;</b>", 12, []string{"<b>&amp;</b>"}},
		{"markup counts as text", "<b>&amp;</b>", 6, []string{"<b>&am", "p;</b>"}},
		{"priorities", "one two\nthree\n\nfour", 14, []string{"one two\nthree", "four"}},
		{"trims at cuts", "  a  \n\n  b  ", 3, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitPlain(tt.text, tt.limit)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SplitPlain(%q, %d) mismatch (-want +got):\n%s", tt.text, tt.limit, diff)
			}
		})
	}
}

func TestSplitPanicsOnBadLimit(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Split with limit 0 did not panic")
		}
	}()
	Split("x", 0)
}

func TestPlain(t *testing.T) {
	tests := []struct {
		html, want string
	}{
		{"", ""},
		{"<b>a</b> <i>b</i>", "a b"},
		{`<pre><code class="language-go">x &lt; y</code></pre>`, "x < y"},
		{`<a href="https://e.com/?a=&quot;x&quot;">link</a>`, "link"},
		{"&amp;&lt;&gt;&quot;&#65;&#x42;&#x1F600;", `&<>"AB😀`},
		{"&copy; &bogus; & x &#0; &#xD800;", "&copy; &bogus; & x &#0; &#xD800;"},
		{"a < b", "a < b"},
		{"line\n\nbreaks\n", "line\n\nbreaks\n"},
	}
	for _, tt := range tests {
		if got := Plain(tt.html); got != tt.want {
			t.Errorf("Plain(%q) = %q, want %q", tt.html, got, tt.want)
		}
	}
}
