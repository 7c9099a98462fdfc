package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/mynah-ai/mynah/internal/tokens"
)

// The store keeps token calibrations (tokens.Store).
var _ tokens.Store = (*DB)(nil)

// TestCalibrationSurvivesReopen: a saved calibration is read back after the database is
// reopened, per agent and model; saving again replaces it; an unknown one is nil.
func TestCalibrationSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := db.SaveCalibration(ctx, "Mynah", "openai/gpt-4o-mini", []byte(`{"version":1,"n":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveCalibration(ctx, "Mynah", "openai/gpt-4o-mini", []byte(`{"version":1,"n":2}`)); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveCalibration(ctx, "Ada", "openai/gpt-4o-mini", []byte(`{"version":1,"n":7}`)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tt := range []struct{ agent, model, want string }{
		{"Mynah", "openai/gpt-4o-mini", `{"version":1,"n":2}`},
		{"Ada", "openai/gpt-4o-mini", `{"version":1,"n":7}`},
		{"Mynah", "anthropic/claude-haiku-4-5", ""},
	} {
		got, err := db.Calibration(ctx, tt.agent, tt.model)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want || (tt.want == "") != (got == nil) {
			t.Errorf("Calibration(%s, %s) = %q, want %q", tt.agent, tt.model, got, tt.want)
		}
	}
}
