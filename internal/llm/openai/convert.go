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

	"github.com/mynah-ai/mynah/internal/llm"
)

const provider = "openai"

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
