package media

import (
	"strings"
	"unicode/utf16"

	"rsc.io/pdf"
)

// maxCMapEntries caps the mappings read from one font's ToUnicode map.
const maxCMapEntries = 1 << 16

// fontDecoder returns how the text strings shown with font f read as Unicode: through
// its ToUnicode map when it has one (the fonts most PDFs use today, Identity-H composite
// fonts included, have one), else its single-byte encoding; nil when the codes of f mean
// nothing readable (a composite font without a map).
//
// rsc.io/pdf parses the file, inflates the streams and runs the PostScript of the maps;
// it reads single-byte encodings, but neither looks for a ToUnicode map in a stream nor
// reads two-byte codes, so the maps are read here.
func fontDecoder(f pdf.Value) func(string) string {
	if tu := f.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		if m := readToUnicode(tu, f); m != nil {
			return m.decode
		}
	}
	enc := f.Key("Encoding")
	switch {
	case f.Key("Subtype").Name() == "Type0" || enc.Name() == "Identity-H" || enc.Name() == "Identity-V":
		return nil
	case enc.Name() == "WinAnsiEncoding", enc.Name() == "MacRomanEncoding", enc.Kind() == pdf.Dict:
		return pdf.Font{V: f}.Encoder().Decode
	}
	return latin1 // StandardEncoding, the font's built-in one: ASCII reads as itself
}

func latin1(raw string) string {
	r := make([]rune, len(raw))
	for i := 0; i < len(raw); i++ {
		r[i] = rune(raw[i])
	}
	return string(r)
}

// toUnicode is a font's ToUnicode map: its code space (which byte lengths codes have)
// and what each code reads as.
type toUnicode struct {
	lengths [5]bool // code lengths in bytes, 1 to 4
	chars   map[uint32]string
	ranges  []unicodeRange
}

type unicodeRange struct {
	lo, hi uint32
	n      int      // code length
	base   []uint16 // UTF-16 of lo; the last unit grows with the code
	each   []string // or, from an array, one text per code
}

func codeOf(s string) uint32 {
	var c uint32
	for i := 0; i < len(s) && i < 4; i++ {
		c = c<<8 | uint32(s[i])
	}
	return c
}

func utf16Text(s string) []uint16 {
	u := make([]uint16, len(s)/2)
	for i := range u {
		u[i] = uint16(s[2*i])<<8 | uint16(s[2*i+1])
	}
	return u
}

// readToUnicode reads the map in strm (font is any dictionary, pushed where the map's
// PostScript asks for a resource). A map that cannot be read is nil.
func readToUnicode(strm, font pdf.Value) (m *toUnicode) {
	defer func() {
		if recover() != nil {
			m = nil
		}
	}()
	m = &toUnicode{chars: map[uint32]string{}}
	entries := 0
	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		switch op {
		case "findresource":
			stk.Pop()
			stk.Pop()
			stk.Push(font) // a dictionary to begin; the map's own definitions go in the next
		case "defineresource":
			stk.Pop()
			v := stk.Pop()
			stk.Pop()
			stk.Push(v)
		case "endcodespacerange":
			for stk.Len() >= 2 {
				hi, lo := stk.Pop().RawString(), stk.Pop().RawString()
				if n := len(lo); n >= 1 && n <= 4 && len(hi) == n {
					m.lengths[n] = true
				}
			}
		case "endbfchar":
			for stk.Len() >= 2 && entries < maxCMapEntries {
				dst, src := stk.Pop(), stk.Pop().RawString()
				m.chars[codeOf(src)] = string(utf16.Decode(utf16Text(dst.RawString())))
				entries++
			}
		case "endbfrange":
			for stk.Len() >= 3 && entries < maxCMapEntries {
				dst, hi, lo := stk.Pop(), stk.Pop().RawString(), stk.Pop().RawString()
				r := unicodeRange{lo: codeOf(lo), hi: codeOf(hi), n: len(lo)}
				if dst.Kind() == pdf.Array {
					for i := 0; i < dst.Len() && i < maxCMapEntries; i++ {
						r.each = append(r.each, string(utf16.Decode(utf16Text(dst.Index(i).RawString()))))
					}
				} else {
					r.base = utf16Text(dst.RawString())
				}
				if r.hi >= r.lo && len(r.base)+len(r.each) > 0 {
					m.ranges = append(m.ranges, r)
					entries++
				}
			}
		default: // begincmap, endcmap, usecmap, …: nothing to keep
			for stk.Len() > 0 {
				stk.Pop()
			}
		}
	})
	if !m.lengths[1] && !m.lengths[2] && !m.lengths[3] && !m.lengths[4] {
		m.lengths[2] = true // no code space: composite fonts use two bytes
	}
	return m
}

// decode reads raw, a string of codes, as text; a code the map lacks is skipped.
func (m *toUnicode) decode(raw string) string {
	var b strings.Builder
	for len(raw) > 0 {
		n := 0
		for l := 1; l <= 4 && l <= len(raw); l++ {
			if m.lengths[l] {
				n = l
				if _, ok := m.lookup(raw[:l], l); ok {
					break
				}
			}
		}
		if n == 0 {
			n = 1
		}
		if s, ok := m.lookup(raw[:n], n); ok {
			b.WriteString(s)
		}
		raw = raw[n:]
	}
	return b.String()
}

func (m *toUnicode) lookup(code string, n int) (string, bool) {
	c := codeOf(code)
	if s, ok := m.chars[c]; ok {
		return s, true
	}
	for _, r := range m.ranges {
		if r.n != n || c < r.lo || c > r.hi {
			continue
		}
		off := c - r.lo
		if r.each != nil {
			if int(off) < len(r.each) {
				return r.each[off], true
			}
			return "", false
		}
		u := append([]uint16(nil), r.base...)
		u[len(u)-1] += uint16(off)
		return string(utf16.Decode(u)), true
	}
	return "", false
}
