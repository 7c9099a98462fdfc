package tghtml

import "strings"

// Plain returns the text Telegram would display for html (tags stripped, entities decoded),
// for resending a part as plain text when Telegram answers "can't parse entities". Whitespace
// is kept as it is.
func Plain(html string) string {
	var b strings.Builder
	b.Grow(len(html))
	for _, u := range lexHTML(html) {
		switch {
		case u.tag:
		case html[u.start] == '&' && u.end-u.start > 1:
			b.WriteRune(u.r)
		default:
			b.WriteString(html[u.start:u.end])
		}
	}
	return b.String()
}
