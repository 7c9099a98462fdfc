package openai

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/mynah-ai/mynah/internal/llm"
)

// body is req as the JSON body of a Chat Completions call; stream asks for a streamed
// answer with usage reporting. The SDK would encode its params by reflection, a tenth of
// what serving a message costs; this writes the same bytes the SDK sends, key for key
// (body_test.go compares the two over representative requests):
//
//   - the system message first, then the turns; tool results become role "tool"
//     messages (an error result is prefixed "error: ", the API having no flag), sent
//     before the message of the turn that holds them;
//   - a user turn's text parts become one string, joined by newlines, unless the turn
//     holds media: then its parts become content parts in their order (see appendMedia);
//   - an assistant turn's text and tool calls become one assistant message.
func (m *Model) body(req llm.Request, stream bool) ([]byte, error) {
	b := make([]byte, 0, m.sizeHint(req))
	b = append(b, '{')
	sys := llm.SystemText(req)
	messages := false
	open := func() {
		if messages {
			b = append(b, ',')
		} else {
			b = append(b, `"messages":[`...)
			messages = true
		}
	}
	if sys != "" {
		open()
		b = append(b, `{"content":`...)
		b = appendString(b, sys)
		b = append(b, `,"role":"system"}`...)
	}
	for _, t := range req.Turns {
		// The turn's tool results are messages of their own, sent as met.
		var texts, calls int
		media := false
		for _, part := range t.Parts {
			switch {
			case part.Image != nil || part.Audio != nil:
				if t.Role != llm.User {
					return nil, fmt.Errorf("openai: media in a %s turn", t.Role)
				}
				media = true
			case part.ToolResult != nil:
				r := part.ToolResult
				open()
				b = append(b, `{"content":"`...)
				if r.IsError {
					b = append(b, "error: "...)
				}
				b = appendStringBody(b, r.Content)
				b = append(b, `","tool_call_id":`...)
				b = appendString(b, r.CallID)
				b = append(b, `,"role":"tool"}`...)
			case part.ToolCall != nil:
				calls++
			case part.Text != "":
				texts++
			}
		}
		switch {
		case t.Role == llm.Assistant && (texts > 0 || calls > 0):
			open()
			b = append(b, '{')
			if texts > 0 {
				b = append(b, `"content":`...)
				b = appendJoined(b, t.Parts)
				if calls > 0 {
					b = append(b, ',')
				}
			}
			if calls > 0 {
				b = append(b, `"tool_calls":[`...)
				first := true
				for _, part := range t.Parts {
					c := part.ToolCall
					if c == nil || part.Image != nil || part.Audio != nil || part.ToolResult != nil {
						continue
					}
					if !first {
						b = append(b, ',')
					}
					first = false
					b = append(b, `{"id":`...)
					b = appendString(b, c.ID)
					b = append(b, `,"function":{"arguments":`...)
					if len(c.Arguments) == 0 {
						b = append(b, `"{}"`...)
					} else {
						b = appendString(b, string(c.Arguments))
					}
					b = append(b, `,"name":`...)
					b = appendString(b, c.Name)
					b = append(b, `},"type":"function"}`...)
				}
				b = append(b, ']')
			}
			b = append(b, `,"role":"assistant"}`...)
		case calls > 0:
			return nil, fmt.Errorf("openai: tool calls in a %s turn", t.Role)
		case media:
			open()
			b = append(b, `{"content":[`...)
			first := true
			for _, part := range t.Parts {
				var ok bool
				switch {
				case part.Image != nil || part.Audio != nil:
					ok = true
				case part.ToolResult != nil || part.ToolCall != nil:
				case part.Text != "":
					ok = true
				}
				if !ok {
					continue
				}
				if !first {
					b = append(b, ',')
				}
				first = false
				if part.Image != nil || part.Audio != nil {
					b = appendMedia(b, part)
				} else {
					b = appendTextPart(b, part.Text)
				}
			}
			b = append(b, `],"role":"user"}`...)
		case texts > 0:
			open()
			b = append(b, `{"content":`...)
			b = appendJoined(b, t.Parts)
			b = append(b, `,"role":"user"}`...)
		}
	}
	if messages {
		b = append(b, "],"...)
	}
	if req.Model != "" {
		b = append(b, `"model":`...)
		b = appendString(b, req.Model)
		b = append(b, ',')
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = m.cfg.MaxTokens
	}
	if maxTokens > 0 {
		// OpenAI's reasoning models reject max_tokens; clones may not know its successor.
		if m.custom {
			b = append(b, `"max_tokens":`...)
		} else {
			b = append(b, `"max_completion_tokens":`...)
		}
		b = strconv.AppendInt(b, int64(maxTokens), 10)
		b = append(b, ',')
	}
	if req.Temperature != 0 {
		var err error
		b = append(b, `"temperature":`...)
		if b, err = appendFloat(b, req.Temperature); err != nil {
			return nil, err
		}
		b = append(b, ',')
	}
	if stream {
		b = append(b, `"stream_options":{"include_usage":true},`...)
	}
	if len(req.Tools) > 0 {
		tools, err := m.tools.get(req.Tools)
		if err != nil {
			return nil, err
		}
		b = append(b, `"tools":`...)
		b = append(b, tools...)
		b = append(b, ',')
	}
	if stream {
		b = append(b, `"stream":true,`...)
	}
	if b[len(b)-1] == ',' {
		b[len(b)-1] = '}'
	} else {
		b = append(b, '}')
	}
	return b, nil
}

// sizeHint is about the length of req's body, so it is built without growing: the text
// and media it carries (base64 takes 4 bytes for 3) and room for the keys around them.
func (m *Model) sizeHint(req llm.Request) int {
	n := 256 + len(req.System) + len(req.Context)
	for _, t := range req.Turns {
		n += 64
		for _, p := range t.Parts {
			n += len(p.Text) + 48
			switch {
			case p.Image != nil:
				n += base64.StdEncoding.EncodedLen(len(p.Image.Data))
			case p.Audio != nil:
				n += base64.StdEncoding.EncodedLen(len(p.Audio.Data))
			case p.ToolCall != nil:
				n += len(p.ToolCall.ID) + len(p.ToolCall.Name) + len(p.ToolCall.Arguments)*5/4
			case p.ToolResult != nil:
				n += len(p.ToolResult.CallID) + len(p.ToolResult.Content)
			}
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Parameters) + 64
	}
	return n
}

// appendJoined appends the text parts of parts as one JSON string, joined by newlines.
func appendJoined(b []byte, parts []llm.Part) []byte {
	b = append(b, '"')
	first := true
	for _, p := range parts {
		if p.Image != nil || p.Audio != nil || p.ToolResult != nil || p.ToolCall != nil || p.Text == "" {
			continue
		}
		if !first {
			b = append(b, `\n`...)
		}
		first = false
		b = appendStringBody(b, p.Text)
	}
	return append(b, '"')
}

func appendTextPart(b []byte, text string) []byte {
	b = append(b, `{"text":`...)
	b = appendString(b, text)
	return append(b, `,"type":"text"}`...)
}

// appendString appends s as a JSON string, escaped as the SDK's encoder does: like
// encoding/json, but leaving <, > and & as they are.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendStringBody(b, s)
	return append(b, '"')
}

const hex = "0123456789abcdef"

// appendStringBody appends s escaped, without the quotes (see appendString).
func appendStringBody(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
}

// appendFloat appends f as encoding/json writes a float64; NaN and infinities, which
// JSON cannot hold, are an error.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("openai: temperature %v is not a JSON number", f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}
