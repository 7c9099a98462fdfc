package openai

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// chunk is what the accumulator reads of one Chat Completions stream chunk. The SDK's
// own chunk type decodes every field of the API, by reflection, into values that
// remember their raw JSON — most of what reading a stream costs; chunk reads only these
// fields, in one pass. Like the SDK it is lenient, and the same way (chunk_test.go
// compares the two): a string field holding another value but null reads as that value's
// JSON text, a number field holding a string as the number in it, an array element that
// is no object as an empty one; anything else of the wrong type as absent.
type chunk struct {
	Model    string
	HasUsage bool // "usage" is an object (a stream asked to include usage ends with one)
	Usage    chunkUsage
	Choices  []chunkChoice
}

type chunkUsage struct {
	PromptTokens, CompletionTokens, CachedTokens int64
}

type chunkChoice struct {
	Index        int64
	Content      string // delta.content
	ToolCalls    []chunkToolCall
	FinishReason string
}

type chunkToolCall struct {
	Index               int64
	ID, Name, Arguments string
}

var errChunk = errors.New("openai: stream chunk is not a JSON object")

// UnmarshalJSON reads b, a stream chunk. The SDK's stream decodes each event with
// encoding/json, which checks the whole event is valid JSON before calling this; the
// reader still stops, with an error, at anything it cannot read.
func (c *chunk) UnmarshalJSON(b []byte) error {
	*c = chunk{}
	r := jsonReader{b: b}
	if !r.object(func(key []byte) {
		switch string(key) {
		case "model":
			c.Model, _ = r.string()
		case "usage":
			c.HasUsage = r.object(func(key []byte) {
				switch string(key) {
				case "prompt_tokens":
					c.Usage.PromptTokens, _ = r.int()
				case "completion_tokens":
					c.Usage.CompletionTokens, _ = r.int()
				case "prompt_tokens_details":
					r.object(func(key []byte) {
						if string(key) == "cached_tokens" {
							c.Usage.CachedTokens, _ = r.int()
						} else {
							r.skip()
						}
					})
				default:
					r.skip()
				}
			})
		case "choices":
			c.Choices = c.Choices[:0]
			r.array(func() {
				var ch chunkChoice // the SDK reads an element that is no object as empty
				r.object(func(key []byte) { ch.read(&r, key) })
				c.Choices = append(c.Choices, ch)
			})
		default:
			r.skip()
		}
	}) && r.err == nil {
		r.err = errChunk
	}
	return r.err
}

func (ch *chunkChoice) read(r *jsonReader, key []byte) {
	switch string(key) {
	case "index":
		ch.Index, _ = r.int()
	case "finish_reason":
		ch.FinishReason, _ = r.string()
	case "delta":
		r.object(func(key []byte) {
			switch string(key) {
			case "content":
				ch.Content, _ = r.string()
			case "tool_calls":
				ch.ToolCalls = ch.ToolCalls[:0]
				r.array(func() {
					var tc chunkToolCall
					r.object(func(key []byte) { tc.read(r, key) })
					ch.ToolCalls = append(ch.ToolCalls, tc)
				})
			default:
				r.skip()
			}
		})
	default:
		r.skip()
	}
}

func (tc *chunkToolCall) read(r *jsonReader, key []byte) {
	switch string(key) {
	case "index":
		tc.Index, _ = r.int()
	case "id":
		tc.ID, _ = r.string()
	case "function":
		r.object(func(key []byte) {
			switch string(key) {
			case "name":
				tc.Name, _ = r.string()
			case "arguments":
				tc.Arguments, _ = r.string()
			default:
				r.skip()
			}
		})
	default:
		r.skip()
	}
}

// jsonReader reads a JSON text front to back. Each reading method consumes one value and
// reports whether it was of the type asked for (see each for what it makes of others).
// At the first malformed byte err is set and every later read reports absent.
type jsonReader struct {
	b   []byte
	i   int
	err error
}

func (r *jsonReader) fail() {
	if r.err == nil {
		r.err = errors.New("openai: malformed stream chunk at byte " + strconv.Itoa(r.i))
	}
	r.i = len(r.b)
}

func (r *jsonReader) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// peek is the first byte of the next value, 0 at the end.
func (r *jsonReader) peek() byte {
	r.space()
	if r.i >= len(r.b) {
		r.fail()
		return 0
	}
	return r.b[r.i]
}

// object reads an object, calling field with each key (valid only during the call);
// field must read the key's value (or skip it). It reports whether the value was an
// object.
func (r *jsonReader) object(field func(key []byte)) bool {
	if r.peek() != '{' {
		r.skip()
		return false
	}
	r.i++
	if r.peek() == '}' {
		r.i++
		return true
	}
	for r.err == nil {
		if r.peek() != '"' {
			r.fail()
			return false
		}
		key := r.key()
		if r.peek() != ':' {
			r.fail()
			return false
		}
		r.i++
		field(key)
		switch r.peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			return true
		default:
			r.fail()
		}
	}
	return false
}

// array reads an array, calling elem to read each element. It reports whether the value
// was an array.
func (r *jsonReader) array(elem func()) bool {
	if r.peek() != '[' {
		r.skip()
		return false
	}
	r.i++
	if r.peek() == ']' {
		r.i++
		return true
	}
	for r.err == nil {
		elem()
		switch r.peek() {
		case ',':
			r.i++
		case ']':
			r.i++
			return true
		default:
			r.fail()
		}
	}
	return false
}

// string reads a string. Like the SDK, it takes another value but null as its JSON text
// (a number's digits).
func (r *jsonReader) string() (string, bool) {
	switch r.peek() {
	case '"':
	case 'n':
		r.skip()
		return "", false
	default:
		start := r.i
		r.skip()
		return string(r.b[start:r.i]), false
	}
	raw, escaped := r.quoted()
	if !escaped {
		return string(raw), r.err == nil
	}
	return r.unquote(raw), r.err == nil
}

// key reads an object's key, the next value, which is a string: its bytes, unescaped.
func (r *jsonReader) key() []byte {
	raw, escaped := r.quoted()
	if !escaped {
		return raw
	}
	return []byte(r.unquote(raw))
}

// quoted reads past the string at r.i and returns its bytes between the quotes, and
// whether they hold an escape.
func (r *jsonReader) quoted() (raw []byte, escaped bool) {
	start := r.i
	for i := start + 1; i < len(r.b); i++ {
		switch r.b[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			r.i = i + 1
			return r.b[start+1 : i], escaped
		}
	}
	r.fail()
	return nil, false
}

// unquote is raw, the bytes of a string between its quotes, unescaped: \uXXXX escapes
// (surrogate pairs joined, a lone surrogate read as U+FFFD) and the two-character ones.
func (r *jsonReader) unquote(raw []byte) string {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(raw) {
			r.fail()
			return ""
		}
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			c1 := hex4(raw[i+1:])
			if c1 < 0 {
				r.fail()
				return ""
			}
			i += 4
			if utf16.IsSurrogate(c1) && len(raw) > i+2 && raw[i+1] == '\\' && raw[i+2] == 'u' {
				// The pair's second half, as the SDK's reader (gjson) takes it: whatever
				// escape follows, U+FFFD for the two if they are no pair.
				c1 = utf16.DecodeRune(c1, hex4(raw[i+3:]))
				i += 6
			}
			out = utf8.AppendRune(out, c1)
		default:
			r.fail()
			return ""
		}
	}
	return string(out)
}

// hex4 is the value of the four hex digits b starts with, -1 if it does not.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var v rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		v = v<<4 | rune(c)
	}
	return v
}

// int reads a number as an integer, a fraction dropped. Like the SDK, it takes a string
// holding a number as that number.
func (r *jsonReader) int() (int64, bool) {
	var tok string
	switch c := r.peek(); {
	case c == '-' || (c >= '0' && c <= '9'):
		start := r.i
		r.number()
		tok = string(r.b[start:r.i])
	case c == '"':
		tok, _ = r.string()
	default:
		r.skip()
		return 0, false
	}
	if n, err := strconv.ParseInt(tok, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil {
		return 0, false
	}
	return int64(f), true
}

func (r *jsonReader) number() {
	start := r.i
	for r.i < len(r.b) {
		switch c := r.b[r.i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			r.i++
		default:
			if r.i == start {
				r.fail()
			}
			return
		}
	}
}

// skip reads past one value of any type.
func (r *jsonReader) skip() {
	switch c := r.peek(); c {
	case '"':
		r.quoted()
	case '{':
		r.object(func([]byte) { r.skip() })
	case '[':
		r.array(r.skip)
	case 't':
		r.literal("true")
	case 'f':
		r.literal("false")
	case 'n':
		r.literal("null")
	case 0:
	default:
		r.number()
	}
}

func (r *jsonReader) literal(word string) {
	if !bytes.HasPrefix(r.b[r.i:], []byte(word)) {
		r.fail()
		return
	}
	r.i += len(word)
}
