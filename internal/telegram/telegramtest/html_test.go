package telegramtest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHTML(t *testing.T) {
	tests := []struct {
		in       string
		text     string
		entities []MessageEntity
	}{
		{"plain & simple", "plain & simple", nil},
		{"a > b", "a > b", nil},
		{"&lt;&gt;&amp;&quot;", `<>&"`, nil},
		{"&lt&gt", "<>", nil},
		{"&#65;&#x42;&#67", "ABC", nil},
		{"&nbsp; and &copy", "&nbsp; and &copy", nil},
		{"<b>a<i>b</i></b>", "ab", []MessageEntity{{Type: "italic", Offset: 1, Length: 1}, {Type: "bold", Offset: 0, Length: 2}}},
		{"<B>x</b>", "x", []MessageEntity{{Type: "bold", Offset: 0, Length: 1}}},
		{"<b>😀</b>", "😀", []MessageEntity{{Type: "bold", Offset: 0, Length: 2}}},
		{"<strong>s</strong><em>e</em><ins>u</ins><del>d</del><strike>k</strike><s>s</s><u>u</u>", "seudksu", []MessageEntity{
			{Type: "bold", Length: 1}, {Type: "italic", Offset: 1, Length: 1}, {Type: "underline", Offset: 2, Length: 1},
			{Type: "strikethrough", Offset: 3, Length: 1}, {Type: "strikethrough", Offset: 4, Length: 1},
			{Type: "strikethrough", Offset: 5, Length: 1}, {Type: "underline", Offset: 6, Length: 1},
		}},
		{`<a href="https://example.com/?a=1&amp;b=2">site</a>`, "site", []MessageEntity{{Type: "text_link", Length: 4, URL: "https://example.com/?a=1&b=2"}}},
		{`<a href='x'>y</a>`, "y", []MessageEntity{{Type: "text_link", Length: 1, URL: "x"}}},
		{`<pre><code class="language-go">x := 1</code></pre>`, "x := 1", []MessageEntity{{Type: "pre", Length: 6, Language: "go"}}},
		{`<pre>p</pre><code class="language-go">c</code>`, "pc", []MessageEntity{{Type: "pre", Length: 1}, {Type: "code", Offset: 1, Length: 1}}},
		{`<blockquote>q</blockquote><blockquote expandable>e</blockquote>`, "qe", []MessageEntity{
			{Type: "blockquote", Length: 1}, {Type: "expandable_blockquote", Offset: 1, Length: 1},
		}},
		{`<tg-spoiler>s</tg-spoiler><span class="tg-spoiler">t</span>`, "st", []MessageEntity{
			{Type: "spoiler", Length: 1}, {Type: "spoiler", Offset: 1, Length: 1},
		}},
		{`<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>`, "👍", []MessageEntity{{Type: "custom_emoji", Length: 2, CustomEmojiID: "5368324170671202286"}}},
		{"<b></b>empty", "empty", nil},
		{"<b>x</>", "x", []MessageEntity{{Type: "bold", Length: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			text, entities, err := parseHTML(tt.in)
			if err != nil {
				t.Fatalf("parseHTML: %v", err)
			}
			if text != tt.text {
				t.Errorf("text = %q, want %q", text, tt.text)
			}
			if diff := cmp.Diff(tt.entities, entities); diff != "" {
				t.Errorf("entities (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseHTMLErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<a href", `Unclosed start tag "a" at byte offset 0`},
		{`<a href="x"`, `Unclosed start tag at byte offset 0`},
		{`<a ="x">y</a>`, `Empty attribute name in the tag "a" at byte offset 0`},
		{`<a href x>y</a>`, `Expected equal sign in declaration of an attribute of the tag "a" at byte offset 0`},
		{`<tg-emoji emoji-id="+5">y</tg-emoji>`, `Invalid custom emoji identifier specified`},
		{`<b>x</B>`, `Unmatched end tag at byte offset 4, expected "</b>", found "</B>"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, _, err := parseHTML(tt.in)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
}
