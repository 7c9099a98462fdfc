package sqlite

import (
	"database/sql/driver"

	"modernc.org/sqlite"

	"github.com/mynah-ai/mynah/internal/stem"
)

// stemFunction is the SQL function that turns text into what the keyword indexes hold
// (stem.Text: Russian and Ukrainian words as folded stems, the rest as written). The
// indexes' views and triggers call it (migration 0015); queries are stemmed the same way
// in Go (stemTerms). It is registered with the driver once, for every connection.
const stemFunction = "mynah_stem"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(stemFunction, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return stem.Text(v), nil
		case []byte:
			return stem.Text(string(v)), nil
		default: // NULL and numbers hold no words to stem
			return v, nil
		}
	})
}

// stemTerms returns what the index is asked for terms: each term as stem.Query gives it
// (one form, or a Russian and a Ukrainian stem), without repeats.
func stemTerms(terms []string) []string {
	out := make([]string, 0, len(terms))
	seen := make(map[string]bool, len(terms))
	for _, t := range terms {
		for _, q := range stem.Query(t) {
			if !seen[q] {
				seen[q] = true
				out = append(out, q)
			}
		}
	}
	return out
}
