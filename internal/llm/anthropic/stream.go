package anthropic

import (
	"strings"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/mynah-ai/mynah/internal/llm"
)

// accumulator builds a response from stream events, joining each tool_use block's
// input_json_delta fragments by block index.
type accumulator struct {
	text    strings.Builder
	calls   []*partialCall
	byIdx   map[int64]*partialCall
	stop    string
	stopped bool // message_stop was seen: the stream is complete
	model   string
	input   int64 // input_tokens, cache reads and writes, output: cumulative
	read    int64
	write   int64
	output  int64
}

type partialCall struct {
	id, name string
	start    string // the input given at content_block_start, used when no fragment follows
	args     strings.Builder
}

// add folds one event in and returns its text fragment.
func (a *accumulator) add(ev anthropic.MessageStreamEventUnion) string {
	switch ev.Type {
	case "message_start":
		a.model = string(ev.Message.Model)
		u := ev.Message.Usage
		a.input, a.read, a.write, a.output = u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, u.OutputTokens
	case "content_block_start":
		if ev.ContentBlock.Type == "tool_use" {
			if a.byIdx == nil {
				a.byIdx = make(map[int64]*partialCall)
			}
			p := &partialCall{id: ev.ContentBlock.ID, name: ev.ContentBlock.Name, start: ev.ContentBlock.JSON.Input.Raw()}
			a.byIdx[ev.Index] = p
			a.calls = append(a.calls, p)
		}
		if ev.ContentBlock.Type == "text" && ev.ContentBlock.Text != "" {
			a.text.WriteString(ev.ContentBlock.Text)
			return ev.ContentBlock.Text
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			a.text.WriteString(ev.Delta.Text)
			return ev.Delta.Text
		case "input_json_delta":
			if p := a.byIdx[ev.Index]; p != nil {
				p.args.WriteString(ev.Delta.PartialJSON)
			}
		}
	case "message_stop":
		a.stopped = true
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.stop = string(ev.Delta.StopReason)
		}
		// Counts in message_delta are cumulative; absent ones stay as message_start said.
		u := ev.Usage
		if u.JSON.InputTokens.Valid() && u.InputTokens > 0 {
			a.input = u.InputTokens
		}
		if u.JSON.CacheReadInputTokens.Valid() && u.CacheReadInputTokens > 0 {
			a.read = u.CacheReadInputTokens
		}
		if u.JSON.CacheCreationInputTokens.Valid() && u.CacheCreationInputTokens > 0 {
			a.write = u.CacheCreationInputTokens
		}
		a.output = u.OutputTokens
	}
	return ""
}

func (a *accumulator) response() *llm.Response {
	r := &llm.Response{
		Text:       a.text.String(),
		StopReason: strings.ToLower(a.stop),
		Model:      a.model,
		Usage:      usage(a.input, a.read, a.write, a.output),
	}
	for _, p := range a.calls {
		args := p.args.String()
		if strings.TrimSpace(args) == "" {
			args = p.start
		}
		r.ToolCalls = append(r.ToolCalls, llm.ToolCall{ID: p.id, Name: p.name, Arguments: input([]byte(args))})
	}
	return r
}
