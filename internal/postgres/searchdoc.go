package postgres

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"

	"github.com/mynah-ai/mynah/internal/stem"
)

// The keyword indexes hold their entries as tsvector values built here, in Go, rather
// than by a text search configuration: the same tokens the SQLite store's FTS5 tokenizer
// ("porter unicode61 remove_diacritics 2" over internal/stem's Russian and Ukrainian
// stems) makes, so that both stores find the same messages. A word is a run of letters,
// digits and combining marks; it is lower-cased, Latin letters lose their diacritics
// (café is cafe), Russian and Ukrainian words become their stems (stem.Text), and English
// words their Porter stems (Snowball English, the Porter stemmer's successor). The values
// are then matched as PostgreSQL's 'simple' configuration would: lexemes as they are.
//
// A message's entry holds its three parts in one tsvector, the words of each part under a
// prefix of its own: none for the body (what was said), "~c" for the context (who said it
// and when) and "~p" for what it answers ("~" is never part of a word). One GIN index
// serves every query, and answers it exactly (tsvector weights would make PostgreSQL
// recheck every match in the table); a query asks for the parts it weighs, and scoring
// weighs them as SQLite's bm25() weighs columns.

// tsvector limits (PostgreSQL's MAXSTRLEN, MAXENTRYPOS, MAXNUMPOS): longer words are
// left out of the index, later positions share the last one, and a word's positions
// beyond the first 255 are not kept (its term frequency saturates long before).
const (
	maxLexemeBytes = 2046
	maxPosition    = 16383
	maxPositions   = 255
	// maxDocBytes keeps a huge message's entry under tsvector's 1 MB: its first words
	// are indexed, the rest only counted.
	maxDocBytes = 512 << 10
)

// tokens appends the index tokens of text to dst. Index text goes through stem.Text
// first; query words were stemmed already (stem.Query) and are not stemmed again.
func tokens(dst []string, text string, stemFirst bool) []string {
	if stemFirst {
		text = stem.Text(text)
	}
	start := -1
	for i, r := range text {
		if stem.IsWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			dst = append(dst, foldToken(text[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		dst = append(dst, foldToken(text[start:]))
	}
	return dst
}

// foldToken lower-cases tok, drops the diacritics of its Latin letters and stems it when
// it is an English word (ASCII letters only).
func foldToken(tok string) string {
	ascii := true
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c >= utf8.RuneSelf || !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			ascii = false
			break
		}
	}
	if !ascii {
		var b strings.Builder
		var base rune
		for _, r := range norm.NFD.String(tok) {
			if unicode.Is(unicode.Mn, r) {
				if unicode.Is(unicode.Latin, base) {
					continue // the accent of a Latin letter
				}
			} else {
				base = r
			}
			b.WriteRune(unicode.ToLower(r))
		}
		tok = norm.NFC.String(b.String())
	} else {
		tok = strings.ToLower(tok)
	}
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c < 'a' || c > 'z' {
			return tok
		}
	}
	if len(tok) < 3 {
		return tok
	}
	return english.Stem(tok, false)
}

// The parts of a message's entry, by the prefix of their lexemes.
const (
	bodyPart     = ""
	contextPart  = "~c"
	previousPart = "~p"
)

// docPart is one part of an index entry: its text, and the prefix of its lexemes.
type docPart struct {
	text   string
	prefix string
}

// buildDoc returns the tsvector text of parts and their number of tokens. Each part's
// positions follow the previous part's with a gap, so a phrase never spans two parts.
func buildDoc(parts ...docPart) (string, int) {
	lex := map[string][]int{}
	var order []string
	pos, n, size := 0, 0, 0
	var toks []string
	for _, p := range parts {
		toks = tokens(toks[:0], p.text, true)
		for _, t := range toks {
			n++
			pos = min(pos+1, maxPosition)
			t = p.prefix + t
			if len(t) > maxLexemeBytes {
				continue
			}
			o, ok := lex[t]
			if !ok {
				if size+len(t) > maxDocBytes {
					continue
				}
				size += len(t)
				order = append(order, t)
			}
			if len(o) < maxPositions && (len(o) == 0 || o[len(o)-1] != pos) {
				lex[t] = append(o, pos)
			}
		}
		pos = min(pos+1, maxPosition)
	}
	var b strings.Builder
	for i, t := range order {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeLexeme(&b, t)
		b.WriteByte(':')
		for j, p := range lex[t] {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(p))
		}
	}
	return b.String(), n
}

// writeLexeme writes t quoted for tsvector and tsquery input.
func writeLexeme(b *strings.Builder, t string) {
	b.WriteByte('\'')
	for _, r := range t {
		if r == '\'' || r == '\\' {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
}

// queryTerm is one term of a search: the lexemes of a word, matched as a phrase.
type queryTerm []string

// queryTerms returns terms as the index holds them: each term's alternatives (stem.Query:
// one form, or a Russian and a Ukrainian stem) as separate terms, each folded like the
// index's tokens, without repeats and without terms that hold no word.
func queryTerms(terms []string) []queryTerm {
	var out []queryTerm
	seen := map[string]bool{}
	for _, t := range terms {
		for _, alt := range stem.Query(t) {
			toks := tokens(nil, alt, false)
			toks = slices.DeleteFunc(toks, func(s string) bool { return len(s) > maxLexemeBytes })
			key := strings.Join(toks, " ")
			if len(toks) == 0 || seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, queryTerm(toks))
		}
	}
	return out
}

// tsquery returns the tsquery text matching any of terms in any of the parts named by
// their prefixes.
func tsquery(terms []queryTerm, prefixes []string) string {
	var b strings.Builder
	for _, t := range terms {
		for _, p := range prefixes {
			if b.Len() > 0 {
				b.WriteString(" | ")
			}
			if len(t) > 1 {
				b.WriteByte('(')
			}
			for j, l := range t {
				if j > 0 {
					b.WriteString(" <-> ")
				}
				writeLexeme(&b, p+l)
			}
			if len(t) > 1 {
				b.WriteByte(')')
			}
		}
	}
	return b.String()
}

// lexemes returns every lexeme of terms in the parts named by prefixes, once.
func lexemes(terms []queryTerm, prefixes []string) []string {
	var out []string
	for _, t := range terms {
		for _, l := range t {
			for _, p := range prefixes {
				if !slices.Contains(out, p+l) {
					out = append(out, p+l)
				}
			}
		}
	}
	return out
}

// occurrence is where one lexeme occurs in one entry: its positions.
type occurrence []int16

// bm25 scores entries the way SQLite's FTS5 bm25() does (k1 1.2, b 0.75): for each term,
// its idf times its weighted frequency saturated by the entry's length against the
// average, summed over the terms.
type bm25 struct {
	idf    []float64
	avgLen float64
	weight map[string]float64 // of each part scored, by its prefix
}

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// newBM25 sets up scoring for terms matched by matches[i] of docs entries, whose tokens
// number tokens in all.
func newBM25(matches []int64, docs, tokens int64, weight map[string]float64) *bm25 {
	s := &bm25{weight: weight, avgLen: 1}
	if docs > 0 && tokens > 0 {
		s.avgLen = float64(tokens) / float64(docs)
	}
	for _, n := range matches {
		idf := math.Log((float64(docs) - float64(n) + 0.5) / (float64(n) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		s.idf = append(s.idf, idf)
	}
	return s
}

// score returns the score of an entry of length n whose occurrences of the query's
// lexemes are occ.
func (s *bm25) score(terms []queryTerm, n int, occ map[string]occurrence) float64 {
	var total float64
	for i, t := range terms {
		f := s.frequency(t, occ)
		if f == 0 {
			continue
		}
		total += s.idf[i] * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(n)/s.avgLen))
	}
	return total
}

// frequency is how often t occurs in an entry, each occurrence weighed by its part's
// weight: for a phrase, the occurrences of its first lexeme followed by the others.
func (s *bm25) frequency(t queryTerm, occ map[string]occurrence) float64 {
	var f float64
	for prefix, w := range s.weight {
		for _, p := range occ[prefix+t[0]] {
			if len(t) == 1 || followedBy(p, prefix, t[1:], occ) {
				f += w
			}
		}
	}
	return f
}

// followedBy reports whether the lexemes rest of the part prefix occur at the positions
// after p.
func followedBy(p int16, prefix string, rest []string, occ map[string]occurrence) bool {
	for k, l := range rest {
		if !slices.Contains(occ[prefix+l], p+int16(k)+1) {
			return false
		}
	}
	return true
}

// positionsOf returns the positions of lexeme l in doc, a tsvector's text ('l':1,5
// 'm':3 …, as buildDoc writes it and PostgreSQL prints it), nil when it is not there.
func positionsOf(doc, l string) occurrence {
	var b strings.Builder
	writeLexeme(&b, l)
	b.WriteByte(':')
	key := b.String()
	i := 0
	for {
		j := strings.Index(doc[i:], key)
		if j < 0 {
			return nil
		}
		i += j
		if i == 0 || doc[i-1] == ' ' {
			break // a lexeme's start, not the tail of another
		}
		i++
	}
	var out occurrence
	rest := doc[i+len(key):]
	for {
		end := 0
		for end < len(rest) && '0' <= rest[end] && rest[end] <= '9' {
			end++
		}
		p, err := strconv.Atoi(rest[:end])
		if err != nil {
			return out
		}
		out = append(out, int16(p))
		rest = rest[end:]
		for len(rest) > 0 && 'A' <= rest[0] && rest[0] <= 'D' {
			rest = rest[1:] // a weight
		}
		if len(rest) == 0 || rest[0] != ',' {
			return out
		}
		rest = rest[1:]
	}
}
