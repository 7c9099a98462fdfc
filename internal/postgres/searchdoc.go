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
// A message's entry holds its three parts as tsvector weights: A for the body (what was
// said), B for the context (who said it and when) and C for what it answers, so that one
// GIN index serves every query and a query weighs the parts as SQLite's bm25() weighs
// columns.

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

// docPart is one weighted part of an index entry.
type docPart struct {
	text   string
	weight byte // 'A', 'B', 'C' or 'D' (none)
}

// buildDoc returns the tsvector text of parts and their number of tokens. Each part's
// positions follow the previous part's with a gap, so a phrase never spans two parts.
func buildDoc(parts ...docPart) (string, int) {
	type occurrences struct {
		pos    []int
		weight []byte
	}
	lex := map[string]*occurrences{}
	var order []string
	pos, n, size := 0, 0, 0
	var toks []string
	for _, p := range parts {
		toks = tokens(toks[:0], p.text, true)
		for _, t := range toks {
			n++
			pos = min(pos+1, maxPosition)
			if len(t) > maxLexemeBytes {
				continue
			}
			o := lex[t]
			if o == nil {
				if size+len(t) > maxDocBytes {
					continue
				}
				size += len(t)
				o = &occurrences{}
				lex[t] = o
				order = append(order, t)
			}
			if len(o.pos) < maxPositions && (len(o.pos) == 0 || o.pos[len(o.pos)-1] != pos) {
				o.pos = append(o.pos, pos)
				o.weight = append(o.weight, p.weight)
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
		o := lex[t]
		for j, p := range o.pos {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(p))
			if o.weight[j] != 'D' {
				b.WriteByte(o.weight[j])
			}
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

// tsquery returns the tsquery text matching any of terms, each in the parts whose weights
// are listed (weights "" matches every part).
func tsquery(terms []queryTerm, weights string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" | ")
		}
		if len(t) > 1 {
			b.WriteByte('(')
		}
		for j, l := range t {
			if j > 0 {
				b.WriteString(" <-> ")
			}
			writeLexeme(&b, l)
			if weights != "" {
				b.WriteByte(':')
				b.WriteString(weights)
			}
		}
		if len(t) > 1 {
			b.WriteByte(')')
		}
	}
	return b.String()
}

// lexemes returns every lexeme of terms, once.
func lexemes(terms []queryTerm) []string {
	var out []string
	for _, t := range terms {
		for _, l := range t {
			if !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	return out
}

// occurrence is where one lexeme occurs in one entry: its positions and their weights.
type occurrence struct {
	positions []int16
	weights   []string
}

// bm25 scores entries the way SQLite's FTS5 bm25() does (k1 1.2, b 0.75): for each term,
// its idf times its weighted frequency saturated by the entry's length against the
// average, summed over the terms.
type bm25 struct {
	idf    []float64
	avgLen float64
	weight map[byte]float64 // of each part, by tsvector weight
}

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// newBM25 sets up scoring for terms matched by matches[i] of docs entries, whose tokens
// number tokens in all.
func newBM25(matches []int64, docs, tokens int64, weight map[byte]float64) *bm25 {
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
	first, ok := occ[t[0]]
	if !ok {
		return 0
	}
	var f float64
	for j, p := range first.positions {
		w := byte('D')
		if j < len(first.weights) && first.weights[j] != "" {
			w = first.weights[j][0]
		}
		if len(t) > 1 && !followedBy(p, t[1:], occ) {
			continue
		}
		f += s.weight[w]
	}
	return f
}

// followedBy reports whether the lexemes rest occur at the positions after p.
func followedBy(p int16, rest []string, occ map[string]occurrence) bool {
	for k, l := range rest {
		if !slices.Contains(occ[l].positions, p+int16(k)+1) {
			return false
		}
	}
	return true
}
