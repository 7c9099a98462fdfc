package main

import (
	"bytes"
	"fmt"
	"image/color"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
	"github.com/mynah-ai/mynah/internal/testmedia"
)

// The senses end to end (issue 14): what people send reaches the model as images, words
// and text, through the real binary, the emulator's getFile and downloads, and the fake
// provider.

// senses scripts the fake provider: requests of the media describer (recognised by its
// instruction) get the description describe gives for their first image, chat turns get
// reply. It counts the describer's calls.
type senses struct {
	mu        sync.Mutex
	described int
	describe  func(img []byte) string
	reply     func(r llmtest.Recorded) llmtest.Reply
}

func isDescriber(r llmtest.Recorded) bool {
	return strings.Contains(r.System, "You describe media files")
}

func newSenses(h *harness, describe func(img []byte) string) *senses {
	s := &senses{describe: describe, reply: func(llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "I see."} }}
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		if isDescriber(r) {
			s.mu.Lock()
			s.described++
			s.mu.Unlock()
			var img []byte
			if imgs := r.Images(); len(imgs) > 0 {
				img = imgs[0].Data
			}
			return llmtest.Reply{Text: s.describe(img)}
		}
		s.mu.Lock()
		reply := s.reply
		s.mu.Unlock()
		return reply(r)
	})
	return s
}

func (s *senses) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.described
}

// chatRequests are the provider requests that were agent turns, not descriptions.
func chatRequests(h *harness) []llmtest.Recorded {
	var out []llmtest.Recorded
	for _, r := range h.llm.Requests() {
		if !isDescriber(r) {
			out = append(out, r)
		}
	}
	return out
}

// eventually polls cond for up to 30 seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPhotoIsSeenThenRemembered: a photo being answered reaches the model as the image
// itself, in the user turn of its header and caption; in the background it gets a stored
// description, so the next turn reads "[photo: …]" without the bytes, and search finds it.
func TestPhotoIsSeenThenRemembered(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	s := newSenses(h, func([]byte) string { return "a heron standing on a fence post" })
	h.start()
	photo := testmedia.PNG(40, 30, color.RGBA{G: 200, A: 255})
	id, _ := h.emu.AddFile(photo, telegramtest.KindPhoto)
	h.emu.SendPrivate(alice, "what bird is this?", telegramtest.WithPhoto(id))
	h.waitSent(alice.ID, 1)

	first := chatRequests(h)[0]
	imgs := first.Images()
	if len(imgs) != 1 || !bytes.Equal(imgs[0].Data, photo) {
		t.Fatalf("the model got %d images; want the photo itself", len(imgs))
	}
	last := first.Turns[len(first.Turns)-1]
	var texts []string
	for _, p := range last.Parts {
		if p.Image == nil {
			texts = append(texts, p.Text)
		}
	}
	if joined := strings.Join(texts, "\n"); last.Role != llm.User || !strings.Contains(joined, "[meta]") || !strings.Contains(joined, "what bird is this?") {
		t.Errorf("the image is not in the user turn of its header and caption: %q", joined)
	}

	eventually(t, "the photo is described", func() bool { return s.calls() == 1 })
	eventually(t, "the description is stored", func() bool {
		out, _ := mynahCLI(t, h, "memory", "search", "--config", h.dir, "--query", "heron fence")
		return strings.Contains(out, "heron standing on a fence post")
	})
	h.emu.SendPrivate(alice, "and what was it standing on?")
	h.waitSent(alice.ID, 2)
	second := chatRequests(h)[1]
	if n := len(second.Images()); n != 0 {
		t.Errorf("the second turn resent %d images; the photo is a description now", n)
	}
	if text := requestText(second); !strings.Contains(text, "[photo: a heron standing on a fence post]") {
		t.Errorf("the second turn does not show the description:\n%s", text)
	}
	if got := h.emu.FileDownloads(); got != 1 {
		t.Errorf("the photo was downloaded %d times; once serves the answer and the description", got)
	}
	h.stop()
	h.checkNoSecrets()
}

// TestVoiceIsHeard: a voice note is transcribed (OpenAI /audio/transcriptions), the
// words reach the prompt as [voice 3s: "…"], and search finds them like typed text.
func TestVoiceIsHeard(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	newSenses(h, func([]byte) string { return "unused" })
	voice := testmedia.Voice()
	h.llm.SetTranscript(voice, testmedia.VoiceWords)
	h.start()
	id, _ := h.emu.AddFile(voice, telegramtest.KindVoice)
	h.emu.SendPrivate(alice, "", telegramtest.WithVoice(id, 3))
	h.waitSent(alice.ID, 1)

	tr := h.llm.TranscribeRequests()
	if len(tr) != 1 || !bytes.Equal(tr[0].Audio, voice) || tr[0].Model != "whisper-1" {
		t.Fatalf("transcription requests = %+v; want the voice note once, to whisper-1", tr)
	}
	want := `[voice 3s: "` + testmedia.VoiceWords + `"]`
	if text := requestText(chatRequests(h)[0]); !strings.Contains(text, want) {
		t.Errorf("the turn does not carry the words %s:\n%s", want, text)
	}
	out := mustCLI(t, h, "memory", "search", "--config", h.dir, "--query", "dentist friday")
	if !strings.Contains(out, "remind me about the dentist") {
		t.Errorf("search does not find the voice note's words:\n%s", out)
	}
	h.stop()
}

// TestStickersSeenListedAndSent: the agent's sticker sets are listed in the prompt as
// Set::emoji — description (curated, or described from the image), a sticker someone
// sends shows its description, and the model sends one by that name.
func TestStickersSeenListedAndSent(t *testing.T) {
	h := newHarness(t, harnessOptions{Front: "stickers: [MrRibbit]\n"})
	s := newSenses(h, func([]byte) string { return "a frog giving a thumbs up" })
	write(t, filepath.Join(h.dir, "media", "ribbit.json"),
		`[{"kind": "sticker", "sticker_set_name": "MrRibbit", "sticker_name": "💻", "description": "a grumpy cartoon frog at a laptop"}]`)
	set := h.emu.AddStickerSetFiles("MrRibbit", "Mr Ribbit",
		telegramtest.StickerFile{Emoji: "💻", Data: testmedia.WEBP()},
		telegramtest.StickerFile{Emoji: "👍", Data: testmedia.PNG(32, 32, color.RGBA{R: 9, A: 255})})
	h.start()

	h.emu.SendPrivate(alice, "", telegramtest.WithSticker(set.Stickers[0].FileID, "💻", "MrRibbit"))
	h.waitSent(alice.ID, 1)
	if text := requestText(chatRequests(h)[0]); !strings.Contains(text, "[sticker MrRibbit 💻: a grumpy cartoon frog at a laptop]") {
		t.Errorf("the sticker is not shown with its curated description:\n%s", text)
	}
	eventually(t, "the catalogue's other sticker is described", func() bool { return s.calls() >= 1 })

	s.mu.Lock()
	s.reply = func(r llmtest.Recorded) llmtest.Reply {
		if len(r.Turns) > 0 && r.Turns[len(r.Turns)-1].Role == llm.ToolRole {
			return llmtest.Reply{Text: ""}
		}
		return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "send_sticker", Arguments: []byte(`{"sticker": "MrRibbit::👍"}`)}}}
	}
	s.mu.Unlock()
	h.emu.SendPrivate(alice, "send me a thumbs up")
	eventually(t, "a sticker is sent", func() bool {
		for _, m := range h.emu.Sent(alice.ID) {
			if m.Message.Sticker != nil && m.Message.Sticker.Emoji == "👍" {
				return true
			}
		}
		return false
	})
	reqs := chatRequests(h)
	sys := reqs[len(reqs)-1].System
	for _, want := range []string{"MrRibbit::💻 — a grumpy cartoon frog at a laptop", "MrRibbit::👍 — a frog giving a thumbs up", "send_sticker"} {
		if !strings.Contains(sys, want) {
			t.Errorf("the system prompt lacks %q:\n%s", want, sys)
		}
	}
	if got := s.calls(); got != 1 {
		t.Errorf("%d describer calls; the curated sticker needs none, the other one", got)
	}
	h.stop()
}

// TestDocumentsAreRead: a PDF's and a text file's words reach the prompt and search; a
// file mynah cannot read keeps a placeholder with its name, type and size.
func TestDocumentsAreRead(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	newSenses(h, func([]byte) string { return "unused" })
	h.start()
	pdf, _ := h.emu.AddFile(testmedia.PDF("Quarterly report", "Revenue grew by eleven percent"), telegramtest.KindDocument)
	h.emu.SendPrivate(alice, "summarise please", telegramtest.WithDocument(pdf, "report.pdf"))
	h.waitSent(alice.ID, 1)
	txt, _ := h.emu.AddFile([]byte("buy oat milk\nwater the ficus\n"), telegramtest.KindDocument)
	h.emu.SendPrivate(alice, "", telegramtest.WithDocument(txt, "todo.txt"))
	h.waitSent(alice.ID, 2)
	zip, _ := h.emu.AddFile(append([]byte("PK\x03\x04"), make([]byte, 2000)...), telegramtest.KindDocument)
	h.emu.SendPrivate(alice, "", telegramtest.WithDocument(zip, "photos.zip"))
	h.waitSent(alice.ID, 3)

	reqs := chatRequests(h)
	for i, want := range []string{"Revenue grew by eleven percent", "water the ficus", `[document "photos.zip" application/zip 2.0 KB]`} {
		if text := requestText(reqs[i]); !strings.Contains(text, want) {
			t.Errorf("turn %d lacks %q:\n%s", i+1, want, text)
		}
	}
	out := mustCLI(t, h, "memory", "search", "--config", h.dir, "--query", "revenue eleven")
	if !strings.Contains(out, "Revenue grew") {
		t.Errorf("search does not find the PDF's text:\n%s", out)
	}
	h.stop()
}

// TestMediaChainOrderAndCache: the agent's curated description beats the global one, a
// described photo stays described across a restart (no second describer call for the
// same file), and an operator's description wins from then on.
func TestMediaChainOrderAndCache(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	s := newSenses(h, func([]byte) string { return "a red square" })
	write(t, filepath.Join(h.dir, "media", "global.json"),
		`{"unique_id": "zzz", "kind": "sticker", "sticker_set_name": "Cats", "sticker_name": "😺", "description": "a global cat"}`)
	write(t, filepath.Join(h.dir, "agents", "Mynah", "media", "mine.json"),
		`{"kind": "sticker", "sticker_set_name": "Cats", "sticker_name": "😺", "description": "the agent's own cat"}`)
	cats := h.emu.AddStickerSetFiles("Cats", "Cats", telegramtest.StickerFile{Emoji: "😺", Data: testmedia.WEBP()})
	h.start()
	h.emu.SendPrivate(alice, "", telegramtest.WithSticker(cats.Stickers[0].FileID, "😺", "Cats"))
	h.waitSent(alice.ID, 1)
	if text := requestText(chatRequests(h)[0]); !strings.Contains(text, "[sticker Cats 😺: the agent's own cat]") {
		t.Errorf("the agent's curated description should win:\n%s", text)
	}

	photo, unique := h.emu.AddFile(testmedia.PNG(20, 20, color.RGBA{R: 255, A: 255}), telegramtest.KindPhoto)
	h.emu.SendPrivate(alice, "look", telegramtest.WithPhoto(photo))
	h.waitSent(alice.ID, 2)
	eventually(t, "the photo is described", func() bool { return s.calls() == 1 })
	eventually(t, "the description is stored", func() bool {
		out, code := mynahCLI(t, h, "media", "show", "--config", h.dir, unique)
		return code == 0 && strings.Contains(out, "a red square")
	})
	h.stop()

	h.start()
	h.emu.SendPrivate(alice, "again", telegramtest.WithPhoto(photo))
	h.waitSent(alice.ID, 3)
	time.Sleep(1500 * time.Millisecond) // one pass of the background queue
	if got := s.calls(); got != 1 {
		t.Errorf("%d describer calls after a restart; the cached description serves the same file", got)
	}
	out := mustCLI(t, h, "media", "show", "--config", h.dir, unique)
	if !strings.Contains(out, "a red square") || !strings.Contains(out, "described") {
		t.Errorf("media show:\n%s", out)
	}
	mustCLI(t, h, "media", "set", "--config", h.dir, unique, "a red stop sign")
	time.Sleep(5500 * time.Millisecond) // serve reads an edit within five seconds
	h.emu.SendPrivate(alice, "and once more", telegramtest.WithPhoto(photo))
	h.waitSent(alice.ID, 4)
	eventually(t, "the operator's description shows", func() bool {
		reqs := chatRequests(h)
		return strings.Contains(requestText(reqs[len(reqs)-1]), "[photo: a red stop sign]")
	})
	if out := mustCLI(t, h, "media", "list", "--config", h.dir); !strings.Contains(out, "operator") || !strings.Contains(out, "a red stop sign") {
		t.Errorf("media list:\n%s", out)
	}
	h.stop()
}

// TestBadMediaKeepsTheConversation: a corrupt image, an empty file, a TGS that is not
// gzip, a video over 20 MB and a voice note the transcriber refuses each get a
// placeholder that says what went wrong, and every message is answered.
func TestBadMediaKeepsTheConversation(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	newSenses(h, func([]byte) string { return "unused" })
	h.llm.PushTranscripts(llmtest.Reply{Status: 400, Message: "Audio file might be corrupted or unsupported"})
	h.start()
	corrupt, _ := h.emu.AddFile([]byte("this is not an image"), telegramtest.KindPhoto)
	empty, _ := h.emu.AddFile(nil, telegramtest.KindDocument)
	tgs := h.emu.AddStickerSetFiles("Broken", "Broken", telegramtest.StickerFile{Emoji: "🙃", Data: []byte("\x1f\x8bnot really gzip")})
	big, _ := h.emu.AddFileSized([]byte("x"), telegramtest.KindVideo, 25<<20)
	badVoice, _ := h.emu.AddFile([]byte("OggS but not really"), telegramtest.KindVoice)
	bomb, _ := h.emu.AddFile(testmedia.PDFBomb(64<<20), telegramtest.KindDocument)
	almost, _ := h.emu.AddFileSized(testmedia.MP4(), telegramtest.KindVideo, 19_900_000)
	sends := []telegramtest.MessageOption{
		telegramtest.WithPhoto(corrupt),
		telegramtest.WithDocument(empty, "empty.txt"),
		telegramtest.WithSticker(tgs.Stickers[0].FileID, "🙃", "Broken"),
		telegramtest.WithVideo(big, 600),
		telegramtest.WithVoice(badVoice, 2),
		telegramtest.WithDocument(bomb, "report.pdf"),
		telegramtest.WithVideo(almost, 1),
	}
	for i, opt := range sends {
		h.emu.SendPrivate(alice, fmt.Sprintf("item %d", i+1), opt)
		h.waitSent(alice.ID, i+1)
	}
	all := ""
	for _, r := range chatRequests(h) {
		all += requestText(r)
	}
	for _, want := range []string{"[photo: could not be read]", `[document "empty.txt": the file is empty]`,
		"[sticker Broken 🙃: could not be read]", "[video 600s: over 20 MB, too big to download]",
		"[voice 2s: the transcriber could not read it (unsupported codec or format)]",
		`[document "report.pdf": `} {
		if !strings.Contains(all, want) {
			t.Errorf("the prompts lack %q:\n%s", want, all)
		}
	}
	reqs := chatRequests(h)
	for i, r := range reqs[:len(reqs)-1] {
		if len(r.Images()) != 0 {
			t.Errorf("broken file %d reached the model as an image", i+1)
		}
	}
	// A video just under Telegram's 20 MB limit is downloaded and watched like any other.
	if _, err := exec.LookPath("ffmpeg"); err == nil && len(reqs[len(reqs)-1].Images()) == 0 {
		t.Error("the 19.9 MB video's frames did not reach the model")
	}
	h.stop()
	if out := mustCLI(t, h, "media", "list", "--config", h.dir, "--status", "unsupported"); strings.Count(out, "\n") < 3 {
		t.Errorf("the bad files are not cached as unsupported:\n%s", out)
	}
}

// TestMediaBudget: with media.budget 2, a burst of five photos nobody asked about gets at
// most two descriptions in its first minute; the rest keep placeholders until later.
func TestMediaBudget(t *testing.T) {
	h := newHarness(t, harnessOptions{Front: "media:\n  budget: 2\n"})
	s := newSenses(h, func([]byte) string { return "a coloured square" })
	h.start()
	group := telegramtest.Supergroup(-100999, "Photos")
	for i := range 5 {
		id, _ := h.emu.AddFile(testmedia.NthPNG(i+1), telegramtest.KindPhoto)
		h.emu.SendGroup(group, alice, "", telegramtest.WithPhoto(id))
	}
	eventually(t, "two photos are described", func() bool { return s.calls() >= 2 })
	time.Sleep(3 * time.Second) // several passes of the queue, well within the minute
	if got := s.calls(); got != 2 {
		t.Errorf("%d describer calls in the first minute with a budget of 2", got)
	}
	h.stop()
}

// TestVideoIsWatched: a video reaches the describer as frames (ffmpeg), and the prompt
// shows its length and what it shows.
func TestVideoIsWatched(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is not installed (.ci/run installs it)")
	}
	h := newHarness(t, harnessOptions{})
	s := newSenses(h, func([]byte) string { return "a test pattern of coloured bars" })
	h.start()
	id, _ := h.emu.AddFile(testmedia.MP4(), telegramtest.KindVideo)
	h.emu.SendPrivate(alice, "what's this clip?", telegramtest.WithVideo(id, 1))
	h.waitSent(alice.ID, 1)
	first := chatRequests(h)[0]
	if len(first.Images()) == 0 {
		t.Errorf("the video's frames did not reach the model")
	}
	eventually(t, "the video is described", func() bool { return s.calls() >= 1 })
	eventually(t, "the description is stored", func() bool { // the call returns before the store has it
		out, _ := mynahCLI(t, h, "memory", "search", "--config", h.dir, "--query", "coloured bars")
		return strings.Contains(out, "coloured bars")
	})
	h.emu.SendPrivate(alice, "thanks")
	h.waitSent(alice.ID, 2)
	if text := requestText(chatRequests(h)[1]); !strings.Contains(text, "coloured bars") {
		t.Errorf("the second turn does not describe the video:\n%s", text)
	}
	h.stop()
}

// TestAlbumAnsweredOnce: an album of three photos gets one answer, which sees all three
// images; each is described on its own afterwards.
func TestAlbumAnsweredOnce(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	n := 0
	var mu sync.Mutex
	s := newSenses(h, func([]byte) string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("holiday photo number %d", n)
	})
	h.start()
	var photos [][]byte
	for i := range 3 {
		photo := testmedia.NthPNG(100 + i)
		photos = append(photos, photo)
		id, _ := h.emu.AddFile(photo, telegramtest.KindPhoto)
		caption := ""
		if i == 0 {
			caption = "our trip!"
		}
		h.emu.SendPrivate(alice, caption, telegramtest.WithPhoto(id), telegramtest.WithMediaGroup("album-1"))
	}
	h.waitSent(alice.ID, 1)
	eventually(t, "each photo is described", func() bool { return s.calls() == 3 })
	if sent := h.emu.Sent(alice.ID); len(sent) != 1 {
		t.Errorf("the album got %d answers, want one", len(sent))
	}
	reqs := chatRequests(h)
	if len(reqs) != 1 {
		t.Fatalf("%d agent turns for one album", len(reqs))
	}
	imgs := reqs[0].Images()
	if len(imgs) != 3 {
		t.Fatalf("the answer saw %d of the album's 3 photos", len(imgs))
	}
	for _, p := range photos {
		found := false
		for _, img := range imgs {
			found = found || bytes.Equal(img.Data, p)
		}
		if !found {
			t.Error("a photo of the album is missing from the answer's images")
		}
	}
	h.stop()
}

// TestMediaDescribeCommand: `mynah media describe` runs a local file through the
// agent's chain: an image through the describer, a voice note through the transcriber, a
// PDF through the extractor; a file it cannot read says why and exits non-zero.
func TestMediaDescribeCommand(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	newSenses(h, func(img []byte) string {
		if len(img) == 0 {
			return "nothing"
		}
		return "a small blue square"
	})
	h.llm.SetTranscript(testmedia.Voice(), testmedia.VoiceWords)
	dir := t.TempDir()
	files := map[string][]byte{
		"square.png": testmedia.PNG(10, 10, color.RGBA{B: 255, A: 255}),
		"note.ogg":   testmedia.Voice(),
		"report.pdf": testmedia.PDF("Minutes of the garden club", "Plant tulips in October"),
		"broken.png": []byte("not a png at all"),
	}
	for name, data := range files {
		write(t, filepath.Join(dir, name), string(data))
	}
	for name, want := range map[string]string{"square.png": "a small blue square", "note.ogg": testmedia.VoiceWords, "report.pdf": "Plant tulips in October"} {
		if out := mustCLI(t, h, "media", "describe", "--config", h.dir, filepath.Join(dir, name)); !strings.Contains(out, want) {
			t.Errorf("describe %s = %q, want %q", name, out, want)
		}
	}
	out, code := mynahCLI(t, h, "media", "describe", "--config", h.dir, filepath.Join(dir, "broken.png"))
	if code == 0 || !strings.Contains(out, "could not be described") {
		t.Errorf("describing a broken image: exit %d\n%s", code, out)
	}
	if out, code := mynahCLI(t, h, "media", "show", "--config", h.dir); code == 0 || !strings.Contains(out, "name one file") {
		t.Errorf("show without a file: exit %d\n%s", code, out)
	}
	if out, code := mynahCLI(t, h, "media", "set", "--config", h.dir, "--set", "X", "--emoji", "🙂", "a smile"); code == 0 || !strings.Contains(out, "no sticker X::🙂 has been seen") {
		t.Errorf("set of an unknown sticker: exit %d\n%s", code, out)
	}
}

// BenchmarkPhotoBurst (issue 14): 50 distinct photos land in a group, then someone asks
// the agent about the last one; the describer takes 300 ms a call and the budget is 8 a
// minute. It reports how long the answer took (it must not wait for the describer: the
// model sees the photo itself), the describer calls made by then and after the first
// minute of the burst (≤ the budget), and that nothing was lost. The rest are described
// in the following minutes (⌈50/8⌉ = 7), which the media package's tests check on a
// fake clock.
//
//	go test -run '^$' -bench PhotoBurst -benchtime 1x ./cmd/mynah
func BenchmarkPhotoBurst(b *testing.B) {
	for i := 0; i < b.N; i++ {
		h := newHarness(b, harnessOptions{})
		var mu sync.Mutex
		calls := 0
		h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
			if isDescriber(r) {
				mu.Lock()
				calls++
				mu.Unlock()
				return llmtest.Reply{Text: "a coloured square", Delay: 300 * time.Millisecond}
			}
			return llmtest.Reply{Text: "that one is green"}
		})
		h.start()
		group := telegramtest.Supergroup(-100555, "Burst")
		start := time.Now()
		for n := range 50 {
			id, _ := h.emu.AddFile(testmedia.NthPNG(1000+n), telegramtest.KindPhoto)
			h.emu.SendGroup(group, alice, "", telegramtest.WithPhoto(id))
		}
		asked := time.Now()
		h.emu.SendGroup(group, alice, "@mynah_bot what colour is the last one?", telegramtest.ReplyTo(50))
		h.waitSent(group.ID, 1)
		answered := time.Since(asked)
		mu.Lock()
		byAnswer := calls
		mu.Unlock()
		time.Sleep(time.Until(start.Add(55 * time.Second)))
		mu.Lock()
		inMinute := calls
		mu.Unlock()
		var images int
		for _, r := range chatRequests(h) {
			images += len(r.Images())
		}
		db, err := sqlite.Open(b.Context(), filepath.Join(h.dir, "data", "mynah.db"))
		if err != nil {
			b.Fatal(err)
		}
		msgs, err := db.History(b.Context(), "Mynah", mynah.ChatID(group.ID), 0, 0, 1000)
		db.Close()
		if err != nil || len(msgs) < 51 {
			b.Fatalf("%d messages stored of the 51 sent (%v)", len(msgs), err)
		}
		b.ReportMetric(float64(answered.Milliseconds()), "answer-ms")
		b.ReportMetric(float64(byAnswer), "describer-calls-by-answer")
		b.ReportMetric(float64(inMinute), "describer-calls-first-minute")
		b.ReportMetric(float64(images), "images-in-answer")
		h.stop()
	}
}

// TestGeminiSeesAndHears: on Gemini a photo reaches the model as inline_data and a voice
// note is transcribed by the agent's own model from the audio inline.
func TestGeminiSeesAndHears(t *testing.T) {
	h := newHarness(t, harnessOptions{Provider: "gemini"})
	s := newSenses(h, func([]byte) string { return "a green square" })
	s.reply = func(r llmtest.Recorded) llmtest.Reply {
		if len(r.Audio()) > 0 {
			return llmtest.Reply{Text: testmedia.VoiceWords}
		}
		return llmtest.Reply{Text: "I see."}
	}
	h.start()
	photo := testmedia.PNG(12, 12, color.RGBA{G: 255, A: 255})
	id, _ := h.emu.AddFile(photo, telegramtest.KindPhoto)
	h.emu.SendPrivate(alice, "what is it?", telegramtest.WithPhoto(id))
	h.waitSent(alice.ID, 1)
	voice, _ := h.emu.AddFile(testmedia.Voice(), telegramtest.KindVoice)
	h.emu.SendPrivate(alice, "", telegramtest.WithVoice(voice, 3))
	h.waitSent(alice.ID, 2)

	var turns []llmtest.Recorded
	for _, r := range chatRequests(h) {
		if len(r.Audio()) == 0 {
			turns = append(turns, r)
		}
	}
	if len(turns) != 2 {
		t.Fatalf("%d agent turns, want 2", len(turns))
	}
	if imgs := turns[0].Images(); len(imgs) != 1 || !bytes.Equal(imgs[0].Data, photo) || imgs[0].MIME != "image/png" {
		t.Errorf("the photo did not reach Gemini as inline_data: %d images", len(imgs))
	}
	if text := requestText(turns[1]); !strings.Contains(text, `[voice 3s: "`+testmedia.VoiceWords+`"]`) {
		t.Errorf("the voice note's words are missing:\n%s", text)
	}
	h.stop()
}
