package media

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/testmedia"
)

// TestPrepareVision: a vision model is shown the images of the messages being answered
// (the target and the message it replies to), and only those; elsewhere the history
// carries the descriptions known, and nothing is downloaded for it.
func TestPrepareVision(t *testing.T) {
	v := newEnv(t)
	v.agent(func(a *Agent) { a.Vision = true })
	if err := v.store.PutMediaNote(t.Context(), mynah.MediaNote{UniqueID: "old", Kind: mynah.MediaPhoto,
		Status: mynah.MediaDescribed, Description: "an old heron"}); err != nil {
		t.Fatal(err)
	}
	red, blue := testmedia.PNG(8, 8, color.RGBA{R: 255, A: 255}), testmedia.PNG(8, 8, color.RGBA{B: 255, A: 255})
	history := []mynah.Message{
		v.post(chat, 1, v.files.add(mynah.MediaPhoto, "old", testmedia.NthPNG(1))),
		v.post(chat, 2, v.files.add(mynah.MediaPhoto, "unseen", testmedia.NthPNG(2))),
		v.post(chat, 3, v.files.add(mynah.MediaPhoto, "replied", red)),
		v.post(chat, 4, v.files.add(mynah.MediaPhoto, "target", blue)),
	}
	parts := v.e.Prepare(t.Context(), agentName, history, []mynah.MessageID{4, 3})
	want := map[mynah.MessageID][]llm.Part{
		3: {{Image: &llm.Blob{MIME: "image/png", Data: red}}},
		4: {{Image: &llm.Blob{MIME: "image/png", Data: blue}}},
	}
	if diff := cmp.Diff(parts, want); diff != "" {
		t.Errorf("parts (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(descriptions(history[0]), []string{"an old heron"}); diff != "" {
		t.Errorf("message 1 (-got +want):\n%s", diff)
	}
	if d := history[1].Media[0].Description; d != "" {
		t.Errorf("message 2, not in focus and unknown, shows %q", d)
	}
	if v.files.count() != 2 || v.model.calls() != 0 {
		t.Errorf("%d downloads and %d describer calls, want 2 and none (the model sees the images itself)",
			v.files.count(), v.model.calls())
	}
	// The queue describes them later, from the same downloads.
	v.drain()
	if v.files.count() != 3 || v.model.calls() != 3 {
		t.Errorf("after the queue: %d downloads and %d calls, want 3 and 3", v.files.count(), v.model.calls())
	}
}

// TestPrepareDescribesNow: without vision, the images of the messages being answered
// are described before the reply, the description stored and searchable; the budget is
// overdrawn rather than the reply starved.
func TestPrepareDescribesNow(t *testing.T) {
	v := newEnv(t)
	v.agent(func(a *Agent) { a.Budget = 1 })
	history := []mynah.Message{
		v.post(chat, 1, v.files.add(mynah.MediaPhoto, "a", testmedia.NthPNG(1))),
		v.post(chat, 2, v.files.add(mynah.MediaPhoto, "b", testmedia.NthPNG(2)), v.files.add(mynah.MediaPhoto, "c", testmedia.NthPNG(3))),
	}
	if parts := v.e.Prepare(t.Context(), agentName, history, []mynah.MessageID{2}); parts != nil {
		t.Errorf("parts without vision: %v", parts)
	}
	want := []string{"seen: Describe this photo.", "seen: Describe this photo."}
	if diff := cmp.Diff(descriptions(history[1]), want); diff != "" {
		t.Errorf("the target in the prompt (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(descriptions(v.message(chat, 2)), want); diff != "" {
		t.Errorf("the stored target (-got +want):\n%s", diff)
	}
	if d := history[0].Media[0].Description; d != "" || v.model.calls() != 2 {
		t.Errorf("message 1 shows %q after %d calls; want nothing yet and 2 calls", d, v.model.calls())
	}
	hits, err := v.store.SearchHistory(t.Context(), mynah.SearchQuery{Agent: agentName, Terms: []string{"photo"}, Limit: 5})
	if err != nil || len(hits) != 1 || hits[0].Message.ID != 2 {
		t.Errorf("search for the description: %d hits, %v", len(hits), err)
	}
}

// TestSpeechDocumentsLottie: voice notes become their words, documents their text, an
// animated sticker its Lottie metadata: stored and searchable, with no describer call.
func TestSpeechDocumentsLottie(t *testing.T) {
	v := newEnv(t)
	tr := &transcriber{words: testmedia.VoiceWords}
	v.agent(func(a *Agent) { a.Transcriber = tr })
	voice := v.files.add(mynah.MediaVoice, "voice", testmedia.Voice())
	voice.Duration, voice.MimeType = 3, "audio/ogg"
	pdfDoc := v.files.add(mynah.MediaDocument, "pdf", testmedia.PDF("Quarterly report", "Revenue grew by (12%)\nCosts fell"))
	pdfDoc.FileName, pdfDoc.MimeType = "report.pdf", "application/pdf"
	txt := v.files.add(mynah.MediaDocument, "txt", []byte("\xef\xbb\xbfshopping: eggs, flour, basil\n"))
	txt.FileName = "list.md"
	tgs := v.files.add(mynah.MediaSticker, "tgs", testmedia.TGS("dancing frog"))
	tgs.SetName, tgs.Emoji = "Frogs", "🕺" // no MIME type: told by its bytes
	zip := v.files.add(mynah.MediaDocument, "zip", []byte("PK\x03\x04"))
	zip.FileName, zip.MimeType = "photos.zip", "application/zip"
	history := []mynah.Message{v.post(chat, 1, voice, pdfDoc, txt, tgs, zip)}

	v.e.Prepare(t.Context(), agentName, history, []mynah.MessageID{1})
	want := []string{
		`"` + testmedia.VoiceWords + `"`,
		"Quarterly report\n\nRevenue grew by (12%)\nCosts fell",
		"shopping: eggs, flour, basil",
		`an animated sticker named "dancing frog" (2 s, 512×512)`,
		"",
	}
	if diff := cmp.Diff(descriptions(history[0]), want); diff != "" {
		t.Errorf("the prompt (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(descriptions(v.message(chat, 1)), want); diff != "" {
		t.Errorf("the stored message (-got +want):\n%s", diff)
	}
	if v.model.calls() != 0 || v.files.count() != 4 {
		t.Errorf("%d describer calls and %d downloads, want none and 4 (the zip is not downloaded)", v.model.calls(), v.files.count())
	}
	if len(tr.got) != 1 || tr.got[0].MIME != "audio/ogg" || !bytes.Equal(tr.got[0].Data, testmedia.Voice()) {
		t.Errorf("the transcriber got %d clips", len(tr.got))
	}
	for _, term := range []string{"dentist", "revenue", "basil"} {
		hits, err := v.store.SearchHistory(t.Context(), mynah.SearchQuery{Agent: agentName, Terms: []string{term}, Limit: 5})
		if err != nil || len(hits) != 1 {
			t.Errorf("search %q: %d hits, %v; want message 1", term, len(hits), err)
		}
	}
	v.drain()
	if v.queued() != 0 || v.files.count() != 4 {
		t.Errorf("after the queue: %d queued, %d downloads", v.queued(), v.files.count())
	}
}

// TestTextCapped: a long document's stored text is cut at the cap, on a rune boundary.
func TestTextCapped(t *testing.T) {
	long := strings.Repeat("ё", maxText) // two bytes each
	got, err := plainText([]byte(long))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > maxText+100 || !strings.HasPrefix(got, strings.Repeat("ё", maxText/2)) || !strings.Contains(got, "cut") {
		t.Errorf("capped text: %d bytes, ends %q", len(got), got[len(got)-40:])
	}
}

// TestFrames: video stickers, animations and videos reach the describer as frames when
// ffmpeg is installed.
func TestFrames(t *testing.T) {
	v := newEnvFFmpeg(t)
	v.agent()
	webm := v.files.add(mynah.MediaSticker, "webm", testmedia.WEBM())
	webm.SetName, webm.Emoji, webm.MimeType = "Frogs", "🐸", "video/webm"
	mp4 := v.files.add(mynah.MediaVideo, "mp4", testmedia.MP4())
	mp4.Duration, mp4.MimeType = 1, "video/mp4"
	v.post(chat, 1, webm, mp4)
	v.drain()
	reqs := v.model.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d describer calls, want 2", len(reqs))
	}
	for _, r := range reqs {
		images := 0
		for _, p := range r.Turns[0].Parts[1:] {
			if p.Image == nil || p.Image.MIME != "image/png" {
				t.Fatalf("part %+v is not a PNG frame", p)
			}
			if _, _, err := image.DecodeConfig(bytes.NewReader(p.Image.Data)); err != nil {
				t.Errorf("frame does not decode: %v", err)
			}
			images++
		}
		if images == 0 {
			t.Errorf("request %q has no frame", r.Turns[0].Parts[0].Text)
		}
	}
	if d := v.message(chat, 1).Media; d[0].Description == "" || d[1].Description == "" {
		t.Errorf("descriptions: %q, %q", d[0].Description, d[1].Description)
	}
}

// TestNoFFmpeg: without ffmpeg, videos keep their placeholders, nothing is cached (they
// are described once ffmpeg is installed), and the log says so once.
func TestNoFFmpeg(t *testing.T) {
	v := newEnv(t)
	v.agent(func(a *Agent) { a.Vision = true })
	for i := 1; i <= 3; i++ {
		md := v.files.add(mynah.MediaSticker, "webm", testmedia.WEBM())
		md.MimeType = "video/webm"
		v.post(chat, i, md)
	}
	history := []mynah.Message{v.message(chat, 3)}
	if parts := v.e.Prepare(t.Context(), agentName, history, []mynah.MessageID{3}); len(parts) != 0 {
		t.Errorf("parts without ffmpeg: %v", parts)
	}
	v.drain()
	if v.model.calls() != 0 || v.queued() != 0 {
		t.Errorf("%d calls, %d queued", v.model.calls(), v.queued())
	}
	if _, err := v.store.MediaNote(t.Context(), "webm"); err == nil {
		t.Error("a video read without ffmpeg was cached")
	}
	if got := v.logs.count("ffmpeg is not on PATH"); got != 1 {
		t.Errorf("the log says ffmpeg is missing %d times, want once:\n%s", got, v.logs)
	}
}

// TestDescribeFile: a local file goes through the chain as if it were sent.
func TestDescribeFile(t *testing.T) {
	v := newEnv(t)
	v.agent()
	n, err := v.e.DescribeFile(t.Context(), agentName, "heron.png", testmedia.NthPNG(5))
	if err != nil || n.Status != mynah.MediaDescribed || n.Description != "seen: Describe this photo." {
		t.Errorf("DescribeFile(png) = %+v, %v", n, err)
	}
	n, err = v.e.DescribeFile(t.Context(), agentName, "report.pdf", testmedia.PDF("Annual figures"))
	if err != nil || n.Description != "Annual figures" || n.Source != "extract" {
		t.Errorf("DescribeFile(pdf) = %+v, %v", n, err)
	}
	n, err = v.e.DescribeFile(t.Context(), agentName, "empty.jpg", nil)
	if err != nil || n.Status != mynah.MediaUnsupported || n.Problem != "the file is empty" {
		t.Errorf("DescribeFile(empty) = %+v, %v", n, err)
	}
	if _, err := v.e.DescribeFile(t.Context(), agentName, "voice.ogg", testmedia.Voice()); err == nil || !strings.Contains(err.Error(), "transcriber") {
		t.Errorf("DescribeFile(voice) without a transcriber: %v", err)
	}
	if _, err := v.e.DescribeFile(t.Context(), "nobody", "heron.png", testmedia.NthPNG(5)); err == nil {
		t.Error("DescribeFile for an unknown agent: no error")
	}
	if v.queued() != 0 {
		t.Errorf("DescribeFile queued %d messages", v.queued())
	}
	if ns, _ := v.store.MediaNotes(t.Context(), mynah.MediaFilter{}); len(ns) != 0 {
		t.Errorf("DescribeFile cached %d notes", len(ns))
	}
}

// TestKeepFiles: with KeepFiles, a downloaded file is kept under its unique id; without
// it, nothing is written.
func TestKeepFiles(t *testing.T) {
	v := newEnv(t)
	dir := filepath.Join(t.TempDir(), "kept")
	v.agent(func(a *Agent) { a.KeepFiles = dir })
	md := v.files.add(mynah.MediaDocument, "AgAD-x_1", []byte("minutes of the meeting"))
	md.FileName = "minutes.txt"
	v.post(chat, 1, md)
	v.drain()
	got, err := os.ReadFile(filepath.Join(dir, "AgAD-x_1.txt"))
	if err != nil || string(got) != "minutes of the meeting" {
		t.Errorf("kept file: %q, %v", got, err)
	}
}

// TestPDFUnicodeFonts: the text of a composite (Identity-H) font is read through its
// ToUnicode map, as in the PDFs that word processors and browsers write.
func TestPDFUnicodeFonts(t *testing.T) {
	cmap := `/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CMapName /Test def
1 begincodespacerange
<0000> <FFFF>
endcodespacerange
2 beginbfchar
<0001> <0048>
<0002> <0069>
endbfchar
1 beginbfrange
<0010> <0012> <0430>
endbfrange
endcmap
CMapName currentdict /CMap defineresource pop
end
end`
	content := `BT /F1 12 Tf 72 720 Td [<00010002> -300 <001000110012>] TJ ET`
	data := testmedia.PDFObjects(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type0 /BaseFont /Sans /Encoding /Identity-H /ToUnicode 6 0 R >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(cmap), cmap),
	)
	got, err := pdfText(t.Context(), data)
	if err != nil || got != "Hi абв" {
		t.Errorf("pdfText = %q, %v; want %q", got, err, "Hi абв")
	}
}
