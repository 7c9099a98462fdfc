package ingest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

// fakeHistory stores imported messages like a store: a known id is skipped.
type fakeHistory struct {
	stored  map[mynah.MessageID]mynah.Message
	batches []int
	failAt  int // the batch (from 1) that fails; 0: none
}

func (f *fakeHistory) ImportMessages(_ context.Context, _ string, _ mynah.Chat, msgs []mynah.Message) (int, error) {
	f.batches = append(f.batches, len(msgs))
	if len(f.batches) == f.failAt {
		return 0, errors.New("disk full")
	}
	if f.stored == nil {
		f.stored = map[mynah.MessageID]mynah.Message{}
	}
	added := 0
	for _, m := range msgs {
		if _, ok := f.stored[m.ID]; !ok {
			f.stored[m.ID] = m
			added++
		}
	}
	return added, nil
}

type item struct {
	pos string
	m   mynah.Message
	err error
}

// sliceSource yields items; reads counts its runs.
func sliceSource(items []item, reads *int) Source {
	return func(yield func(string, mynah.Message, error) bool) error {
		*reads++
		for _, it := range items {
			if !yield(it.pos, it.m, it.err) {
				return nil
			}
		}
		return nil
	}
}

// messages is n valid messages 1…n, every third sent by user 555, then a bad one and a
// repeat of id 2.
func messages(n int) []item {
	var items []item
	for i := 1; i <= n; i++ {
		sender := mynah.UserID(1000)
		if i%3 == 0 {
			sender = 555
		}
		items = append(items, item{pos: "line " + strconv.Itoa(i), m: mynah.Message{ID: mynah.MessageID(i), Time: time.Unix(int64(i), 0).UTC(), Sender: mynah.User{ID: sender}, Text: "m" + strconv.Itoa(i)}})
	}
	return append(items,
		item{pos: "line " + strconv.Itoa(n+1), err: errors.New(`"id" is missing`)},
		item{pos: "line " + strconv.Itoa(n+2), m: mynah.Message{ID: 2, Text: "again"}})
}

func TestCheck(t *testing.T) {
	reads := 0
	src := sliceSource(messages(3), &reads)
	_, err := Check(t.Context(), src, false)
	want := "nothing imported: 2 invalid messages (--skip-bad imports the rest):\n  line 4: \"id\" is missing\n  line 5: id 2 repeats the message of line 2"
	if err == nil || err.Error() != want {
		t.Errorf("Check error = %v, want %q", err, want)
	}
	plan, err := Check(t.Context(), src, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Problems{`line 4: "id" is missing`, "line 5: id 2 repeats the message of line 2"}, plan.Problems); diff != "" {
		t.Errorf("Problems (-want +got):\n%s", diff)
	}
	if reads != 2 {
		t.Errorf("source read %d times, want 2", reads)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Check(ctx, src, true); !errors.Is(err, context.Canceled) {
		t.Errorf("Check with a cancelled context: %v, want context.Canceled", err)
	}
	broken := func(func(string, mynah.Message, error) bool) error { return errors.New("reading x: broken") }
	if _, err := Check(t.Context(), broken, true); err == nil || err.Error() != "reading x: broken" {
		t.Errorf("Check of a source that fails: %v", err)
	}
}

func TestProblemsString(t *testing.T) {
	var ps Problems
	for i := 1; i <= 25; i++ {
		ps = append(ps, fmt.Sprintf("line %d: bad", i))
		want := "line 1: bad"
		for j := 2; j <= min(i, 20); j++ {
			want += fmt.Sprintf("\n  line %d: bad", j)
		}
		if i > 20 {
			want += fmt.Sprintf("\n  … and %d more", i-20)
		}
		if got := ps.String(); got != want {
			t.Errorf("%d problems: %q, want %q", i, got, want)
		}
	}
}

// TestStore: messages go in batches of importBatch with progress after each, the bot's own
// are outgoing, the repeat of an id is skipped, and storing again adds nothing.
func TestStore(t *testing.T) {
	reads := 0
	plan, err := Check(t.Context(), sliceSource(messages(2500), &reads), true)
	if err != nil {
		t.Fatal(err)
	}
	var st fakeHistory
	var progress [][2]int
	stats, err := plan.Store(t.Context(), &st, "Mynah", 555, mynah.ChatFromID(-100777), func(done, total int) { progress = append(progress, [2]int{done, total}) })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Stats{Valid: 2500, Bad: 2, Added: 2500}, stats); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{1000, 1000, 500}, st.batches); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][2]int{{0, 2500}, {1000, 2500}, {2000, 2500}, {2500, 2500}}, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if m := st.stored[2]; m.Text != "m2" || m.Outgoing {
		t.Errorf("message 2 = %q, outgoing %v; want m2, incoming, not the repeat", m.Text, m.Outgoing)
	}
	if m := st.stored[3]; !m.Outgoing {
		t.Errorf("message 3 from the bot (555) stored as incoming")
	}

	stats, err = plan.Store(t.Context(), &st, "Mynah", 0, mynah.ChatFromID(-100777), nil)
	if err != nil || stats.Added != 0 {
		t.Errorf("storing again: %d added, %v; want 0, nil", stats.Added, err)
	}
	if reads != 3 {
		t.Errorf("source read %d times, want 3 (Check and two Stores)", reads)
	}
}

// TestStoreStopsAtError: a failing batch ends the import; the batches before it stay.
func TestStoreStopsAtError(t *testing.T) {
	reads := 0
	plan, err := Check(t.Context(), sliceSource(messages(3500), &reads), true)
	if err != nil {
		t.Fatal(err)
	}
	st := fakeHistory{failAt: 2}
	stats, err := plan.Store(t.Context(), &st, "Mynah", 0, mynah.ChatFromID(1), nil)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Store error = %v, want disk full", err)
	}
	if stats.Added != 1000 || len(st.batches) != 2 {
		t.Errorf("%d added in %d batches, want 1000 in 2", stats.Added, len(st.batches))
	}
}
