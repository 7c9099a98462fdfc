package tokens

import (
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

// bpe counts tokens exactly with one of tiktoken's byte-pair encodings. The vocabulary is a
// map of 100k–200k entries (tens of MB once built), so it is built on the first Count rather
// than at start-up: a binary that never counts with an encoding never pays for it.
type bpe struct {
	load  func() *codec.Codec
	once  sync.Once
	codec *codec.Codec // set by once; read-only afterwards, and safe for concurrent use
}

// The two encodings current OpenAI models use. Importing the codec package rather than
// tokenizer.Get keeps the r50k and p50k tables of retired models out of the binary.
var (
	o200k  = &bpe{load: codec.NewO200kBase}
	cl100k = &bpe{load: codec.NewCl100kBase}
)

// Count returns the number of tokens text encodes to, treating special-token spellings
// such as "<|endoftext|>" as ordinary text, as chat APIs do for message content. The first
// call builds the table, which takes tens of milliseconds; later calls only tokenize.
func (b *bpe) Count(text string) int {
	if text == "" {
		return 0
	}
	b.once.Do(func() { b.codec = b.load() })
	n, err := b.codec.Count(text)
	if err != nil {
		// Only a regexp timeout fails a count, and regexp2's default timeout is unbounded;
		// an estimate still beats zero if that ever changes.
		return Estimate(text)
	}
	return n
}
