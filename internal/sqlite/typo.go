package sqlite

import (
	"context"
	"slices"

	"github.com/mynah-ai/mynah/internal/stem"
)

// A search someone typed that finds nothing may hold a mistyped word ("passprot",
// "the dnetist"): SearchHistory with Typos then looks up each word as the words one edit
// away — a letter left out, added, changed, or two neighbours swapped (Damerau's four,
// which make up most typing errors) — and takes the one with the most matches in the same
// scope, so that only the chat's (or agent's) own words can stand in for it.
//
// Only when nothing matches: a word can match nothing in a chat because the chat never
// used it, and one edit from most English words is another word. Over LoCoMo's questions,
// correcting every word that matched nothing in its conversation took "cooking" for
// "looking", "father" for "gather", "married" for "harried" far more often than it
// mended "Deboran" or "funraiser", and cost open-domain recall 0.011 on half A. Short
// words are not corrected (one edit from "cat" is a hundred other words), nor words with
// digits or of mixed scripts (see stem.Edits).

// correctAll returns terms with those stem.Typos picks replaced by their corrections where
// they have one, and the terms' counts.
func (db *DB) correctAll(ctx context.Context, terms, cols []string, lo, hi, mark int64) ([]string, []int64, error) {
	terms, counts := slices.Clone(terms), make([]int64, len(terms))
	for _, i := range stem.Typos(terms) {
		v, n, err := db.correct(ctx, terms[i], cols, lo, hi, mark)
		if err != nil {
			return nil, nil, err
		}
		if n > 0 && !slices.Contains(terms, v) {
			terms[i], counts[i] = v, n
		}
	}
	return terms, counts, nil
}

// correct returns the word one edit from term with the most matches in cols of the scope,
// and their count; 0 when there is none. Most words that match nothing are new, not
// mistyped, so the variants are first asked in groups, one query of typoGroup words OR-ed
// each that stops at the first match: a miss costs a few queries, not hundreds.
func (db *DB) correct(ctx context.Context, term string, cols []string, lo, hi, mark int64) (string, int64, error) {
	best, most := "", int64(0)
	for group := range slices.Chunk(stem.Edits(term), typoGroup) {
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
