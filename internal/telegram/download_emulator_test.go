package telegram_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/telegram"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
	"github.com/mynah-ai/mynah/internal/testmedia"
)

// emulatorBot returns an emulator and a Bot talking to it.
func emulatorBot(t *testing.T) (*telegramtest.Server, *telegram.Bot) {
	t.Helper()
	emu := telegramtest.Start(t, telegramtest.Options{Token: emuToken})
	b, err := telegram.New(telegram.Config{Token: emuToken, APIURL: emu.URL()})
	if err != nil {
		t.Fatal(err)
	}
	telegram.NoWait(b)
	return emu, b
}

// receive polls until n message updates arrived and returns their messages.
func receive(t *testing.T, b *telegram.Bot, n int) []mynah.Message {
	t.Helper()
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	var out []mynah.Message
	err := b.Poll(ctx, func(_ context.Context, u mynah.Update) error {
		if u.Message != nil {
			out = append(out, *u.Message)
		}
		if len(out) == n {
			stop()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Poll = %v", err)
	}
	return out
}

// TestDownloadEachKind: every kind a person sends reaches the adapter with its format
// and size, and its FileID downloads the bytes that were sent.
func TestDownloadEachKind(t *testing.T) {
	emu, b := emulatorBot(t)
	anna := telegramtest.User{ID: 5551234, FirstName: "Anna"}
	photo := testmedia.PNG(1400, 1050, color.RGBA{R: 30, G: 120, B: 200, A: 255})
	// Stored in this order, so the emulator numbers them 1, 2, …
	stored := []struct {
		name string
		kind telegramtest.FileKind
		data []byte
	}{
		{"photo", telegramtest.KindPhoto, photo}, {"voice", telegramtest.KindVoice, testmedia.Voice()},
		{"video", telegramtest.KindVideo, testmedia.MP4()}, {"note", telegramtest.KindVideoNote, testmedia.MP4()},
		{"gif", telegramtest.KindAnimation, testmedia.MP4()}, {"audio", telegramtest.KindAudio, testmedia.Voice()},
		{"pdf", telegramtest.KindDocument, testmedia.PDF("Quarterly birds")},
		{"md", telegramtest.KindDocument, []byte("# Notes\n\nherons: 3\n")},
		{"webp", telegramtest.KindSticker, testmedia.WEBP()}, {"webm", telegramtest.KindSticker, testmedia.WEBM()},
		{"tgs", telegramtest.KindSticker, testmedia.TGS("frog")},
	}
	ids, files := map[string]string{}, map[string][]byte{}
	for _, f := range stored {
		ids[f.name], _ = emu.AddFile(f.data, f.kind)
		files[f.name] = f.data
	}
	opts := []struct {
		name string
		opt  telegramtest.MessageOption
		want mynah.Media // without ids
	}{
		// The 1400×1050 photo comes in five sizes; the adapter takes the 1280 px one.
		{"photo", telegramtest.WithPhoto(ids["photo"]), mynah.Media{Kind: mynah.MediaPhoto, MimeType: "image/jpeg", Width: 1280, Height: 960}},
		{"voice", telegramtest.WithVoice(ids["voice"], 3), mynah.Media{Kind: mynah.MediaVoice, MimeType: "audio/ogg", Duration: 3}},
		{"video", telegramtest.WithVideo(ids["video"], 1), mynah.Media{Kind: mynah.MediaVideo, MimeType: "video/mp4", Width: 64, Height: 64, Duration: 1}},
		{"note", telegramtest.WithVideoNote(ids["note"], 1), mynah.Media{Kind: mynah.MediaVideoNote, MimeType: "video/mp4", Width: 64, Height: 64, Duration: 1}},
		{"gif", telegramtest.WithAnimation(ids["gif"]), mynah.Media{Kind: mynah.MediaAnimation, MimeType: "video/mp4", FileName: "file_5.mp4", Width: 64, Height: 64, Duration: 1}},
		{"audio", telegramtest.WithAudio(ids["audio"], 3, "Dentist"), mynah.Media{Kind: mynah.MediaAudio, MimeType: "audio/ogg", FileName: "Dentist", Duration: 3}},
		{"pdf", telegramtest.WithDocument(ids["pdf"], "report.pdf"), mynah.Media{Kind: mynah.MediaDocument, MimeType: "application/pdf", FileName: "report.pdf"}},
		{"md", telegramtest.WithDocument(ids["md"], "notes.md"), mynah.Media{Kind: mynah.MediaDocument, MimeType: "text/markdown", FileName: "notes.md"}},
		{"webp", telegramtest.WithSticker(ids["webp"], "🐸", "MrRibbit"), mynah.Media{Kind: mynah.MediaSticker, MimeType: "image/webp", Emoji: "🐸", SetName: "MrRibbit", Width: 512, Height: 512}},
		{"webm", telegramtest.WithSticker(ids["webm"], "💻", "MrRibbit"), mynah.Media{Kind: mynah.MediaSticker, MimeType: "video/webm", Emoji: "💻", SetName: "MrRibbit", Width: 512, Height: 512}},
		{"tgs", telegramtest.WithSticker(ids["tgs"], "🎉", "MrRibbit"), mynah.Media{Kind: mynah.MediaSticker, MimeType: "application/x-tgsticker", Emoji: "🎉", SetName: "MrRibbit", Width: 512, Height: 512}},
	}
	for _, o := range opts {
		emu.SendPrivate(anna, "", o.opt)
	}
	msgs := receive(t, b, len(opts))
	for i, o := range opts {
		t.Run(o.name, func(t *testing.T) {
			if len(msgs[i].Media) != 1 {
				t.Fatalf("media = %+v, want one", msgs[i].Media)
			}
			got := msgs[i].Media[0]
			data, err := b.Download(t.Context(), got.FileID, 0)
			if err != nil {
				t.Fatalf("Download = %v", err)
			}
			if o.name == "photo" {
				cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
				if err != nil || cfg.Width != 1280 || cfg.Height != 960 {
					t.Errorf("the photo downloads as %d×%d (%v), want the 1280×960 size", cfg.Width, cfg.Height, err)
				}
			} else if !bytes.Equal(data, files[o.name]) {
				t.Errorf("downloaded %d bytes, not the %d sent", len(data), len(files[o.name]))
			}
			if got.Size != int64(len(data)) {
				t.Errorf("Size = %d, want the %d bytes downloaded", got.Size, len(data))
			}
			if got.FileID == "" || got.FileUniqueID == "" {
				t.Errorf("media without ids: %+v", got)
			}
			got.FileID, got.FileUniqueID, got.Size = "", "", 0
			if diff := cmp.Diff(got, o.want); diff != "" {
				t.Errorf("media (-got +want):\n%s", diff)
			}
		})
	}
	if n := emu.FileDownloads(); n != len(opts) {
		t.Errorf("%d downloads, want %d", n, len(opts))
	}
}

// TestDownloadTooBig: a file over the limit is refused before a byte of it is fetched,
// whether Telegram refuses it (over 20 MB) or getFile's size exceeds the caller's limit;
// a file longer than getFile said is cut off at the limit.
func TestDownloadTooBig(t *testing.T) {
	emu, b := emulatorBot(t)
	huge, _ := emu.AddFileSized([]byte("pretend 25 MB"), telegramtest.KindVideo, 25<<20)
	almost, _ := emu.AddFileSized([]byte("pretend 19.9 MB"), telegramtest.KindVideo, 19_900_000)
	liar, _ := emu.AddFileSized(bytes.Repeat([]byte("x"), 5000), telegramtest.KindDocument, 100)

	for _, c := range []struct {
		name   string
		fileID string
		limit  int64
	}{
		{"telegram refuses 25 MB", huge, 0},
		{"telegram refuses even under a larger limit", huge, 50 << 20},
		{"19.9 MB over a 10 MB limit", almost, 10 << 20},
		{"longer than getFile said", liar, 1000},
	} {
		_, err := b.Download(t.Context(), c.fileID, c.limit)
		if !errors.Is(err, mynah.ErrFileTooBig) {
			t.Errorf("%s: Download = %v, want mynah.ErrFileTooBig", c.name, err)
		}
		if err != nil && strings.Contains(err.Error(), emuToken) {
			t.Errorf("%s: error leaks the token: %v", c.name, err)
		}
	}
	if n := emu.FileDownloads(); n != 1 {
		t.Errorf("%d downloads, want only the one that turned out too long", n)
	}
	data, err := b.Download(t.Context(), almost, 0)
	if err != nil || string(data) != "pretend 19.9 MB" {
		t.Errorf("19.9 MB under the 20 MB limit: %q, %v", data, err)
	}
	if _, err := b.Download(t.Context(), "no-such-file", 0); err == nil || errors.Is(err, mynah.ErrFileTooBig) {
		t.Errorf("unknown file: %v, want Telegram's refusal", err)
	}
}

// TestStickerSetMedia: a set's stickers carry what the describer and the catalogue need.
func TestStickerSetMedia(t *testing.T) {
	emu, b := emulatorBot(t)
	set := emu.AddStickerSetFiles("MrRibbit", "Mr Ribbit",
		telegramtest.StickerFile{Emoji: "🐸", Data: testmedia.WEBP()},
		telegramtest.StickerFile{Emoji: "💻", Data: testmedia.WEBM()},
		telegramtest.StickerFile{Emoji: "🎉", Data: testmedia.TGS("party")})
	got, err := b.StickerSet(t.Context(), "mrribbit")
	if err != nil {
		t.Fatal(err)
	}
	var want []mynah.Media
	for i, mime := range []string{"image/webp", "video/webm", "application/x-tgsticker"} {
		st := set.Stickers[i]
		want = append(want, mynah.Media{Kind: mynah.MediaSticker, FileID: st.FileID, FileUniqueID: st.FileUniqueID,
			MimeType: mime, Emoji: st.Emoji, SetName: "MrRibbit", Width: 512, Height: 512, Size: int64(st.FileSize)})
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("StickerSet (-got +want):\n%s", diff)
	}
	data, err := b.Download(t.Context(), got[2].FileID, 0)
	if err != nil || !bytes.Equal(data, testmedia.TGS("party")) {
		t.Errorf("the TGS sticker downloads as %d bytes, %v", len(data), err)
	}
}
