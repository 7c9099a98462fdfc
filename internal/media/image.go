package media

import (
	"bytes"
	"image"
	_ "image/gif" // registers GIF with image.Decode
	"image/jpeg"
	_ "image/png" // registers PNG with image.Decode

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // registers WEBP (static stickers) with image.Decode

	"github.com/mynah-ai/mynah/internal/llm"
)

const (
	// maxPixels refuses images whose size alone would exhaust memory once decoded (a
	// 100,000×100,000 PNG is a few kilobytes).
	maxPixels = 50_000_000
	// An image over maxSide pixels or maxImageBytes is scaled down to fitSide before a
	// model sees it: providers refuse big ones, and see no more detail in them.
	maxSide, fitSide = 2048, 1568
	maxImageBytes    = 4 << 20
)

// checkImage reads data's header and returns it as an image a model takes: as it is, or
// scaled down when large. A file that is no image mynah reads is unsupported.
func checkImage(data []byte) (llm.Blob, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	switch {
	case err != nil:
		return llm.Blob{}, unsupported("could not be read")
	case cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxPixels:
		return llm.Blob{}, unsupported("could not be read: the image is too large")
	}
	mime := "image/" + format
	if cfg.Width <= maxSide && cfg.Height <= maxSide && len(data) <= maxImageBytes {
		return llm.Blob{MIME: mime, Data: data}, nil
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return llm.Blob{}, unsupported("could not be read")
	}
	return scaled(img), nil
}

// scaled is img fitted in fitSide×fitSide, as a JPEG.
func scaled(img image.Image) llm.Blob {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w > fitSide || h > fitSide {
		if w >= h {
			w, h = fitSide, max(1, h*fitSide/w)
		} else {
			w, h = max(1, w*fitSide/h), fitSide
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	var out bytes.Buffer
	_ = jpeg.Encode(&out, dst, &jpeg.Options{Quality: 85}) // writing to memory cannot fail
	return llm.Blob{MIME: "image/jpeg", Data: out.Bytes()}
}
