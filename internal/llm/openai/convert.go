package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/mynah-ai/mynah/internal/llm"
)

const provider = "openai"

// params translates req: the system message first, then the turns; tool results become
// role "tool" messages (an error result is prefixed "error: ", the API having no flag).
// A user turn's text parts become one string, joined by newlines, unless the turn holds
// media: then its parts become content parts in their order (see mediaPart).
func (m *Model) params(req llm.Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(req.Model)}
	if sys := llm.SystemText(req); sys != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(sys))
	}
	for _, t := range req.Turns {
		var text []string
		var calls []openai.ChatCompletionMessageToolCallUnionParam
		var content []openai.ChatCompletionContentPartUnionParam // text and media in order
		media := false
		for _, part := range t.Parts {
			switch {
			case part.Image != nil || part.Audio != nil:
				if t.Role != llm.User {
					return p, fmt.Errorf("openai: media in a %s turn", t.Role)
				}
				media = true
				content = append(content, mediaPart(part))
			case part.ToolResult != nil:
				content := part.ToolResult.Content
				if part.ToolResult.IsError {
					content = "error: " + content
				}
				p.Messages = append(p.Messages, openai.ToolMessage(content, part.ToolResult.CallID))
			case part.ToolCall != nil:
				c := part.ToolCall
				arguments := string(c.Arguments)
				if arguments == "" {
					arguments = "{}"
				}
				calls = append(calls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: arguments},
					}})
			case part.Text != "":
				text = append(text, part.Text)
				content = append(content, openai.TextContentPart(part.Text))
			}
		}
		joined := strings.Join(text, "\n")
		switch {
		case t.Role == llm.Assistant && (joined != "" || len(calls) > 0):
			var a openai.ChatCompletionAssistantMessageParam
			if joined != "" {
				a.Content.OfString = openai.String(joined)
			}
			a.ToolCalls = calls
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case len(calls) > 0:
			return p, fmt.Errorf("openai: tool calls in a %s turn", t.Role)
		case media:
			p.Messages = append(p.Messages, openai.UserMessage(content))
		case joined != "":
			p.Messages = append(p.Messages, openai.UserMessage(joined))
		}
	}
	if len(req.Tools) > 0 {
		tools, err := m.tools.get(req.Tools)
		if err != nil {
			return p, err
		}
		p.Tools = tools
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = m.cfg.MaxTokens
	}
	if maxTokens > 0 {
		// OpenAI's reasoning models reject max_tokens; clones may not know its successor.
		if m.custom {
			p.MaxTokens = openai.Int(int64(maxTokens))
		} else {
			p.MaxCompletionTokens = openai.Int(int64(maxTokens))
		}
	}
	if req.Temperature != 0 {
		p.Temperature = openai.Float(req.Temperature)
	}
	return p, nil
}

func fromCompletion(c *openai.ChatCompletion) (*llm.Response, error) {
	if len(c.Choices) == 0 {
		return nil, llm.Malformed(provider, "the response has no choices")
	}
	ch := c.Choices[0]
	r := &llm.Response{
		Text:       ch.Message.Content,
		StopReason: strings.ToLower(ch.FinishReason),
		Model:      c.Model,
		Usage:      usage(c.Usage),
	}
	for _, tc := range ch.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		r.ToolCalls = append(r.ToolCalls, llm.ToolCall{
			ID: tc.ID, Name: tc.Function.Name, Arguments: rawArgs(tc.Function.Arguments)})
	}
	return r, nil
}

func usage(u openai.CompletionUsage) llm.Usage {
	return llm.Usage{
		InputTokens:  int(u.PromptTokens),
		OutputTokens: int(u.CompletionTokens),
		CachedTokens: int(u.PromptTokensDetails.CachedTokens),
	}
}

func rawArgs(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}

// translate turns an SDK error into an *llm.Error, or returns ctx's error when the
// call was cancelled.
func (m *Model) translate(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("openai: %w", ctx.Err())
	}
	e := &llm.Error{Provider: provider, Err: err}
	var apiErr *openai.Error
	var streamErr *ssestream.StreamError
	switch {
	case errors.As(err, &apiErr):
		e.Status = apiErr.StatusCode
		e.Message = apiErr.Message
		if e.Message == "" {
			e.Message = apiErr.RawJSON()
		}
		if apiErr.Response != nil {
			e.RetryAfter = llm.RetryAfter(apiErr.Response.Header, time.Now())
		}
	case errors.As(err, &streamErr):
		var body struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		e.Message = streamErr.Message
		if json.Unmarshal(streamErr.Event.Data, &body) == nil && body.Error.Message != "" {
			e.Message = body.Error.Message
		}
	default:
		e.Message = err.Error()
	}
	if e.Message == "" {
		e.Message = http.StatusText(e.Status)
	}
	e.Message = llm.Scrub(e.Message, m.cfg.APIKey)
	return e
}
