package media

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// maxLottie caps an animated sticker's unzipped JSON: Telegram allows 64 KB zipped, and a
// small file that unzips to gigabytes is a bomb.
const maxLottie = 4 << 20

// lottie describes an animated sticker (TGS: gzipped Lottie JSON) from its metadata, with
// no model call: its name, size and duration. Telegram's set name and emoji are shown
// beside the description by the prompt. A TGS that is not gzip, or not Lottie inside, is
// unsupported.
func lottie(data []byte) (string, error) {
	if !isGzip(data) {
		return "", unsupported("could not be read: an animated sticker that is not gzipped Lottie")
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return "", unsupported("could not be read: " + err.Error())
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxLottie+1))
	switch {
	case err != nil:
		return "", unsupported("could not be read: " + err.Error())
	case len(raw) > maxLottie:
		return "", unsupported("could not be read: the animation unzips to more than 4 MB")
	}
	var l struct {
		Name   string  `json:"nm"`
		Width  float64 `json:"w"`
		Height float64 `json:"h"`
		Rate   float64 `json:"fr"`
		In     float64 `json:"ip"`
		Out    float64 `json:"op"`
	}
	if err := json.Unmarshal(raw, &l); err != nil || l.Rate <= 0 || l.Out <= l.In {
		return "", unsupported("could not be read: not a Lottie animation")
	}
	var b strings.Builder
	b.WriteString("an animated sticker")
	if name := oneLine(l.Name, 60); name != "" {
		b.WriteString(" named " + strconv.Quote(name))
	}
	fmt.Fprintf(&b, " (%s s", strconv.FormatFloat(math.Round((l.Out-l.In)/l.Rate*10)/10, 'f', -1, 64))
	if l.Width > 0 && l.Height > 0 {
		fmt.Fprintf(&b, ", %d×%d", int(l.Width), int(l.Height))
	}
	b.WriteString(")")
	return b.String(), nil
}
