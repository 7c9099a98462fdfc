package media

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/testmedia"
)

// writeCurated writes entries as the JSON file name in dir.
func writeCurated(t *testing.T, dir, name string, entries ...curatedEntry) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var v any = entries
	if len(entries) == 1 {
		v = entries[0] // one object, as the seed writes them
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func descriptions(m mynah.Message) []string {
	var out []string
	for _, md := range m.Media {
		out = append(out, md.Description)
	}
	return out
}

// TestChainOrder: the agent's curated description beats the global one, which beats the
// cache, which beats the describer; known descriptions cost no call and are filled in
// every message of the history, and the describer is asked only for what nothing knows.
func TestChainOrder(t *testing.T) {
	v := newEnv(t)
	own, global := filepath.Join(t.TempDir(), "agents", "Ada", "media"), filepath.Join(t.TempDir(), "media")
	writeCurated(t, own, "mine.json", curatedEntry{UniqueID: "A", Kind: "photo", Description: "the agent's heron"})
	writeCurated(t, global, "all.json",
		curatedEntry{UniqueID: "A", Kind: "photo", Description: "the global heron"},
		curatedEntry{UniqueID: "B", Kind: "photo", Description: "the global owl"})
	for _, n := range []mynah.MediaNote{
		{UniqueID: "A", Kind: mynah.MediaPhoto, Status: mynah.MediaDescribed, Description: "the cached heron"},
		{UniqueID: "B", Kind: mynah.MediaPhoto, Status: mynah.MediaDescribed, Description: "the cached owl"},
		{UniqueID: "C", Kind: mynah.MediaPhoto, Status: mynah.MediaDescribed, Description: "the cached wren"},
	} {
		if err := v.store.PutMediaNote(t.Context(), n); err != nil {
			t.Fatal(err)
		}
	}
	v.agent(func(a *Agent) { a.Curated = []string{own, global} })
	var media []mynah.Media
	for i, uid := range []string{"A", "B", "C", "D"} {
		media = append(media, v.files.add(mynah.MediaPhoto, uid, testmedia.NthPNG(i)))
	}
	m := v.post(chat, 1, media...)

	history := []mynah.Message{m}
	if parts := v.e.Prepare(t.Context(), agentName, history, nil); parts != nil {
		t.Errorf("Prepare without focus returned parts: %v", parts)
	}
	want := []string{"the agent's heron", "the global owl", "the cached wren", ""}
	if diff := cmp.Diff(descriptions(history[0]), want); diff != "" {
		t.Errorf("descriptions in the prompt (-got +want):\n%s", diff)
	}
	if v.model.calls() != 0 || v.files.count() != 0 {
		t.Errorf("known descriptions cost %d calls and %d downloads, want none", v.model.calls(), v.files.count())
	}

	v.drain()
	want[3] = "seen: Describe this photo."
	if diff := cmp.Diff(descriptions(v.message(chat, 1)), want); diff != "" {
		t.Errorf("stored descriptions after the queue (-got +want):\n%s", diff)
	}
	if v.model.calls() != 1 || v.files.count() != 1 {
		t.Errorf("the queue made %d calls and %d downloads, want 1 of each (for D)", v.model.calls(), v.files.count())
	}
	if n := v.note("D"); n.Status != mynah.MediaDescribed || n.Source != "model:eye-1" {
		t.Errorf("D's note = %+v, want described by model:eye-1", n)
	}
	if v.queued() != 0 {
		t.Errorf("%d messages still queued", v.queued())
	}
}

// TestCacheAcrossRestart: a file described once is never described again, by any agent,
// after a restart too.
func TestCacheAcrossRestart(t *testing.T) {
	v := newEnv(t)
	v.agent()
	v.post(chat, 1, v.files.add(mynah.MediaPhoto, "heron", testmedia.NthPNG(1)))
	v.drain()
	if v.model.calls() != 1 {
		t.Fatalf("first sight: %d calls, want 1", v.model.calls())
	}

	v.restart()
	v.agent()
	other := mynah.Chat{ID: 7, Type: mynah.ChatPrivate}
	m := v.post(other, 2, v.files.add(mynah.MediaPhoto, "heron", testmedia.NthPNG(1)))
	history := []mynah.Message{m}
	v.e.Prepare(t.Context(), agentName, history, []mynah.MessageID{2})
	v.drain()
	if got := history[0].Media[0].Description; got != "seen: Describe this photo." {
		t.Errorf("after a restart the prompt shows %q", got)
	}
	if got := v.message(other, 2).Media[0].Description; got != "seen: Describe this photo." {
		t.Errorf("after a restart the stored message has %q", got)
	}
	if v.model.calls() != 1 || v.files.count() != 1 {
		t.Errorf("after a restart: %d calls, %d downloads in all, want 1 and 1", v.model.calls(), v.files.count())
	}
}

// TestBudget: a burst of 50 distinct photos is described within the budget, at most 8
// calls a minute, all of them within ⌈50/8⌉ = 7 minutes, none lost.
func TestBudget(t *testing.T) {
	v := newEnv(t)
	v.agent()
	const n, budget = 50, DefaultBudget
	for i := 1; i <= n; i++ {
		v.post(chat, i, v.files.add(mynah.MediaPhoto, "p"+string(rune('A'+i/26))+string(rune('a'+i%26)), testmedia.NthPNG(i)))
	}
	minutes := 0
	for v.queued() > 0 {
		if minutes++; minutes > 10 {
			break
		}
		for range 6 { // passes within the minute
			v.drain()
			v.clock.Add(10 * time.Second)
		}
	}
	if v.queued() != 0 {
		t.Fatalf("%d messages still queued after %d minutes", v.queued(), minutes)
	}
	if want := (n + budget - 1) / budget; minutes > want {
		t.Errorf("took %d minutes, want at most %d", minutes, want)
	}
	v.model.mu.Lock()
	for i, start := range v.model.at { // every sliding minute, from each call on
		c := 0
		for _, at := range v.model.at[i:] {
			if at.Before(start.Add(time.Minute)) {
				c++
			}
		}
		if c > budget {
			t.Errorf("%d describer calls in the minute from %v, budget %d", c, start, budget)
		}
	}
	v.model.mu.Unlock()
	if v.model.calls() != n {
		t.Errorf("%d describer calls, want %d", v.model.calls(), n)
	}
	for i := 1; i <= n; i++ {
		if d := v.message(chat, i).Media[0].Description; d == "" {
			t.Errorf("message %d was never described", i)
		}
	}
}

// TestSameStickerOnce: the same sticker sent 1,000 times across 100 chats costs exactly
// one describer call and one download.
func TestSameStickerOnce(t *testing.T) {
	v := newEnv(t)
	v.model.delay = 50 * time.Millisecond // the workers' passes overlap while it answers
	v.agent()
	sticker := v.files.add(mynah.MediaSticker, "frog", testmedia.WEBP())
	sticker.SetName, sticker.Emoji, sticker.MimeType = "MrRibbit", "💻", "image/webp"
	for c := range 100 {
		ch := mynah.Chat{ID: mynah.ChatID(-2000 - c), Type: mynah.ChatGroup}
		for i := 1; i <= 10; i++ {
			v.post(ch, i, sticker)
		}
	}
	v.drain()
	if v.model.calls() != 1 || v.files.count() != 1 {
		t.Errorf("1,000 stickers: %d describer calls and %d downloads, want 1 and 1", v.model.calls(), v.files.count())
	}
	if v.queued() != 0 {
		t.Errorf("%d messages still queued", v.queued())
	}
	got := v.message(mynah.Chat{ID: -2099}, 10).Media[0].Description
	if !strings.Contains(got, `"MrRibbit"`) || !strings.Contains(got, "💻") {
		t.Errorf("the sticker's description %q does not come from a prompt naming its set and emoji", got)
	}
}

// stoppingModel is a describer whose answer comes as mynah stops: it cancels the engine's
// context, then answers.
type stoppingModel struct {
	*describer
	stop context.CancelFunc
}

func (m stoppingModel) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	m.stop()
	return m.describer.Generate(context.WithoutCancel(ctx), req)
}

// TestDescriptionAsItStops: a description the provider gives as mynah stops was paid for:
// it is stored, and after the restart the photo is not described again.
func TestDescriptionAsItStops(t *testing.T) {
	v := newEnv(t)
	ctx, stop := context.WithCancel(t.Context())
	v.agent(func(a *Agent) { a.Describer = stoppingModel{v.model, stop} })
	v.post(chat, 1, v.files.add(mynah.MediaPhoto, "heron", testmedia.NthPNG(1)))
	v.e.work(ctx)
	if v.model.calls() != 1 {
		t.Fatalf("%d calls before the stop, want 1", v.model.calls())
	}

	v.restart()
	v.agent()
	v.drain()
	if got := v.message(chat, 1).Media[0].Description; got != "seen: Describe this photo." {
		t.Errorf("after the restart the stored message has %q, want the description given as it stopped", got)
	}
	if v.model.calls() != 1 {
		t.Errorf("%d calls in all, want 1: the photo was described again after the restart", v.model.calls())
	}
}
