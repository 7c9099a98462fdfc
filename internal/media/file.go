package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"path/filepath"
	"strings"

	"github.com/mynah-ai/mynah"
)

// DescribeFile runs the chain on a local file, as agent would read it if it were sent
// (for `mynah media describe FILE`): by its name's extension and first bytes, an image
// is described, a video's frames too, speech transcribed, a document's text extracted.
// It spends no budget and caches nothing. The note says what came of it; a file mynah
// cannot read is a note with Status MediaUnsupported, not an error. The error is an
// unknown agent, a kind the agent has nothing to read with (no describer, transcriber or
// ffmpeg), or the failure of the describer or transcriber.
func (e *Engine) DescribeFile(ctx context.Context, agent, name string, data []byte) (mynah.MediaNote, error) {
	a := e.agent(agent)
	if a == nil {
		return mynah.MediaNote{}, fmt.Errorf("media: no agent %q", agent)
	}
	md := fileMedia(name, data)
	n := mynah.MediaNote{Kind: md.Kind}
	if len(data) == 0 {
		n.Status, n.Problem = mynah.MediaUnsupported, "the file is empty"
		return n, nil
	}
	desc, source, err := e.read(ctx, a, md, data)
	var u unsupported
	switch {
	case errors.As(err, &u):
		n.Status, n.Problem = mynah.MediaUnsupported, u.Error()
		return n, nil
	case errors.Is(err, errSkip):
		return n, fmt.Errorf("media: %s cannot read %s: %s", agent, name, lacking(e, a, route(md, data)))
	case err != nil:
		return n, fmt.Errorf("media: describing %s: %w", name, err)
	}
	n.Status, n.Description, n.Source = mynah.MediaDescribed, desc, source
	return n, nil
}

// lacking says what a lacks to read by h.
func lacking(e *Engine, a *agent, h how) string {
	switch {
	case h == readNone:
		return "a kind of file mynah does not read"
	case h == readSpeech:
		return "no transcriber is configured (media.transcribe)"
	case h == readFrames && !e.hasFFmpeg():
		return "ffmpeg is not installed"
	case a.Describer == nil:
		return "no describer model is configured"
	}
	return "nothing to read it with"
}

// fileMedia is how a local file would arrive: its kind by extension and first bytes.
func fileMedia(name string, data []byte) mynah.Media {
	ext := strings.ToLower(filepath.Ext(name))
	mt := mime.TypeByExtension(ext)
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = mt[:i]
	}
	md := mynah.Media{Kind: mynah.MediaDocument, FileName: filepath.Base(name), MimeType: mt, Size: int64(len(data))}
	switch {
	case ext == ".tgs" || isGzip(data) && ext != ".gz":
		md.Kind, md.MimeType = mynah.MediaSticker, "application/x-tgsticker"
	case ext == ".webp":
		md.Kind, md.MimeType = mynah.MediaSticker, "image/webp"
	case ext == ".webm" || isWebM(data):
		md.Kind, md.MimeType = mynah.MediaSticker, "video/webm"
	case ext == ".jpg" || ext == ".jpeg" || ext == ".png":
		md.Kind = mynah.MediaPhoto
	case ext == ".gif":
		md.Kind = mynah.MediaAnimation
	case strings.HasPrefix(mt, "video/"):
		md.Kind = mynah.MediaVideo
	case ext == ".ogg" || ext == ".oga" || ext == ".opus" || bytes.HasPrefix(data, []byte("OggS")):
		md.Kind, md.MimeType = mynah.MediaVoice, "audio/ogg"
	case strings.HasPrefix(mt, "audio/"):
		md.Kind = mynah.MediaAudio
	}
	return md
}
