package tghtml

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with the file at path, or rewrites the file under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(strings.TrimSuffix(string(want), "\n"), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

var (
	tagRE    = regexp.MustCompile(`^<(/?)([a-z-]+)(?: ([a-z]+)="([^"<>]*)")?>`)
	entityRE = regexp.MustCompile(`^&(lt|gt|amp|quot|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});`)
)

// parseTelegram checks html against the HTML subset Format promises, independently of the
// package's own lexer, and returns the text Telegram would show.
func parseTelegram(html string) (string, error) {
	type elem struct{ name, attr string }
	var (
		stack []elem
		text  strings.Builder
	)
	inside := func(name string) bool {
		for _, e := range stack {
			if e.name == name {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(html); {
		switch html[i] {
		case '<':
			m := tagRE.FindStringSubmatch(html[i:])
			if m == nil {
				return "", fmt.Errorf("bad tag at %d: %.20q", i, html[i:])
			}
			end, name, attr, val := m[1] == "/", m[2], m[3], m[4]
			if end {
				if attr != "" || len(stack) == 0 || stack[len(stack)-1].name != name {
					return "", fmt.Errorf("unbalanced </%s> at %d", name, i)
				}
				stack = stack[:len(stack)-1]
				i += len(m[0])
				continue
			}
			switch name {
			case "b", "i", "s", "u", "tg-spoiler", "blockquote", "pre":
				if attr != "" {
					return "", fmt.Errorf("<%s> with attribute at %d", name, i)
				}
			case "a":
				if attr != "href" || val == "" {
					return "", fmt.Errorf("<a> without href at %d", i)
				}
			case "code":
				if attr != "" && (attr != "class" || !strings.HasPrefix(val, "language-") ||
					len(stack) == 0 || stack[len(stack)-1].name != "pre") {
					return "", fmt.Errorf("bad <code %s> at %d", attr, i)
				}
			default:
				return "", fmt.Errorf("tag <%s> not allowed at %d", name, i)
			}
			if inside("code") || inside("pre") && name != "code" ||
				(name == "a" || name == "blockquote" || name == "pre") && inside(name) {
				return "", fmt.Errorf("<%s> nested where Telegram forbids it at %d", name, i)
			}
			stack = append(stack, elem{name, attr})
			i += len(m[0])
		case '&':
			m := entityRE.FindStringSubmatch(html[i:])
			if m == nil {
				return "", fmt.Errorf("bad entity at %d: %.12q", i, html[i:])
			}
			switch m[1] {
			case "lt":
				text.WriteByte('<')
			case "gt":
				text.WriteByte('>')
			case "amp":
				text.WriteByte('&')
			case "quot":
				text.WriteByte('"')
			default:
				digits, base := m[1][1:], 10
				if digits[0] == 'x' {
					digits, base = digits[1:], 16
				}
				n, _ := strconv.ParseUint(digits, base, 32)
				text.WriteRune(rune(n))
			}
			i += len(m[0])
		case '>':
			return "", fmt.Errorf("unescaped > at %d", i)
		default:
			r, n := utf8.DecodeRuneInString(html[i:])
			if r == utf8.RuneError && n == 1 {
				return "", fmt.Errorf("invalid UTF-8 at %d", i)
			}
			text.WriteString(html[i : i+n])
			i += n
		}
	}
	if len(stack) > 0 {
		return "", fmt.Errorf("unclosed <%s>", stack[len(stack)-1].name)
	}
	return text.String(), nil
}

// checkParts verifies the contract of Split for parts cut from whole: each part is
// well-formed, has visible text of at most limit code points, and the parts' texts
// concatenate to whole's text except for whitespace at the cuts.
func checkParts(t *testing.T, whole string, parts []string, limit int) {
	t.Helper()
	wholeText, err := parseTelegram(whole)
	if err != nil {
		t.Fatalf("input is not valid Telegram HTML: %v\n%s", err, whole)
	}
	if diff := cmp.Diff(wholeText, Plain(whole)); diff != "" {
		t.Errorf("Plain disagrees with Telegram's parse (-want +got):\n%s", diff)
	}
	var texts []string
	for i, p := range parts {
		text, err := parseTelegram(p)
		if err != nil {
			t.Fatalf("part %d: %v\n%s", i, err, p)
		}
		if n := utf8.RuneCountInString(text); n > limit {
			t.Errorf("part %d has %d characters, limit %d", i, n, limit)
		}
		if strings.TrimSpace(text) == "" {
			t.Errorf("part %d has no visible text: %q", i, p)
		}
		if text != strings.TrimRightFunc(text, unicode.IsSpace) {
			t.Errorf("part %d ends in whitespace: %q", i, text)
		}
		// Leading whitespace survives only as indentation of code, where Telegram keeps it.
		if lead := text[:len(text)-len(strings.TrimLeftFunc(text, unicode.IsSpace))]; lead != "" &&
			(strings.Trim(lead, " \t") != "" || !strings.Contains(leadingTags(p), "<pre>")) {
			t.Errorf("part %d starts with whitespace: %q", i, p)
		}
		if got := Plain(p); got != text {
			t.Errorf("Plain(part %d) = %q, want %q", i, got, text)
		}
		texts = append(texts, text)
	}
	if err := joinsTo(texts, wholeText); err != nil {
		t.Errorf("parts do not reproduce the whole: %v", err)
	}
}

// joinsTo reports whether whole is texts concatenated with only whitespace added at the joins
// (and at the ends).
func joinsTo(texts []string, whole string) error {
	rest := whole
	for i, s := range texts {
		trimmed := strings.TrimLeftFunc(rest, unicode.IsSpace)
		gap := rest[:len(rest)-len(trimmed)]
		body := strings.TrimLeftFunc(s, unicode.IsSpace)
		if !strings.HasSuffix(gap, s[:len(s)-len(body)]) || !strings.HasPrefix(trimmed, body) {
			return fmt.Errorf("part %d = %.40q, but the text continues %.40q", i, s, rest)
		}
		rest = trimmed[len(body):]
	}
	if strings.TrimSpace(rest) != "" {
		return fmt.Errorf("text left over: %.40q", rest)
	}
	return nil
}

// leadingTags returns the tags html starts with.
func leadingTags(html string) string {
	n := 0
	for strings.HasPrefix(html[n:], "<") {
		n += strings.IndexByte(html[n:], '>') + 1
	}
	return html[:n]
}
