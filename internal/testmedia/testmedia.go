// Package testmedia makes the media files tests send through the emulator and the
// describers: a PNG, a PDF and a TGS are generated; a WEBP, an OGG/Opus voice note, a
// WEBM video sticker and an MP4 clip were made once with ffmpeg and espeak-ng (see
// testdata/README.md) and are a few kilobytes each.
package testmedia

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	_ "embed"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
)

var (
	//go:embed testdata/sticker.webp
	webp []byte
	//go:embed testdata/voice.ogg
	voice []byte
	//go:embed testdata/sticker.webm
	webm []byte
	//go:embed testdata/clip.mp4
	mp4 []byte
)

// VoiceWords is what the voice note of Voice says.
const VoiceWords = "can you remind me about the dentist on Friday"

// WEBP returns a 64×64 static sticker image.
func WEBP() []byte { return bytes.Clone(webp) }

// Voice returns a 3-second OGG/Opus voice note saying VoiceWords.
func Voice() []byte { return bytes.Clone(voice) }

// WEBM returns a one-second VP9 video sticker.
func WEBM() []byte { return bytes.Clone(webm) }

// MP4 returns a one-second H.264 clip (an animation or a video).
func MP4() []byte { return bytes.Clone(mp4) }

// PNG returns a w×h image filled with c; different colours make different files (and so
// different file_unique_ids in the emulator).
func PNG(w, h int, c color.RGBA) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // encoding an in-memory RGBA image cannot fail
	}
	return b.Bytes()
}

// NthPNG returns a small PNG distinct for each n (for bursts of different photos).
func NthPNG(n int) []byte {
	return PNG(16, 16, color.RGBA{R: uint8(n), G: uint8(n >> 8), B: uint8(n >> 16), A: 255})
}

// TGS returns an animated sticker: gzipped Lottie JSON with the given name, 512×512, 60
// frames at 30 fps.
func TGS(name string) []byte {
	lottie := fmt.Sprintf(`{"tgs":1,"v":"5.5.2","fr":30,"ip":0,"op":60,"w":512,"h":512,"nm":%q,"ddd":0,"assets":[],"layers":[{"ddd":0,"ind":1,"ty":4,"nm":"circle","sr":1,"ks":{},"shapes":[]}]}`, name)
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(lottie))
	zw.Close()
	return b.Bytes()
}

// PDF returns a one-page-per-entry PDF whose pages show the given lines of text (ASCII),
// with a correct cross-reference table, as a PDF library expects.
func PDF(pages ...string) []byte {
	var objs []string
	n := len(pages)
	// 1: catalog, 2: pages, 3: font, then per page: page object, content stream.
	kids := make([]string, n)
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	objs = append(objs,
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, text := range pages {
		var content strings.Builder
		content.WriteString("BT /F1 12 Tf 72 720 Td 14 TL\n")
		for _, line := range strings.Split(text, "\n") {
			r := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`)
			fmt.Fprintf(&content, "(%s) Tj T*\n", r.Replace(line))
		}
		content.WriteString("ET")
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()))
	}
	return PDFObjects(objs...)
}

// PDFObjects returns a PDF of the given objects, numbered from 1 (the first must be the
// catalog), with a correct cross-reference table: for tests of damaged or hostile PDFs.
func PDFObjects(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// PDFBomb returns a valid one-page PDF whose content stream inflates from a few
// kilobytes to about inflated bytes.
func PDFBomb(inflated int) []byte {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	line := []byte("BT /F1 12 Tf 72 720 Td (bomb) Tj ET\n")
	for range inflated / len(line) {
		zw.Write(line)
	}
	zw.Close()
	return PDFObjects(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n", z.Len())+z.String()+"\nendstream",
	)
}
