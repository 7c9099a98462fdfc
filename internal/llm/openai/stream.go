package openai

import (
	"strings"

	"github.com/mynah-ai/mynah/internal/llm"
)

// accumulator builds a response from stream chunks. Tool-call fragments are keyed by
// their index; a header carrying a new id at an index already in use starts a new call,
// because some servers number every parallel call 0. (The SDK's own accumulator merges
// such calls.)
type accumulator struct {
	text   strings.Builder
	calls  []*partialCall
	byIdx  map[int64]*partialCall
	finish string
	model  string
	usage  llm.Usage
}

type partialCall struct {
	id, name string
	args     strings.Builder
}

// add folds one chunk in and returns its text fragment.
func (a *accumulator) add(c chunk) string {
	if c.Model != "" {
		a.model = c.Model
	}
	if c.HasUsage {
		a.usage = llm.Usage{
			InputTokens:  int(c.Usage.PromptTokens),
			OutputTokens: int(c.Usage.CompletionTokens),
			CachedTokens: int(c.Usage.CachedTokens),
		}
	}
	var text string
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		text += ch.Content
		for _, tc := range ch.ToolCalls {
			a.addCall(tc)
		}
		if ch.FinishReason != "" {
			a.finish = ch.FinishReason
		}
	}
	a.text.WriteString(text)
	return text
}

func (a *accumulator) addCall(tc chunkToolCall) {
	if a.byIdx == nil {
		a.byIdx = make(map[int64]*partialCall)
	}
	p := a.byIdx[tc.Index]
	if p == nil || (tc.ID != "" && p.id != "" && tc.ID != p.id) {
		p = &partialCall{}
		a.byIdx[tc.Index] = p
		a.calls = append(a.calls, p)
	}
	if tc.ID != "" {
		p.id = tc.ID
	}
	if tc.Name != "" {
		p.name = tc.Name
	}
	p.args.WriteString(tc.Arguments)
}

func (a *accumulator) response() *llm.Response {
	r := &llm.Response{
		Text:       a.text.String(),
		Usage:      a.usage,
		StopReason: strings.ToLower(a.finish),
		Model:      a.model,
	}
	for _, p := range a.calls {
		r.ToolCalls = append(r.ToolCalls, llm.ToolCall{ID: p.id, Name: p.name, Arguments: rawArgs(p.args.String())})
	}
	return r
}
