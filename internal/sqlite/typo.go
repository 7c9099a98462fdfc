package sqlite

import (
	"context"
	"slices"

	"github.com/mynah-ai/mynah/internal/stem"
)

// A search someone typed may hold a mistyped word ("passprot", "the dnetist", "yoag
// class"): SearchHistory with Typos then looks up its longest words that match nothing as
// the words one edit away, and takes the one with the most matches in the same scope, so
// that only the chat's (or agent's) own words can stand in for it.
//
// When nothing of the search matches, the edits are all of Damerau's four — a letter left
// out, added, changed, or two neighbours swapped, which make up most typing errors (see
// stem.Edits). When other words match, only two neighbours swapped (stem.Swaps; the rule
// is stem.Typos', shared with the PostgreSQL store): a word can match nothing in a chat
// because the chat never used it, and a letter left out or changed turns most English
// words into others. Over LoCoMo's questions, correcting every
// word that matched nothing in its conversation by all four took "cooking" for
// "looking", "father" for "gather", "married" for "harried" far more often than it
// mended "Deboran" or "funraiser", and cost open-domain recall 0.011 on half A; swaps
// seldom make another word. Words under four letters are not corrected (one edit from
// "cat" is a hundred other words), nor words with digits or of mixed scripts.

// correctAll returns terms and their counts with those stem.Typos picks of the ones that
// match nothing (count 0) replaced by their corrections where they have one.
func (db *DB) correctAll(ctx context.Context, terms []string, counts []int64, cols []string, lo, hi, mark int64) ([]string, []int64, error) {
	matched := make([]bool, len(counts))
	for i, n := range counts {
		matched[i] = n > 0
	}
	terms, counts = slices.Clone(terms), slices.Clone(counts)
	for _, typo := range stem.Typos(terms, matched) {
		v, n, err := db.correct(ctx, typo.Edits, cols, lo, hi, mark)
		if err != nil {
			return nil, nil, err
		}
		if n > 0 && !slices.Contains(terms, v) {
			terms[typo.At], counts[typo.At] = v, n
		}
	}
	return terms, counts, nil
}

// correct returns the one of a word's edits with the most matches in cols of the scope,
// and their count; 0 when there is none. Most words that match nothing are new, not
// mistyped, so the variants are first asked in groups, one query of typoGroup words OR-ed
// each that stops at the first match: a miss costs a few queries, not hundreds.
func (db *DB) correct(ctx context.Context, edits, cols []string, lo, hi, mark int64) (string, int64, error) {
	best, most := "", int64(0)
	for group := range slices.Chunk(edits, typoGroup) {
		var any int
		if err := db.stmts.probe.QueryRowContext(ctx, matchExpr(group, cols), lo, hi, 1).Scan(&any); err != nil {
			return "", 0, err
		}
		if any == 0 {
			continue
		}
		for _, v := range group {
			n, err := db.count(ctx, v, cols, lo, hi, mark)
			if err != nil {
				return "", 0, err
			}
			if n > most {
				best, most = v, n
			}
		}
	}
	return best, most, nil
}

// typoGroup is how many of a word's variants one query asks for.
const typoGroup = 64
