package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"rsc.io/pdf"
)

// A PDF is read within caps, so that a PDF bomb (a stream that inflates to gigabytes, a
// million pages, a page tree that loops) costs a bounded time and memory: at most
// maxPDFPages pages, maxPDFInflated bytes of content streams and fonts' Unicode maps
// inflated in all, pdfTimeout, and maxText of text.
const (
	maxPDFPages    = 50
	maxPDFInflated = 8 << 20
	pdfTimeout     = 20 * time.Second
	maxPDFNodes    = 4 * maxPDFPages // page tree nodes visited
	maxPDFDepth    = 32
)

// errPDFStop stops the reading of a PDF from inside the library's interpreter.
var errPDFStop = errors.New("stop")

// pdfText returns the text of a PDF document (rsc.io/pdf parses the file, inflates its
// streams and runs their operators; the text operators and the fonts' Unicode maps are
// read here, see fontDecoder). A file
// that is not a PDF, is encrypted, damaged or a bomb, or has no text layer (a scan) is
// unsupported.
func pdfText(ctx context.Context, data []byte) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, pdfTimeout)
	defer cancel()
	var stop atomic.Bool // set when ctx ends: the reader checks it between operators
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		text, err := extractPDF(data, &stop)
		done <- result{text, err}
	}()
	select {
	case r := <-done:
		return r.text, r.err
	case <-ctx.Done():
		stop.Store(true)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", unsupported("could not be read: the PDF took too long to read")
		}
		return "", ctx.Err()
	}
}

// extractPDF reads the text of data's first maxPDFPages pages until stop is set. The
// library reports damage by panicking: a panic is a file that could not be read.
func extractPDF(data []byte, stop *atomic.Bool) (text string, err error) {
	defer func() {
		if p := recover(); p != nil {
			text, err = "", unsupported(fmt.Sprintf("could not be read: a damaged PDF (%v)", p))
		}
	}()
	if bytes.HasPrefix(data, []byte("%PDF-2.")) { // the library knows versions up to 1.7; 2.0 reads alike
		data = append([]byte("%PDF-1.7"), data[len("%PDF-2.0"):]...)
	}
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", unsupported("could not be read: " + err.Error())
	}
	x := &pdfExtract{stop: stop, left: maxPDFInflated, decoders: map[string]func(string) string{}}
	for _, page := range pdfPages(r.Trailer().Key("Root").Key("Pages")) {
		if err := x.page(page); err != nil {
			return "", err
		}
		if x.b.Len() >= maxText || stop.Load() {
			break
		}
		x.b.WriteString("\n\n")
	}
	t := strings.TrimSpace(collapseBlankLines(x.b.String()))
	if t == "" {
		return "", unsupported("the PDF has no text layer (a scan?)")
	}
	return capText(t), nil
}

// pdfPages walks the page tree from root, depth first, to at most maxPDFPages pages,
// visiting at most maxPDFNodes nodes and maxPDFDepth levels: a tree that loops ends.
func pdfPages(root pdf.Value) []pdf.Value {
	var out []pdf.Value
	visited := 0
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		if len(out) >= maxPDFPages || visited >= maxPDFNodes || depth > maxPDFDepth {
			return
		}
		visited++
		if v.Key("Type").Name() == "Page" {
			out = append(out, v)
			return
		}
		kids := v.Key("Kids")
		for i := 0; i < kids.Len() && len(out) < maxPDFPages; i++ {
			walk(kids.Index(i), depth+1)
		}
	}
	walk(root, 0)
	return out
}

// pdfExtract collects the text of pages.
type pdfExtract struct {
	b        strings.Builder
	stop     *atomic.Bool
	left     int64                          // inflated bytes still allowed
	decoders map[string]func(string) string // by resource name and base font: fonts recur on every page
}

// inherited is the page's key, or its nearest ancestor's (Resources are inherited).
func inherited(page pdf.Value, key string) pdf.Value {
	v := page
	for range maxPDFDepth {
		if v.IsNull() {
			break
		}
		if r := v.Key(key); !r.IsNull() {
			return r
		}
		v = v.Key("Parent")
	}
	return pdf.Value{}
}

// spend inflates strm to count its bytes against the cap, before the interpreter reads
// it: a stream that inflates past what is left is a bomb.
func (x *pdfExtract) spend(strm pdf.Value) error {
	if strm.Kind() != pdf.Stream {
		return nil
	}
	n, err := io.Copy(io.Discard, io.LimitReader(strm.Reader(), x.left+1))
	if err != nil {
		return unsupported("could not be read: " + err.Error())
	}
	if n > x.left {
		return unsupported(fmt.Sprintf("could not be read: the PDF inflates past %d MB (a PDF bomb?)", maxPDFInflated>>20))
	}
	x.left -= n
	return nil
}

// page appends the text of one page.
func (x *pdfExtract) page(page pdf.Value) error {
	fonts := inherited(page, "Resources").Key("Font")
	var streams []pdf.Value
	switch c := page.Key("Contents"); c.Kind() {
	case pdf.Stream:
		streams = append(streams, c)
	case pdf.Array:
		for i := 0; i < c.Len() && i < 256; i++ {
			streams = append(streams, c.Index(i))
		}
	}
	for _, s := range streams {
		if err := x.spend(s); err != nil {
			return err
		}
	}
	dec := latin1
	var fontErr error
	show := func(s string) {
		if dec != nil {
			x.b.WriteString(dec(s))
		}
	}
	for _, s := range streams {
		if s.Kind() != pdf.Stream {
			continue
		}
		func() {
			defer func() { // an operator the interpreter cannot read ends this stream, not the file
				if p := recover(); p != nil && p != errPDFStop {
					x.b.WriteString("\n")
				}
			}()
			pdf.Interpret(s, func(stk *pdf.Stack, op string) {
				if x.stop.Load() || x.b.Len() >= maxText {
					panic(errPDFStop)
				}
				n := stk.Len()
				args := make([]pdf.Value, n)
				for i := n - 1; i >= 0; i-- {
					args[i] = stk.Pop()
				}
				switch op {
				case "Tf":
					if n < 2 {
						return
					}
					f := fonts.Key(args[0].Name())
					key := args[0].Name() + "\x00" + f.Key("BaseFont").Name()
					d, ok := x.decoders[key]
					if !ok {
						if err := x.spend(f.Key("ToUnicode")); err != nil {
							fontErr = err
							panic(errPDFStop)
						}
						d = fontDecoder(f)
						x.decoders[key] = d
					}
					dec = d
				case "Tj":
					if n >= 1 {
						show(args[n-1].RawString())
					}
				case "'", `"`:
					x.b.WriteString("\n")
					if n >= 1 {
						show(args[n-1].RawString())
					}
				case "TJ":
					if n < 1 {
						return
					}
					a := args[n-1]
					for i := 0; i < a.Len(); i++ {
						v := a.Index(i)
						if v.Kind() == pdf.String {
							show(v.RawString())
						} else if v.Float64() < -200 { // a gap wider than a space
							x.b.WriteString(" ")
						}
					}
				case "T*", "ET":
					x.b.WriteString("\n")
				case "Td", "TD":
					if n >= 2 && args[1].Float64() != 0 {
						x.b.WriteString("\n")
					} else {
						x.b.WriteString(" ")
					}
				}
			})
		}()
		if fontErr != nil {
			return fontErr
		}
	}
	return nil
}

// collapseBlankLines trims each line and keeps at most one blank line in a row.
func collapseBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
