package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/postgres"
	"github.com/mynah-ai/mynah/internal/postgres/pgtest"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/tokens"
)

// testPostgres returns the URL of a schema of its own for t on the test server (see
// pgtest.Schema).
func testPostgres(t testing.TB) string { return pgtest.Schema(t) }

// fillStore stores a little of everything an installation holds, from message n on.
func fillStore(t *testing.T, s mynah.Store, first, n int) {
	t.Helper()
	ctx := t.Context()
	group := mynah.Chat{ID: -100777, Type: mynah.ChatSupergroup, Title: "Birds", IsForum: true}
	alice := mynah.User{ID: 42, FirstName: "Alice", Username: "alice"}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := first; i < first+n; i++ {
		msg := &mynah.Message{Chat: group, ID: mynah.MessageID(i), ThreadID: int64(i % 3), Sender: alice, Time: t0.Add(time.Duration(i) * time.Minute),
			Text: fmt.Sprintf("message %d about the heron «цапля» by the mill", i)}
		if i%10 == 0 {
			msg.Media = []mynah.Media{{Kind: mynah.MediaPhoto, FileID: "f", FileUniqueID: fmt.Sprintf("u%d", i)}}
		}
		var turn *mynah.Turn
		if i%5 == 0 {
			turn = &mynah.Turn{Target: msg.ID, ReplyTo: msg.ID}
		}
		if _, err := s.Accept(ctx, "Ada", int64(i), mynah.Intake{Chat: group, Users: []mynah.User{alice}, Message: msg, Turn: turn}); err != nil {
			t.Fatal(err)
		}
	}
	turns, err := s.PendingTurns(ctx, "Ada", time.Now(), 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range turns[:min(2, len(turns))] {
		parts, err := s.FinishTurn(ctx, tr.ID, []mynah.OutPart{{Key: fmt.Sprintf("t%d-0", tr.ID), HTML: "<b>hi</b>", Plain: "hi"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.MarkSent(ctx, parts[0].ID, mynah.Message{ID: mynah.MessageID(100000 + tr.ID), Text: "hi", Sender: mynah.User{ID: 1, IsBot: true}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.AddFact(ctx, mynah.Fact{Agent: "Ada", User: alice.ID, Text: fmt.Sprintf("likes herons %d", first)}, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddSummary(ctx, mynah.Summary{Agent: "Ada", Chat: group.ID, Kind: mynah.SummaryRolling, First: 1, Last: mynah.MessageID(first + n - 1), Text: "herons"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetChatMode(ctx, mynah.ChatMode{Agent: "Ada", Chat: group.ID, Trigger: "always"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutMediaNote(ctx, mynah.MediaNote{UniqueID: fmt.Sprintf("u%d", first), Kind: mynah.MediaPhoto, Status: mynah.MediaDescribed, Description: "a heron"}); err != nil {
		t.Fatal(err)
	}
	items, cur, err := s.PendingVectors(ctx, "Ada", "emb", 5)
	if err != nil {
		t.Fatal(err)
	}
	for i := range items {
		items[i].Vector = []float32{float32(i), 1, 2}
	}
	if err := s.SaveVectors(ctx, "Ada", "emb", items, cur); err != nil {
		t.Fatal(err)
	}
	// A crew whose third member leaves after the first fill: a second copy drops it too.
	crew, err := s.CrewState(ctx, "duo", group.ID)
	if err != nil {
		t.Fatal(err)
	}
	crew.Members = []mynah.CrewMember{{Agent: "Ada", LastSeen: mynah.MessageID(first), Turns: first}, {Agent: "Bob"}}
	if first == 1 {
		crew.Members = append(crew.Members, mynah.CrewMember{Agent: "Cy"})
	}
	crew.Active, crew.Cycle, crew.Round, crew.Spoke, crew.Target = true, int64(first), 1, []string{"Ada"}, mynah.MessageID(first)
	if _, err := s.SaveCrew(ctx, crew, nil, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveModelSession(ctx, mynah.ModelSession{Key: "Ada/-100777/0/0", ID: fmt.Sprintf("sess-%d", first),
		Seen: mynah.MessageID(first), Turns: first, Started: t0, Used: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := s.(tokens.Store).SaveCalibration(ctx, "Ada", "openai/gpt-4o-mini", fmt.Appendf(nil, `{"n":%d}`, first)); err != nil {
		t.Fatal(err)
	}
}

// snapshot is what an operator and the pipeline read back from a store.
type snapshot struct {
	History  []mynah.Message
	Search   []mynah.MessageID
	Turns    []mynah.Turn
	Parts    []mynah.OutPart
	Facts    []mynah.Fact
	Summary  mynah.Summary
	Mode     mynah.ChatMode
	Media    []mynah.MediaWork
	Vectors  int
	Sessions mynah.Session
	Crew     mynah.CrewState
	Model    mynah.ModelSession
	Tokens   string // the token calibration
}

func takeSnapshot(t *testing.T, s mynah.Store) snapshot {
	t.Helper()
	ctx := t.Context()
	var sn snapshot
	var err error
	must := func(e error) {
		t.Helper()
		if e != nil {
			t.Fatal(e)
		}
	}
	sn.History, err = s.History(ctx, "Ada", -100777, 0, 0, 1000)
	must(err)
	hits, err := s.SearchHistory(ctx, mynah.SearchQuery{Agent: "Ada", Chat: -100777, Terms: []string{"цаплю", "mill"}, Limit: 1000})
	must(err)
	for _, h := range hits {
		sn.Search = append(sn.Search, h.Message.ID)
	}
	slicesSort(sn.Search)
	sn.Turns, err = s.PendingTurns(ctx, "Ada", time.Now(), 1000)
	must(err)
	sn.Parts, err = s.PendingParts(ctx, "Ada", 1000)
	must(err)
	sn.Facts, _, err = s.ListFacts(ctx, "Ada", 42, 0, 100)
	must(err)
	sn.Summary, err = s.LatestSummary(ctx, "Ada", -100777, 0, mynah.SummaryRolling)
	must(err)
	sn.Mode, err = s.ChatMode(ctx, "Ada", -100777)
	must(err)
	sn.Media, err = s.PendingMedia(ctx, time.Now().Add(time.Hour), 1000)
	must(err)
	vs, err := s.LoadVectors(ctx, mynah.VectorScope{Agent: "Ada", Model: "emb"})
	must(err)
	sn.Vectors = len(vs)
	sn.Sessions, err = s.Session(ctx, "Ada", -100777, 0)
	must(err)
	sn.Crew, err = s.CrewState(ctx, "duo", -100777)
	must(err)
	sn.Model, err = s.ModelSession(ctx, "Ada/-100777/0/0")
	must(err)
	cal, err := s.(tokens.Store).Calibration(ctx, "Ada", "openai/gpt-4o-mini")
	must(err)
	sn.Tokens = string(cal)
	return sn
}

func slicesSort(ids []mynah.MessageID) {
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && ids[j] < ids[j-1]; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
}

// TestStoreCopy: an installation moves from SQLite to PostgreSQL and back with nothing
// lost (history, search, the queues, facts, summaries, vectors read back the same), a
// second copy after more traffic brings the target up to date (new rows, finished turns,
// forgotten facts), ids continue after the copied ones, and each table is counted.
func TestStoreCopy(t *testing.T) {
	pg := testPostgres(t)
	ctx := t.Context()
	dir := t.TempDir()
	src := filepath.Join(dir, "mynah.db")
	sq, err := sqlite.Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	fillStore(t, sq, 1, 40)
	want := takeSnapshot(t, sq)
	if len(want.Search) == 0 || len(want.Turns) == 0 || len(want.Parts) != 0 || len(want.Media) == 0 ||
		len(want.Crew.Members) != 3 || want.Model.ID == "" || want.Tokens == "" {
		t.Fatalf("the source holds too little to test a copy: %+v", want)
	}

	var out, errs bytes.Buffer
	if err := storeCopy(ctx, "sqlite:"+src, pg, &out, &errs); err != nil {
		t.Fatalf("copy to PostgreSQL: %v\n%s%s", err, out.String(), errs.String())
	}
	if !strings.Contains(out.String(), "messages") || strings.Contains(out.String(), "MISSING") {
		t.Errorf("count check:\n%s", out.String())
	}
	check := func(name string, s mynah.Store, want snapshot) {
		t.Helper()
		got := takeSnapshot(t, s)
		if diff := cmp.Diff(got, want, cmpTimes); diff != "" {
			t.Errorf("%s after the copy (-got +want):\n%s", name, diff)
		}
	}
	pgdb, err := postgres.Open(ctx, pg, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	check("PostgreSQL", pgdb, want)

	// The source keeps serving; a second copy catches up with what it stored meanwhile,
	// and with what it forgot: a fact removed at its owner's request stays removed.
	fillStore(t, sq, 41, 10)
	if _, err := sq.RemoveFact(ctx, "Ada", 42, want.Facts[0].ID, ""); err != nil {
		t.Fatal(err)
	}
	want = takeSnapshot(t, sq)
	out.Reset()
	if err := storeCopy(ctx, "sqlite:"+src, pg, &out, &errs); err != nil {
		t.Fatalf("second copy: %v\n%s", err, errs.String())
	}
	check("PostgreSQL after a second copy", pgdb, want)
	sq.Close()
	// New ids continue after the copied ones: a new turn is queued after them.
	fillStore(t, pgdb, 51, 5)
	want = takeSnapshot(t, pgdb)
	pgdb.Close()

	back := filepath.Join(dir, "back.db")
	out.Reset()
	if err := storeCopy(ctx, pg, "sqlite:"+back, &out, &errs); err != nil {
		t.Fatalf("copy back to SQLite: %v\n%s", err, errs.String())
	}
	if strings.Contains(out.String(), "MISSING") {
		t.Errorf("count check:\n%s", out.String())
	}
	sq2, err := sqlite.Open(ctx, back)
	if err != nil {
		t.Fatal(err)
	}
	defer sq2.Close()
	check("SQLite copied back", sq2, want)
}

var cmpTimes = cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })
