package media

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

const (
	// ffmpegTimeout bounds one ffmpeg run; maxFFmpegOutput what it may write.
	ffmpegTimeout   = 60 * time.Second
	maxFFmpegOutput = 16 << 20
	// videoFrames is how many frames describe a video.
	videoFrames = 3
)

// hasFFmpeg reports whether ffmpeg is on PATH, looking once. Without it, video stickers,
// animations and videos keep their placeholders (set and emoji, duration): said once in
// the log, the first time it matters.
func (e *Engine) hasFFmpeg() bool {
	e.ffmpegOnce.Do(func() {
		if p, err := exec.LookPath("ffmpeg"); err == nil {
			e.ffmpeg = p
		}
	})
	if e.ffmpeg == "" {
		e.noFFmpeg.Do(func() {
			e.log.Warn("media: ffmpeg is not on PATH: video stickers, animations, videos and video notes are not " +
				"decoded and keep their placeholders (set, emoji, duration); install ffmpeg to describe them")
		})
	}
	return e.ffmpeg != ""
}

// useFFmpeg makes the engine use the ffmpeg at path ("" for none) instead of looking on
// PATH; it takes effect only before the first look.
func (e *Engine) useFFmpeg(path string) { e.ffmpegOnce.Do(func() { e.ffmpeg = path }) }

// ffmpeg runs ffmpeg on data (written to a temporary file, removed on return: MP4 files
// whose index is at the end cannot be read from a pipe) with args, and returns what it
// wrote to standard output. No shell is involved; the run is killed after ffmpegTimeout.
func (e *Engine) runFFmpeg(ctx context.Context, data []byte, args ...string) ([]byte, error) {
	if !e.hasFFmpeg() {
		return nil, errSkip
	}
	in, err := os.CreateTemp("", "mynah-media-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(in.Name())
	if _, err := in.Write(data); err != nil {
		in.Close()
		return nil, err
	}
	if err := in.Close(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, ffmpegTimeout)
	defer cancel()
	full := append([]string{"-hide_banner", "-loglevel", "error", "-nostdin", "-i", in.Name()}, args...)
	cmd := exec.CommandContext(ctx, e.ffmpeg, append(full, "pipe:1")...)
	var out, stderr capped
	out.max, stderr.max = maxFFmpegOutput, 2048
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err = cmd.Run()
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, unsupported("could not be read: ffmpeg took too long")
	case err != nil:
		return nil, unsupported("could not be read: ffmpeg: " + firstLine(stderr.String()))
	case out.over:
		return nil, unsupported("could not be read: ffmpeg wrote too much")
	}
	return out.Bytes(), nil
}

// frames returns frames of the video, animation or video sticker md as PNG images: one,
// or for a video several taken across it.
func (e *Engine) frames(ctx context.Context, md mynah.Media, data []byte) ([]llm.Blob, error) {
	scale := "scale='min(768,iw)':-2"
	args := []string{"-vf", scale, "-frames:v", "1"}
	if md.Kind == mynah.MediaVideo && md.Duration >= 2 {
		args = []string{"-vf", fmt.Sprintf("fps=%d/%d,%s", videoFrames, md.Duration, scale),
			"-frames:v", fmt.Sprint(videoFrames)}
	}
	out, err := e.runFFmpeg(ctx, data, append(args, "-an", "-f", "image2pipe", "-c:v", "png")...)
	if err != nil {
		return nil, err
	}
	pngs := splitPNGs(out)
	if len(pngs) == 0 {
		return nil, unsupported("could not be read: no frame")
	}
	frames := make([]llm.Blob, len(pngs))
	for i, p := range pngs {
		frames[i] = llm.Blob{MIME: "image/png", Data: p}
	}
	return frames, nil
}

// extractAudio returns the sound of a video as OGG/Opus, for the transcriber.
func (e *Engine) extractAudio(ctx context.Context, data []byte) ([]byte, error) {
	return e.runFFmpeg(ctx, data, "-vn", "-ac", "1", "-c:a", "libopus", "-b:a", "32k", "-f", "ogg")
}

// splitPNGs splits concatenated PNG files (ffmpeg's image2pipe) by walking their chunks
// to each IEND.
func splitPNGs(b []byte) [][]byte {
	sig := []byte("\x89PNG\r\n\x1a\n")
	var out [][]byte
	for bytes.HasPrefix(b, sig) {
		i := len(sig)
		for {
			if i+12 > len(b) {
				return out
			}
			n := int(binary.BigEndian.Uint32(b[i:]))
			typ := string(b[i+4 : i+8])
			if n < 0 || i+12+n > len(b) {
				return out
			}
			i += 12 + n
			if typ == "IEND" {
				break
			}
		}
		out = append(out, b[:i])
		b = b[i:]
	}
	return out
}

// capped is a buffer that keeps at most max bytes and notes that more came.
type capped struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); len(p) > room {
		c.over = true
		c.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return oneLine(s, 200)
}
