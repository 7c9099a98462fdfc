package tghtml

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// TestFormatGolden renders every testdata/format/*.md and compares with the .html beside it.
func TestFormatGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/format/*.md")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(strings.TrimSuffix(filepath.Base(in), ".md"), func(t *testing.T) {
			got := Format(readFile(t, in))
			if _, err := parseTelegram(got); err != nil {
				t.Errorf("output is not valid Telegram HTML: %v\n%s", err, got)
			}
			golden(t, strings.TrimSuffix(in, ".md")+".html", got)
		})
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		name, md, want string
	}{
		{"empty", "", ""},
		{"blank", " \n\n\t\n", ""},
		{"bold", "**b**", "<b>b</b>"},
		{"bold underscores", "__b__", "<b>b</b>"},
		{"italic", "*i* _i_", "<i>i</i> <i>i</i>"},
		{"strike", "~~s~~", "<s>s</s>"},
		{"code", "`a<b`", "<code>a&lt;b</code>"},
		{"spoiler", "||x||", "<tg-spoiler>x</tg-spoiler>"},
		{"spoiler needs two bars", "|x| and |||x|||", "|x| and |||x|||"},
		{"nested same tag", "**a **b** c**", "<b>a b c</b>"},
		{"heading", "# T\nx", "<b>T</b>\n\nx"},
		{"link", `[t](https://e.com/?a="1"&b)`, `<a href="https://e.com/?a=%221%22&amp;b">t</a>`},
		{"link in link", "[a [b](https://b.com)](https://a.com)", `[a <a href="https://b.com">b</a>](https://a.com)`},
		{"image", "![cat](https://e.com/c.png)", `<a href="https://e.com/c.png">cat</a>`},
		{"relative link", "[t](/x)", "t"},
		{"autolink", "<https://e.com>", `<a href="https://e.com">https://e.com</a>`},
		{"ordered start", "7. a\n8. b", "7. a\n8. b"},
		{"nested list", "- a\n  - b", "• a\n  • b"},
		{"ordered nested", "1. a\n   1. b\n      - c", "1. a\n   1. b\n      • c"},
		{"thematic break", "a\n\n---\n\nb", "a\n\n———\n\nb"},
		{"fenced", "```go\nx := 1\n```", `<pre><code class="language-go">x := 1</code></pre>`},
		{"indented", "    x\n    y", "<pre>x\ny</pre>"},
		{"quote", "> q\n> r", "<blockquote>q\nr</blockquote>"},
		{"raw html", "<i>x</i>", "&lt;i&gt;x&lt;/i&gt;"},
		{"soft break", "a\nb", "a\nb"},
		{"hard break", "a  \nb\\\nc", "a\nb\nc"},
		{"paragraphs", "a\n\n\n\nb", "a\n\nb"},
		{"table", "| a | b |\n|---|--:|\n| xy | 1 |", "<pre>a  | b\n---+--\nxy | 1</pre>"},
		{"table runes", "| é | b |\n|---|---|\n| Жук | 1 |", "<pre>é   | b\n----+--\nЖук | 1</pre>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Format(tt.md)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Format(%q) mismatch (-want +got):\n%s", tt.md, diff)
			}
		})
	}
}

// TestFormatPlainText checks that chat replies without Markdown come out unchanged apart
// from HTML escaping.
func TestFormatPlainText(t *testing.T) {
	tests := []string{
		"Привет! Как дела?\nВсё хорошо 👍",
		"Первый абзац.\n\nВторой абзац,\nс переносом строки.",
		"你好，世界！\n今天天气很好。",
		"Emoji only: 😀🎉👨‍👩‍👧‍👦🇺🇦",
		"Tom & Jerry <3, a > b, \"quoted\", it's fine.",
		"Price: 5$ (about 450₽), 50% off; e-mail me@example.com or visit example.com.",
		"snake_case and file_name_here.go stay as they are.",
	}
	for _, md := range tests {
		t.Run("", func(t *testing.T) {
			got := Format(md)
			want := escapeText(md)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Format(%q) mismatch (-want +got):\n%s", md, diff)
			}
		})
	}
}

func TestFormatNoTrailingWhitespace(t *testing.T) {
	for _, md := range []string{"a\n\n", "- a\n-\n", "# h\n\n\n", "> q\n>\n", "```\nx\n\n\n```\n\n"} {
		got := Format(md)
		if strings.TrimRightFunc(got, unicode.IsSpace) != got {
			t.Errorf("Format(%q) = %q, has trailing whitespace", md, got)
		}
	}
}
