package prompt

import "unicode/utf8"

// Estimate returns an upper-leaning estimate of the tokens s costs: about four bytes of
// ASCII per token and about two runes per token for other scripts, plus a small overhead.
// It errs high so a budget is not overrun; exact counters can replace it per provider.
func Estimate(s string) int {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		other++
		i += size
	}
	return (ascii+3)/4 + (other+1)/2 + 1
}
