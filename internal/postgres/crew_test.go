package postgres

import (
	"errors"
	"sync"
	"testing"

	"github.com/mynah-ai/mynah"
	tokencount "github.com/mynah-ai/mynah/internal/tokens"
)

// The store keeps token calibrations (tokens.Store).
var _ tokencount.Store = (*DB)(nil)

// TestCalibrationSurvivesReopen: a saved calibration is read back after the database is
// reopened, per agent and model; saving again replaces it; an unknown one is nil.
func TestCalibrationSurvivesReopen(t *testing.T) {
	db, dsn := openTemp(t)
	ctx := t.Context()
	for _, s := range []struct{ agent, state string }{
		{"Mynah", `{"version":1,"n":1}`}, {"Mynah", `{"version":1,"n":2}`}, {"Ada", `{"version":1,"n":7}`},
	} {
		if err := db.SaveCalibration(ctx, s.agent, "openai/gpt-4o-mini", []byte(s.state)); err != nil {
			t.Fatal(err)
		}
	}
	db = reopen(t, db, dsn)
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

// TestSaveCrewRaceAcrossInstances: instances sharing the database that save the same
// crew over the same version at once (two lanes advancing one cycle) serialize: exactly
// one save lands, the others get ErrConflict, and only the winner's member turn is
// queued. Both the first save of a crew (no row yet) and a later one are races.
func TestSaveCrewRaceAcrossInstances(t *testing.T) {
	first, dsn := openTemp(t)
	ctx := t.Context()
	dbs := []*DB{first}
	for range 3 {
		db, err := Open(ctx, dsn, Options{MaxConns: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	const chat = mynah.ChatID(-100)
	members := []mynah.CrewMember{{Agent: "Ada"}, {Agent: "Bob"}}
	var version int64
	for round := range 2 { // version 0 (insert), then an update
		var (
			wg        sync.WaitGroup
			mu        sync.Mutex
			won       []mynah.CrewState
			conflicts int
		)
		for i, db := range dbs {
			wg.Go(func() {
				s := mynah.CrewState{Crew: "duo", Chat: chat, Version: version, Members: members, Active: true,
					Round: round + 1, Cycle: int64(i + 1)}
				got, err := db.SaveCrew(ctx, s, &mynah.Turn{Agent: "Ada", Target: 1}, 0)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case errors.Is(err, mynah.ErrConflict):
					conflicts++
				case err != nil:
					t.Errorf("instance %d: %v", i, err)
				default:
					won = append(won, got)
				}
			})
		}
		wg.Wait()
		if len(won) != 1 || conflicts != len(dbs)-1 {
			t.Fatalf("round %d: %d saves landed and %d conflicted, want 1 and %d", round, len(won), conflicts, len(dbs)-1)
		}
		stored, err := first.CrewState(ctx, "duo", chat)
		if err != nil {
			t.Fatal(err)
		}
		if stored.Version != version+1 || stored.Cycle != won[0].Cycle || stored.Turn != won[0].Turn {
			t.Errorf("round %d: stored version %d cycle %d turn %d, want the winner's %d, %d, %d", round,
				stored.Version, stored.Cycle, stored.Turn, version+1, won[0].Cycle, won[0].Turn)
		}
		version = stored.Version
	}
	var turns int
	if err := first.Pool().QueryRow(ctx, `SELECT count(*) FROM turns WHERE agent = 'Ada'`).Scan(&turns); err != nil {
		t.Fatal(err)
	}
	if turns != 2 {
		t.Errorf("%d turns queued for Ada, want 2: one per landed save", turns)
	}
}
