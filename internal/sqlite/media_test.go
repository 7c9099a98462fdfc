package sqlite

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestDescribeStoredKeepsFields: setting a description rewrites only that field of the
// items of that file; fields a newer binary stored survive.
func TestDescribeStoredKeepsFields(t *testing.T) {
	stored := `[{"kind":"photo","file_unique_id":"A","file_id":"f","future":{"x":1}},{"kind":"photo","file_unique_id":"B"}]`
	got, changed, err := describeStored(stored, "A", "a heron")
	if err != nil || !changed {
		t.Fatalf("describeStored = %v, %v", changed, err)
	}
	var items []map[string]any
	if err := json.Unmarshal([]byte(got), &items); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"kind": "photo", "file_unique_id": "A", "file_id": "f", "future": map[string]any{"x": 1.0}, "description": "a heron"},
		{"kind": "photo", "file_unique_id": "B"},
	}
	if diff := cmp.Diff(items, want); diff != "" {
		t.Errorf("rewritten media (-got +want):\n%s", diff)
	}
	if _, changed, err := describeStored(got, "A", "a heron"); changed || err != nil {
		t.Errorf("the same description again: changed %v, %v; want no change", changed, err)
	}
	if _, _, err := describeStored(`{not json`, "A", "x"); err == nil {
		t.Error("damaged stored media: no error")
	}
}
