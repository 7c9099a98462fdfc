package telegramtest

import (
	"bytes"
	"image"
	"image/color"
	"io"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/testmedia"
)

func download(t *testing.T, srv *Server, filePath string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+"/file/bot"+srv.Token()+"/"+filePath, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

func TestFileDownload(t *testing.T) {
	srv := Start(t, Options{})
	content := []byte("\x89PNG fake image")
	id, unique := srv.AddFile(content, KindPhoto)
	var f File
	call(t, srv, srv.Token(), "getFile", map[string]any{"file_id": id}).decode(t, &f)
	if f.FileID != id || f.FileUniqueID != unique || f.FileSize != len(content) || f.FilePath == "" {
		t.Errorf("file = %+v", f)
	}
	status, body := download(t, srv, f.FilePath)
	if status != 200 || !bytes.Equal(body, content) {
		t.Errorf("download = %d %q", status, body)
	}
	if status, _ := download(t, srv, "photos/missing.jpg"); status != 404 {
		t.Errorf("missing file status = %d, want 404", status)
	}
	wantError(t, call(t, srv, srv.Token(), "getFile", map[string]any{"file_id": "nope"}), 400, "Bad Request: invalid file_id")
}

func TestSendPhotoUpload(t *testing.T) {
	srv := Start(t, Options{})
	srv.AddChat(PrivateChat(alice))
	upload := func(fields map[string]string, fileField string, content []byte) apiResponse {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		for k, v := range fields {
			w.WriteField(k, v)
		}
		if fileField != "" {
			fw, _ := w.CreateFormFile(fileField, "cat.jpg")
			fw.Write(content)
		}
		w.Close()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL()+"/bot"+srv.Token()+"/sendPhoto", &buf)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", w.FormDataContentType())
		return do(t, req)
	}
	var m Message
	upload(map[string]string{"chat_id": "501", "caption": "a <i>cat</i>", "parse_mode": "HTML"}, "photo", []byte("meow")).decode(t, &m)
	if len(m.Photo) == 0 || m.Caption != "a cat" || len(m.CaptionEntities) != 1 {
		t.Fatalf("message = %+v", m)
	}
	var f File
	call(t, srv, srv.Token(), "getFile", map[string]any{"file_id": m.Photo[0].FileID}).decode(t, &f)
	if _, body := download(t, srv, f.FilePath); string(body) != "meow" {
		t.Errorf("downloaded %q, want the upload", body)
	}
	var again Message
	call(t, srv, srv.Token(), "sendPhoto", map[string]any{"chat_id": alice.ID, "photo": m.Photo[0].FileID}).decode(t, &again)
	if again.Photo[0].FileID != m.Photo[0].FileID {
		t.Errorf("resent photo id %q, want %q", again.Photo[0].FileID, m.Photo[0].FileID)
	}
	upload(map[string]string{"chat_id": "501", "photo": "attach://pic"}, "pic", []byte("attached")).decode(t, &m)

	var log violationLog
	strict := Start(t, Options{OnViolation: log.add})
	strict.AddChat(PrivateChat(alice))
	wantError(t, call(t, strict, strict.Token(), "sendPhoto", map[string]any{"chat_id": alice.ID}), 400, "Bad Request: there is no photo in the request")
	wantError(t, call(t, strict, strict.Token(), "sendPhoto", map[string]any{"chat_id": alice.ID, "photo": "bogus"}), 400, "Bad Request: wrong file identifier/HTTP URL specified")
	wantError(t, call(t, strict, strict.Token(), "sendPhoto", map[string]any{"chat_id": alice.ID, "photo": "https://example.com/a.jpg", "caption": strings.Repeat("ё", 1025)}), 400, "Bad Request: message caption is too long")
	if got := log.list(); len(got) != 1 || got[0] != "sendPhoto: required parameter photo missing" {
		t.Errorf("violations = %q", got)
	}
	if got := srv.Sent(alice.ID); len(got) != 3 || got[0].Method != "sendPhoto" || got[0].Text != "a cat" {
		t.Errorf("sent = %+v", got)
	}
}

// fetch downloads the file fileID as a bot does: getFile, then the file path.
func fetch(t *testing.T, srv *Server, fileID string) (File, []byte) {
	t.Helper()
	var f File
	call(t, srv, srv.Token(), "getFile", map[string]any{"file_id": fileID}).decode(t, &f)
	status, body := download(t, srv, f.FilePath)
	if status != 200 {
		t.Fatalf("download of %s (%s) = %d %s", fileID, f.FilePath, status, body)
	}
	return f, body
}

// updates returns the pending updates of the first bot; with Start, the
// emulator checks them against the spec.
func updates(t *testing.T, srv *Server) []Update {
	t.Helper()
	var us []Update
	call(t, srv, srv.Token(), "getUpdates", nil).decode(t, &us)
	return us
}

// TestInjectedMediaDownload: every kind of injected media reaches the bot in
// a spec-conformant update and downloads as the bytes the test stored, with
// the size, format and duration Telegram would report.
func TestInjectedMediaDownload(t *testing.T) {
	srv := Start(t, Options{})
	voiceID, _ := srv.AddFile(testmedia.Voice(), KindVoice)
	videoID, _ := srv.AddFile(testmedia.MP4(), KindVideo)
	noteID, _ := srv.AddFile(testmedia.MP4(), KindVideoNote)
	animID, _ := srv.AddFile(testmedia.MP4(), KindAnimation)
	audioID, _ := srv.AddFile(testmedia.Voice(), KindAudio)
	pdfID, _ := srv.AddFile(testmedia.PDF("hello"), KindDocument)
	webpID, _ := srv.AddFile(testmedia.WEBP(), KindSticker)
	webmID, _ := srv.AddFile(testmedia.WEBM(), KindSticker)
	tgsID, _ := srv.AddFile(testmedia.TGS("frog"), KindSticker)
	pngID, _ := srv.AddFile(testmedia.PNG(40, 30, color.RGBA{G: 200, A: 255}), KindPhoto)

	want := map[string][]byte{}
	check := func(name, fileID string, wantSize int, data []byte) {
		t.Helper()
		f, body := fetch(t, srv, fileID)
		if !bytes.Equal(body, data) {
			t.Errorf("%s: downloaded %d bytes, not the %d stored", name, len(body), len(data))
		}
		if f.FileSize != len(data) || wantSize != len(data) {
			t.Errorf("%s: file_size %d in getFile, %d in the message, want %d", name, f.FileSize, wantSize, len(data))
		}
		want[name] = data
	}

	srv.SendPrivate(alice, "", WithVoice(voiceID, 3))
	srv.SendPrivate(alice, "a clip", WithVideo(videoID, 1))
	srv.SendPrivate(alice, "", WithVideoNote(noteID, 1))
	srv.SendPrivate(alice, "", WithAnimation(animID))
	srv.SendPrivate(alice, "", WithAudio(audioID, 3, "Dentist"))
	srv.SendPrivate(alice, "", WithDocument(pdfID, "report.pdf"))
	srv.SendPrivate(alice, "", WithSticker(webpID, "🐸", ""))
	srv.SendPrivate(alice, "", WithSticker(webmID, "💻", ""))
	srv.SendPrivate(alice, "", WithSticker(tgsID, "🎉", ""))
	srv.SendPrivate(alice, "", WithPhoto(pngID))
	us := updates(t, srv)
	if len(us) != 10 {
		t.Fatalf("%d updates, want 10", len(us))
	}
	m := func(i int) *Message { return us[i].Message }

	if v := m(0).Voice; v == nil || v.MimeType != "audio/ogg" || v.Duration != 3 {
		t.Errorf("voice = %+v", v)
	} else {
		check("voice", v.FileID, v.FileSize, testmedia.Voice())
	}
	if v := m(1).Video; v == nil || v.Width != 64 || v.Height != 64 || v.Duration != 1 || v.MimeType != "video/mp4" || m(1).Caption != "a clip" {
		t.Errorf("video = %+v, caption %q; want 64×64, 1 s, video/mp4 (the clip's own)", v, m(1).Caption)
	} else {
		check("video", v.FileID, v.FileSize, testmedia.MP4())
	}
	if v := m(2).VideoNote; v == nil || v.Length != 64 || v.Duration != 1 {
		t.Errorf("video note = %+v", v)
	} else {
		check("video note", v.FileID, v.FileSize, testmedia.MP4())
	}
	if a, d := m(3).Animation, m(3).Document; a == nil || a.Width != 64 || a.Duration != 1 || a.MimeType != "video/mp4" ||
		d == nil || d.FileID != a.FileID {
		t.Errorf("animation = %+v, document = %+v; want 64×64, 1 s, repeated as the document", a, d)
	} else {
		check("animation", a.FileID, a.FileSize, testmedia.MP4())
	}
	if a := m(4).Audio; a == nil || a.Title != "Dentist" || a.Duration != 3 || a.MimeType != "audio/ogg" {
		t.Errorf("audio = %+v", a)
	} else {
		check("audio", a.FileID, a.FileSize, testmedia.Voice())
	}
	if d := m(5).Document; d == nil || d.FileName != "report.pdf" || d.MimeType != "application/pdf" {
		t.Errorf("document = %+v", d)
	} else {
		check("document", d.FileID, d.FileSize, testmedia.PDF("hello"))
	}
	for i, st := range []struct {
		emoji           string
		animated, video bool
		data            []byte
	}{{"🐸", false, false, testmedia.WEBP()}, {"💻", false, true, testmedia.WEBM()}, {"🎉", true, false, testmedia.TGS("frog")}} {
		s := m(6 + i).Sticker
		if s == nil || s.Emoji != st.emoji || s.IsAnimated != st.animated || s.IsVideo != st.video {
			t.Errorf("sticker %s = %+v, want is_animated %v, is_video %v", st.emoji, s, st.animated, st.video)
			continue
		}
		check("sticker "+st.emoji, s.FileID, s.FileSize, st.data)
	}
	if p := m(9).Photo; len(p) != 1 || p[0].Width != 40 || p[0].Height != 30 {
		t.Errorf("photo = %+v, want one size of the image's 40×30", p)
	} else {
		check("photo", p[0].FileID, p[0].FileSize, testmedia.PNG(40, 30, color.RGBA{G: 200, A: 255}))
	}
	if got := srv.FileDownloads(); got != len(want) {
		t.Errorf("FileDownloads = %d, want %d", got, len(want))
	}
}

// TestPhotoSizes: a photo comes in the sizes Telegram makes, each its own
// file whose bytes are an image of the stated dimensions, the original last.
func TestPhotoSizes(t *testing.T) {
	srv := Start(t, Options{})
	orig := testmedia.PNG(1400, 1050, color.RGBA{R: 200, B: 90, A: 255})
	id, _ := srv.AddFile(orig, KindPhoto)
	first := srv.SendPrivate(alice, "", WithPhoto(id))
	again := srv.SendPrivate(alice, "", WithPhoto(id))
	type dims struct{ W, H int }
	var got []dims
	seen := map[string]bool{}
	for _, p := range first.Photo {
		got = append(got, dims{p.Width, p.Height})
		if seen[p.FileUniqueID] {
			t.Errorf("file_unique_id %s repeats", p.FileUniqueID)
		}
		seen[p.FileUniqueID] = true
		_, body := fetch(t, srv, p.FileID)
		cfg, _, err := image.DecodeConfig(bytes.NewReader(body))
		if err != nil || cfg.Width != p.Width || cfg.Height != p.Height {
			t.Errorf("size %d×%d downloads as %d×%d (%v)", p.Width, p.Height, cfg.Width, cfg.Height, err)
		}
	}
	wantDims := []dims{{90, 67}, {320, 240}, {800, 600}, {1280, 960}, {1400, 1050}}
	if !slices.Equal(got, wantDims) {
		t.Errorf("sizes %v, want %v", got, wantDims)
	}
	if last := first.Photo[len(first.Photo)-1]; last.FileID != id || last.FileSize != len(orig) {
		t.Errorf("largest size = %+v, want the stored file %s itself", last, id)
	}
	if !slices.Equal(again.Photo, first.Photo) {
		t.Errorf("the same photo sent again has sizes %+v, want the same files %+v", again.Photo, first.Photo)
	}
	updates(t, srv) // the spec check of the updates
}

// TestFileTooBig: a file reported over 20 MB is refused by getFile without
// the test allocating it; one just under is served.
func TestFileTooBig(t *testing.T) {
	srv := Start(t, Options{})
	big, _ := srv.AddFileSized([]byte("not really 25 MB"), KindVideo, 25<<20)
	almost, _ := srv.AddFileSized([]byte("not really 19.9 MB"), KindVideo, 19_900_000)
	m := srv.SendPrivate(alice, "", WithVideo(big, 60))
	if m.Video.FileSize != 25<<20 {
		t.Errorf("video file_size = %d, want the reported 25 MB", m.Video.FileSize)
	}
	wantError(t, call(t, srv, srv.Token(), "getFile", map[string]any{"file_id": big}), 400, "Bad Request: file is too big")
	f, body := fetch(t, srv, almost)
	if f.FileSize != 19_900_000 || string(body) != "not really 19.9 MB" {
		t.Errorf("19.9 MB file: getFile %+v, body %q", f, body)
	}
	if n := srv.FileDownloads(); n != 1 {
		t.Errorf("FileDownloads = %d, want 1", n)
	}
}

// TestStickerSetFiles: a set's stickers are real files whose format flags
// follow their content.
func TestStickerSetFiles(t *testing.T) {
	srv := Start(t, Options{})
	srv.AddStickerSetFiles("MrRibbit", "Mr Ribbit",
		StickerFile{Emoji: "🐸", Data: testmedia.WEBP()},
		StickerFile{Emoji: "💻", Data: testmedia.WEBM()},
		StickerFile{Emoji: "🎉", Data: testmedia.TGS("party")})
	var set StickerSet
	call(t, srv, srv.Token(), "getStickerSet", map[string]any{"name": "mrribbit"}).decode(t, &set)
	if set.Name != "MrRibbit" || set.Title != "Mr Ribbit" || len(set.Stickers) != 3 {
		t.Fatalf("set = %+v", set)
	}
	for i, want := range []struct {
		animated, video bool
		data            []byte
	}{{false, false, testmedia.WEBP()}, {false, true, testmedia.WEBM()}, {true, false, testmedia.TGS("party")}} {
		st := set.Stickers[i]
		if st.IsAnimated != want.animated || st.IsVideo != want.video || st.SetName != "MrRibbit" || st.FileSize != len(want.data) {
			t.Errorf("sticker %s = %+v", st.Emoji, st)
		}
		if _, body := fetch(t, srv, st.FileID); !bytes.Equal(body, want.data) {
			t.Errorf("sticker %s downloads %d bytes, not its file", st.Emoji, len(body))
		}
	}
}

// TestMediaGroup: an album's messages share media_group_id and the first
// one's date, even when injected seconds apart.
func TestMediaGroup(t *testing.T) {
	now := time.Unix(1763683200, 0)
	var mu sync.Mutex
	srv := Start(t, Options{Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}})
	a, _ := srv.AddFile(testmedia.NthPNG(1), KindPhoto)
	b, _ := srv.AddFile(testmedia.NthPNG(2), KindPhoto)
	g := Group(-100, "Birders")
	m1 := srv.SendGroup(g, alice, "our trip", WithPhoto(a), WithMediaGroup("album1"))
	m2 := srv.SendGroup(g, alice, "", WithPhoto(b), WithMediaGroup("album1"))
	m3 := srv.SendGroup(g, alice, "later", WithPhoto(b))
	if m1.MediaGroupID != "album1" || m2.MediaGroupID != "album1" || m1.Date != m2.Date {
		t.Errorf("album = %q@%d, %q@%d; want one id and one date", m1.MediaGroupID, m1.Date, m2.MediaGroupID, m2.Date)
	}
	if m3.MediaGroupID != "" || m3.Date == m1.Date {
		t.Errorf("a later photo = %q@%d, want no group and its own date", m3.MediaGroupID, m3.Date)
	}
	if us := updates(t, srv); len(us) != 3 || us[1].Message.MediaGroupID != "album1" {
		t.Errorf("updates = %+v", us)
	}
}

func TestDocumentMime(t *testing.T) {
	for name, want := range map[string]string{
		"a.pdf": "application/pdf", "notes.txt": "text/plain", "README.md": "text/markdown",
		"birds.CSV": "text/csv", "data.json": "application/json", "main.go": "text/x-go",
		"blob.xyz123": "application/octet-stream",
	} {
		if got := mimeType(name); got != want {
			t.Errorf("mimeType(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestMP4Info(t *testing.T) {
	if w, h, sec, ok := mp4Info(testmedia.MP4()); !ok || w != 64 || h != 64 || sec != 1 {
		t.Errorf("mp4Info(clip) = %d×%d %d s ok=%v, want 64×64 1 s", w, h, sec, ok)
	}
	for _, b := range [][]byte{nil, testmedia.WEBM(), []byte("\x00\x00\x00\x08moov"), []byte("\xff\xff\xff\xffmoov")} {
		if _, _, _, ok := mp4Info(b); ok {
			t.Errorf("mp4Info(%q) ok, want not an MP4", b)
		}
	}
}
