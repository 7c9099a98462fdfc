package media

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/testmedia"
)

// TestCuratedReload: an operator's edit of a curated file shows without a restart; a
// file that cannot be read is logged once and skipped, the others still count.
func TestCuratedReload(t *testing.T) {
	v := newEnv(t)
	dir := filepath.Join(t.TempDir(), "media")
	writeCurated(t, dir, "a.json", curatedEntry{UniqueID: "A", Kind: "photo", Description: "a heron"})
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{"unique_id": "B", "descr`), 0o644); err != nil {
		t.Fatal(err)
	}
	v.agent(func(a *Agent) { a.Curated = []string{dir} })
	photo := v.files.add(mynah.MediaPhoto, "A", testmedia.NthPNG(1))
	shows := func() string {
		h := []mynah.Message{{ID: 1, Chat: chat, Media: []mynah.Media{photo}}}
		v.e.Prepare(t.Context(), agentName, h, nil)
		return h[0].Media[0].Description
	}
	if got := shows(); got != "a heron" {
		t.Fatalf("curated: %q", got)
	}
	writeCurated(t, dir, "a.json", curatedEntry{UniqueID: "A", Kind: "photo", Description: "a grey heron on one leg"})
	// A new modification time, even on a coarse file system.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(dir, "a.json"), later, later); err != nil {
		t.Fatal(err)
	}
	v.e.reloadCurated()
	v.e.reloadCurated()
	if got := shows(); got != "a grey heron on one leg" {
		t.Errorf("after the edit: %q", got)
	}
	if got := v.logs.count("broken.json"); got != 1 {
		t.Errorf("the broken file is logged %d times, want once:\n%s", got, v.logs)
	}
	if err := os.Remove(filepath.Join(dir, "a.json")); err != nil {
		t.Fatal(err)
	}
	v.e.reloadCurated()
	if got := shows(); got != "" {
		t.Errorf("after removing the file: %q", got)
	}
}

// TestCatalogue: the agent's stickers are listed as Set::emoji with what they show, once
// known; the unknown ones are described in the background, within the budget.
func TestCatalogue(t *testing.T) {
	v := newEnv(t)
	global := filepath.Join(t.TempDir(), "media")
	writeCurated(t, global, "frogs.json", curatedEntry{Kind: "sticker", SetName: "mrribbit", StickerName: "💻",
		Description: "a grumpy cartoon frog at a laptop"})
	set := []mynah.Media{
		v.files.add(mynah.MediaSticker, "s1", testmedia.WEBP()),
		v.files.add(mynah.MediaSticker, "s2", testmedia.TGS("sleep")),
		v.files.add(mynah.MediaSticker, "s3", testmedia.NthPNG(9)),
		v.files.add(mynah.MediaSticker, "s4", testmedia.NthPNG(10)),
	}
	for i, e := range []string{"💻", "😴", "🎉", "🎉"} { // two stickers share 🎉: the first is listed
		set[i].SetName, set[i].Emoji = "MrRibbit", e
	}
	v.files.sets["MrRibbit"] = set
	v.files.sets["Cats"] = []mynah.Media{
		{FileID: "c1", FileUniqueID: "c1", Emoji: "😺", SetName: "Cats"},
		{FileID: "c2", FileUniqueID: "c2", Emoji: "🙀", SetName: "Cats"},
	}
	if err := v.store.PutMediaNote(t.Context(), mynah.MediaNote{UniqueID: "c2", Kind: mynah.MediaSticker,
		Status: mynah.MediaDescribed, Description: "a shocked cat"}); err != nil {
		t.Fatal(err)
	}
	v.agent(func(a *Agent) {
		a.Curated = []string{global}
		a.StickerSets = []string{"MrRibbit", "Cats::🙀", "Missing"}
	})
	got := v.e.Catalogue(t.Context(), agentName)
	want := []string{"MrRibbit::💻 — a grumpy cartoon frog at a laptop", "MrRibbit::😴", "MrRibbit::🎉", "Cats::🙀 — a shocked cat"}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Catalogue (-got +want):\n%s", diff)
	}
	if v.model.calls() != 0 || v.files.count() != 0 {
		t.Errorf("listing cost %d calls and %d downloads", v.model.calls(), v.files.count())
	}

	v.e.describeStickers(t.Context())
	got = v.e.Catalogue(t.Context(), agentName)
	want[1] = `MrRibbit::😴 — an animated sticker named "sleep" (2 s, 512×512)`
	want[2] = `MrRibbit::🎉 — seen: Describe this Telegram sticker from the sticker set "MrRibbit", which its author matched with the emoji 🎉.`
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Catalogue after the background (-got +want):\n%s", diff)
	}
	if v.model.calls() != 1 {
		t.Errorf("%d describer calls, want 1 (the TGS needs none)", v.model.calls())
	}
	reads := v.files.setReads
	v.e.Catalogue(t.Context(), agentName)
	if v.files.setReads != reads {
		t.Errorf("the sets were read again within the hour: %d reads, then %d", reads, v.files.setReads)
	}
	if v.logs.count("Missing") != 1 {
		t.Errorf("the missing set is logged %d times:\n%s", v.logs.count("Missing"), v.logs)
	}
}

// TestRunStops: Run works the queue in the background and returns once ctx ends.
func TestRunStops(t *testing.T) {
	v := newEnv(t)
	v.e = New(v.store, nil, nil) // the real clock
	v.e.useFFmpeg("")
	v.e.every = 10 * time.Millisecond
	v.agent()
	v.post(chat, 1, v.files.add(mynah.MediaPhoto, "a", testmedia.NthPNG(1)))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- v.e.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for v.message(chat, 1).Media[0].Description == "" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	if d := v.message(chat, 1).Media[0].Description; d == "" {
		t.Error("Run did not describe the queued photo")
	}
}

// BenchmarkPrepareCached measures the CPU Prepare adds to a turn for a message with a
// sticker whose description is cached: in the history, and as the message answered.
func BenchmarkPrepareCached(b *testing.B) {
	db, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "mynah.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	e := New(db, nil, nil)
	e.useFFmpeg("")
	e.Add(Agent{Name: agentName, Describer: &describer{}, Files: newFiles()})
	if err := db.PutMediaNote(b.Context(), mynah.MediaNote{UniqueID: "frog", Kind: mynah.MediaSticker,
		Status: mynah.MediaDescribed, Description: "a grumpy cartoon frog at a laptop"}); err != nil {
		b.Fatal(err)
	}
	sticker := mynah.Media{Kind: mynah.MediaSticker, FileID: "f", FileUniqueID: "frog", SetName: "MrRibbit", Emoji: "💻",
		MimeType: "image/webp"}
	for _, c := range []struct {
		name  string
		focus []mynah.MessageID
	}{{"history", nil}, {"target", []mynah.MessageID{1}}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				h := []mynah.Message{{ID: 1, Chat: chat, Media: []mynah.Media{sticker}}}
				e.Prepare(b.Context(), agentName, h, c.focus)
				if h[0].Media[0].Description == "" {
					b.Fatal("not described")
				}
			}
		})
	}
}
