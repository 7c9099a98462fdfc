package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/tokens"
)

// Chunk sizes of notes, in tokens (tokens.Estimate): big enough that a chunk holds a
// thought with its context, small enough that a snippet of it is about one thing; the
// overlap keeps a sentence cut at a chunk's end findable whole in the next.
const (
	ChunkTokens  = 400
	ChunkOverlap = 80
)

// segment is a line of a note, or a piece of a line too long for one chunk.
type segment struct {
	line  int // 1-based
	text  string
	cost  int
	first bool // the first (or only) piece of its line
}

// ChunkNote splits markdown text into chunks of about size tokens that overlap by about
// overlap tokens, on line boundaries: where a chunk must end, it ends before a heading or
// after a blank line in its second half when there is one. Chunks keep the 1-based lines
// they hold. A line longer than size is cut into pieces of its own (all on that line).
// Chunks of blank lines only are left out.
func ChunkNote(text string, size, overlap int) []mynah.NoteChunk {
	size = max(size, 1)
	segs := segments(text, size)
	var out []mynah.NoteChunk
	for start := 0; start < len(segs); {
		end, total := start, 0
		for end < len(segs) && (end == start || total+segs[end].cost <= size) {
			total += segs[end].cost
			end++
		}
		if end < len(segs) {
			end = breakAt(segs, start, end)
		}
		if c, ok := makeChunk(segs[start:end]); ok {
			out = append(out, c)
		}
		if end == len(segs) {
			break
		}
		next, kept := end, 0
		for next > start+1 && kept+segs[next-1].cost <= overlap {
			next--
			kept += segs[next].cost
		}
		start = next
	}
	return out
}

// segments splits text into lines, and lines costing more than size into pieces.
func segments(text string, size int) []segment {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	segs := make([]segment, 0, len(lines))
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		cost := tokens.Estimate(l) + 1 // the line break
		if cost <= size {
			segs = append(segs, segment{line: i + 1, text: l, cost: cost, first: true})
			continue
		}
		// Cut by runes in proportion to the cost: pieces of about size tokens each.
		n := (cost + size - 1) / size
		per := max(utf8.RuneCountInString(l)/n, 1)
		first := true
		for l != "" {
			cut, k := 0, 0
			for cut < len(l) && k < per {
				_, w := utf8.DecodeRuneInString(l[cut:])
				cut += w
				k++
			}
			segs = append(segs, segment{line: i + 1, text: l[:cut], cost: tokens.Estimate(l[:cut]), first: first})
			l, first = l[cut:], false
		}
	}
	return segs
}

// breakAt returns where a chunk of segs[start:end] that must end by end ends best: before
// a heading, else after a blank line, in its second half; else at end.
func breakAt(segs []segment, start, end int) int {
	half := start + (end-start+1)/2
	for j := end - 1; j >= half && j > start; j-- {
		if segs[j].first && strings.HasPrefix(segs[j].text, "#") {
			return j
		}
	}
	for j := end - 1; j >= half && j > start; j-- {
		if segs[j-1].first && strings.TrimSpace(segs[j-1].text) == "" {
			return j
		}
	}
	return end
}

// makeChunk joins segs into one chunk; false when they hold only blank lines.
func makeChunk(segs []segment) (mynah.NoteChunk, bool) {
	var b strings.Builder
	blank := true
	for i, s := range segs {
		if i > 0 && s.first {
			b.WriteByte('\n')
		}
		b.WriteString(s.text)
		blank = blank && strings.TrimSpace(s.text) == ""
	}
	if blank {
		return mynah.NoteChunk{}, false
	}
	text := b.String()
	sum := sha256.Sum256([]byte(text))
	return mynah.NoteChunk{StartLine: segs[0].line, EndLine: segs[len(segs)-1].line, Text: text, Hash: hex.EncodeToString(sum[:])}, true
}
