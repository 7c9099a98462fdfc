package sqlite

import (
	"testing"
)

// TestMediaQueryPlans: the describer's reads and writes find their rows through an index,
// whatever the size of the cache, the queue and the history (see TestQueryPlans).
func TestMediaQueryPlans(t *testing.T) {
	db := openTemp(t)
	checkPlans(t, db, map[string][]any{
		queryMediaNote:    {"AgAD"},
		queryPendingMedia: {0, 10},
		queryStoredMedia:  {"a", 1, 1},
		setStoredMedia:    {"[]", "a", 1, 1},
		deferMedia:        {0, "a", 1, 1},
		doneMedia:         {"a", 1, 1},
	})
}
