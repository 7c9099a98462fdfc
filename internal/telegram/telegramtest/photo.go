package telegramtest

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/draw"
	_ "image/gif" // photos may be GIF, JPEG or PNG
	_ "image/jpeg"
	"image/png"
)

// photoBoxes are the sides of the boxes the official server scales photos
// into (its s, m, x, y and w sizes).
var photoBoxes = []int{90, 320, 800, 1280, 2560}

// maxScaledPixels bounds the images the emulator decodes to make smaller
// sizes; a larger one (or a decompression bomb) is offered only as itself.
const maxScaledPixels = 40_000_000

// photoSizesLocked returns the sizes f is offered in as a photo, smallest
// first, as the official server makes them: when f is a decodable image
// (GIF, JPEG, PNG), a copy scaled into each of photoBoxes smaller than the
// image, each a stored file of its own, then f itself with its real
// dimensions; otherwise f alone, said to be 1280×960. The sizes are made
// once per file, so a photo sent again keeps its file ids. The caller holds
// s.mu.
func (s *Server) photoSizesLocked(f *storedFile) []PhotoSize {
	if f.photo == nil {
		f.photo = s.scaleLocked(f)
	}
	out := make([]PhotoSize, len(f.photo))
	for i, p := range f.photo {
		out[i] = PhotoSize{FileID: p.f.id, FileUniqueID: p.f.uniqueID, Width: p.w, Height: p.h, FileSize: p.f.fileSize()}
	}
	return out
}

func (s *Server) scaleLocked(f *storedFile) []photoSize {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(f.data))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return []photoSize{{f: f, w: 1280, h: 960}}
	}
	self := photoSize{f: f, w: cfg.Width, h: cfg.Height}
	long := max(cfg.Width, cfg.Height)
	if long <= photoBoxes[0] || cfg.Width*cfg.Height > maxScaledPixels {
		return []photoSize{self}
	}
	img, _, err := image.Decode(bytes.NewReader(f.data))
	if err != nil {
		return []photoSize{self}
	}
	var out []photoSize
	for _, box := range photoBoxes {
		if box >= long {
			break
		}
		w, h := max(1, cfg.Width*box/long), max(1, cfg.Height*box/long)
		var b bytes.Buffer
		if png.Encode(&b, scale(img, w, h)) != nil {
			continue
		}
		out = append(out, photoSize{f: s.addFileLocked(b.Bytes(), KindPhoto, ""), w: w, h: h})
	}
	return append(out, self)
}

// scale resizes img to w×h by nearest neighbour: crude, but real pixels of
// the right size.
func scale(img image.Image, w, h int) image.Image {
	src, ok := img.(*image.RGBA)
	if !ok { // draw converts the decoders' types quickly
		src = image.NewRGBA(img.Bounds())
		draw.Draw(src, src.Rect, img, img.Bounds().Min, draw.Src)
	}
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		row := src.Pix[(y*sh/h)*src.Stride:]
		out := dst.Pix[y*dst.Stride:]
		for x := range w {
			copy(out[4*x:4*x+4], row[4*(x*sw/w):])
		}
	}
	return dst
}

// mp4Info reads an MP4's duration in whole seconds (rounded up; from mvhd)
// and the size of its first track with one (from tkhd). ok is false when b
// is not an MP4 with a movie header.
func mp4Info(b []byte) (w, h, seconds int, ok bool) {
	moov, found := mp4Box(b, "moov")
	if !found {
		return 0, 0, 0, false
	}
	mvhd, found := mp4Box(moov, "mvhd")
	if !found || len(mvhd) < 4 {
		return 0, 0, 0, false
	}
	var timescale, dur uint64
	switch mvhd[0] { // version
	case 0:
		if len(mvhd) < 20 {
			return 0, 0, 0, false
		}
		timescale, dur = uint64(binary.BigEndian.Uint32(mvhd[12:])), uint64(binary.BigEndian.Uint32(mvhd[16:]))
	case 1:
		if len(mvhd) < 32 {
			return 0, 0, 0, false
		}
		timescale, dur = uint64(binary.BigEndian.Uint32(mvhd[20:])), binary.BigEndian.Uint64(mvhd[24:])
	default:
		return 0, 0, 0, false
	}
	if timescale > 0 {
		seconds = int((dur + timescale - 1) / timescale)
	}
	for rest := moov; ; {
		trak, after, found := mp4Next(rest, "trak")
		if !found {
			break
		}
		rest = after
		tkhd, found := mp4Box(trak, "tkhd")
		if !found || len(tkhd) < 4 {
			continue
		}
		off := 76 // version 0: the 16.16 width after times, ids, layer, volume and matrix
		if tkhd[0] == 1 {
			off = 88
		}
		if len(tkhd) < off+8 {
			continue
		}
		w, h = int(binary.BigEndian.Uint32(tkhd[off:])>>16), int(binary.BigEndian.Uint32(tkhd[off+4:])>>16)
		if w > 0 && h > 0 {
			break
		}
	}
	return w, h, seconds, true
}

// mp4Box returns the payload of the first box of type typ among the boxes
// in b.
func mp4Box(b []byte, typ string) ([]byte, bool) {
	body, _, ok := mp4Next(b, typ)
	return body, ok
}

// mp4Next finds the first box of type typ in b and returns its payload and
// the boxes after it.
func mp4Next(b []byte, typ string) (body, rest []byte, ok bool) {
	for len(b) >= 8 {
		size, header := uint64(binary.BigEndian.Uint32(b)), uint64(8)
		switch size {
		case 0:
			size = uint64(len(b))
		case 1:
			if len(b) < 16 {
				return nil, nil, false
			}
			size, header = binary.BigEndian.Uint64(b[8:]), 16
		}
		if size < header || size > uint64(len(b)) {
			return nil, nil, false
		}
		if string(b[4:8]) == typ {
			return b[header:size], b[size:], true
		}
		b = b[size:]
	}
	return nil, nil, false
}
