package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/mynah-ai/mynah/internal/llm"
)

const provider = "anthropic"

// params translates req. Tool results travel in user turns; consecutive turns of the
// same wire role are merged, because the API wants user and assistant to alternate, and
// inside a user turn tool results come first, as the API requires; text and media keep
// their order (see mediaBlock).
func (m *Model) params(req llm.Request) (anthropic.MessageNewParams, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = m.cfg.MaxTokens
	}
	p := anthropic.MessageNewParams{Model: anthropic.Model(req.Model), MaxTokens: int64(maxTokens)}
	if req.System != "" {
		block := anthropic.TextBlockParam{Text: req.System}
		if req.CacheSystem {
			block.CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
		p.System = []anthropic.TextBlockParam{block}
	}
	if req.Context != "" {
		// After the cache breakpoint: it changes more often than the stable prefix.
		p.System = append(p.System, anthropic.TextBlockParam{Text: req.Context})
	}
	for _, t := range req.Turns {
		role := anthropic.MessageParamRoleUser
		if t.Role == llm.Assistant {
			role = anthropic.MessageParamRoleAssistant
		}
		var blocks []anthropic.ContentBlockParamUnion
		for _, part := range t.Parts {
			switch {
			case part.ToolCall != nil:
				if role != anthropic.MessageParamRoleAssistant {
					return p, fmt.Errorf("anthropic: tool call in a %s turn", t.Role)
				}
				blocks = append(blocks, anthropic.NewToolUseBlock(part.ToolCall.ID, input(part.ToolCall.Arguments), part.ToolCall.Name))
			case part.ToolResult != nil:
				r := part.ToolResult
				b := anthropic.ToolResultBlockParam{ToolUseID: r.CallID}
				if r.IsError {
					b.IsError = anthropic.Bool(true)
				}
				if r.Content != "" {
					b.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: r.Content}}}
				}
				blocks = append(blocks, anthropic.ContentBlockParamUnion{OfToolResult: &b})
			case part.Image != nil || part.Audio != nil:
				if t.Role != llm.User {
					return p, fmt.Errorf("anthropic: media in a %s turn", t.Role)
				}
				blocks = append(blocks, mediaBlock(part))
			case part.Text != "": // the API rejects empty text blocks
				blocks = append(blocks, anthropic.NewTextBlock(part.Text))
			}
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(p.Messages); n > 0 && p.Messages[n-1].Role == role {
			p.Messages[n-1].Content = append(p.Messages[n-1].Content, blocks...)
		} else {
			p.Messages = append(p.Messages, anthropic.MessageParam{Role: role, Content: blocks})
		}
	}
	for i := range p.Messages {
		slices.SortStableFunc(p.Messages[i].Content, func(a, b anthropic.ContentBlockParamUnion) int {
			return rank(a) - rank(b)
		})
	}
	for _, tool := range req.Tools {
		schema, err := inputSchema(tool.Parameters)
		if err != nil {
			return p, fmt.Errorf("anthropic: tool %s: parameters: %w", tool.Name, err)
		}
		tp := anthropic.ToolParam{Name: tool.Name, InputSchema: schema}
		if tool.Description != "" {
			tp.Description = anthropic.String(tool.Description)
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: &tp})
	}
	if req.Temperature != 0 {
		p.Temperature = anthropic.Float(req.Temperature)
	}
	return p, nil
}

func rank(b anthropic.ContentBlockParamUnion) int {
	if b.OfToolResult != nil {
		return 0
	}
	return 1
}

func input(args json.RawMessage) json.RawMessage {
	if len(strings.TrimSpace(string(args))) == 0 {
		return json.RawMessage("{}")
	}
	return args
}

// inputSchema splits a JSON Schema object into the SDK's fields.
func inputSchema(raw json.RawMessage) (anthropic.ToolInputSchemaParam, error) {
	var s anthropic.ToolInputSchemaParam
	if len(raw) == 0 {
		return s, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return s, err
	}
	s.Properties = m["properties"]
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	delete(m, "type")
	delete(m, "properties")
	delete(m, "required")
	if len(m) > 0 {
		s.ExtraFields = m
	}
	return s, nil
}

// usage normalises Anthropic's counts: its input_tokens excludes cache reads and
// writes, while llm.Usage.InputTokens counts every input token.
func usage(input, cacheRead, cacheWrite, output int64) llm.Usage {
	return llm.Usage{
		InputTokens:  int(input + cacheRead + cacheWrite),
		OutputTokens: int(output),
		CachedTokens: int(cacheRead),
	}
}

func fromMessage(msg *anthropic.Message) *llm.Response {
	r := &llm.Response{
		StopReason: strings.ToLower(string(msg.StopReason)),
		Model:      string(msg.Model),
		Usage: usage(msg.Usage.InputTokens, msg.Usage.CacheReadInputTokens,
			msg.Usage.CacheCreationInputTokens, msg.Usage.OutputTokens),
	}
	var text strings.Builder
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			r.ToolCalls = append(r.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: input(b.Input)})
		}
	}
	r.Text = text.String()
	return r
}

// streamStatus maps the error types of in-stream error events (sent on a 200 response)
// to the HTTP statuses the same errors have as responses.
var streamStatus = map[string]int{
	"invalid_request_error": 400, "authentication_error": 401, "permission_error": 403,
	"not_found_error": 404, "request_too_large": 413, "rate_limit_error": 429,
	"api_error": 500, "timeout_error": 504, "overloaded_error": 529,
}

// translate turns an SDK error into an *llm.Error, or returns ctx's error when the
// call was cancelled.
func (m *Model) translate(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("anthropic: %w", ctx.Err())
	}
	e := &llm.Error{Provider: provider, Err: err, Message: err.Error()}
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		e.Status = apiErr.StatusCode
		var body struct {
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		e.Message = apiErr.RawJSON()
		if json.Unmarshal([]byte(apiErr.RawJSON()), &body) == nil {
			e.Message = body.Error.Message
			if s := streamStatus[body.Error.Type]; s != 0 && e.Status < 400 {
				e.Status = s
			}
		}
		if apiErr.Response != nil {
			e.RetryAfter = llm.RetryAfter(apiErr.Response.Header, time.Now())
		}
		if e.Message == "" {
			e.Message = http.StatusText(e.Status)
		}
	}
	e.Message = llm.Scrub(e.Message, m.cfg.APIKey)
	return e
}
