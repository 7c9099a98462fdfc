package testmedia

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"image/color"
	"image/png"
	"io"
	"strings"
	"testing"
)

func TestFixturesAreWhatTheyClaim(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(PNG(4, 3, color.RGBA{R: 9, A: 255})))
	if err != nil || img.Bounds().Dx() != 4 || img.Bounds().Dy() != 3 {
		t.Fatalf("PNG: %v %v", img, err)
	}
	if bytes.Equal(NthPNG(1), NthPNG(2)) {
		t.Error("NthPNG(1) and NthPNG(2) are the same file")
	}
	if w := WEBP(); string(w[:4]) != "RIFF" || string(w[8:12]) != "WEBP" {
		t.Errorf("WEBP header %q", w[:12])
	}
	if v := Voice(); string(v[:4]) != "OggS" || !bytes.Contains(v[:200], []byte("OpusHead")) {
		t.Error("Voice is not OGG/Opus")
	}
	if w := WEBM(); !bytes.HasPrefix(w, []byte{0x1a, 0x45, 0xdf, 0xa3}) {
		t.Error("WEBM is not Matroska")
	}
	if m := MP4(); string(m[4:8]) != "ftyp" {
		t.Error("MP4 has no ftyp box")
	}
	zr, err := gzip.NewReader(bytes.NewReader(TGS("frog")))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(zr)
	var lottie struct{ Nm string }
	if err := json.Unmarshal(raw, &lottie); err != nil || lottie.Nm != "frog" {
		t.Errorf("TGS: %s %v", raw, err)
	}
	pdf := string(PDF("Quarterly report", "Revenue grew (a lot)"))
	if !strings.HasPrefix(pdf, "%PDF-1.4") || !strings.Contains(pdf, `(Revenue grew \(a lot\)) Tj`) || !strings.HasSuffix(pdf, "%%EOF\n") {
		t.Errorf("PDF:\n%s", pdf)
	}
}
