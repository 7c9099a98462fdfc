package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mynah-ai/mynah/internal/llm"
)

// NewAnthropic starts a fake Anthropic Messages server (POST /v1/messages, JSON or SSE).
// Its URL is the host root, as the SDK's base URL is. Requests must carry x-api-key and
// anthropic-version, and messages must alternate user/assistant; user messages may hold
// base64 image blocks.
func NewAnthropic(t TB) *Server {
	t.Helper()
	return newServer(t, anthropicDialect{}, "")
}

type anthropicDialect struct{}

type anthropicBlock struct {
	Type      string           `json:"type"`
	Text      string           `json:"text"`
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	Input     json.RawMessage  `json:"input"`
	ToolUseID string           `json:"tool_use_id"`
	Content   json.RawMessage  `json:"content"`
	IsError   bool             `json:"is_error"`
	Source    *anthropicSource `json:"source"`
}

type anthropicSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type anthropicRequest struct {
	Model     string          `json:"model"`
	MaxTokens *int            `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

func (anthropicDialect) parse(r *http.Request, body []byte, rec *Recorded) (string, int) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		return fmt.Sprintf("unknown endpoint %s %s", r.Method, r.URL.Path), http.StatusNotFound
	}
	if r.Header.Get("X-Api-Key") == "" {
		return "x-api-key header is required", http.StatusUnauthorized
	}
	if r.Header.Get("Anthropic-Version") == "" {
		return "anthropic-version: header is required", 0
	}
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return "body is not a JSON request: " + err.Error(), 0
	}
	rec.Model, rec.Stream = req.Model, req.Stream
	if req.Model == "" {
		return "model: Field required", 0
	}
	if req.MaxTokens == nil || *req.MaxTokens < 1 {
		return "max_tokens: Field required (an integer >= 1)", 0
	}
	if len(req.Messages) == 0 {
		return "messages: Field required (at least one message)", 0
	}
	system, ok := textOf(req.System)
	if !ok {
		return "system: want a string or text blocks", 0
	}
	rec.System = system
	for i, tool := range req.Tools {
		var schema struct {
			Type string `json:"type"`
		}
		if tool.Name == "" || json.Unmarshal(tool.InputSchema, &schema) != nil || schema.Type != "object" {
			return fmt.Sprintf("tools.%d: name and input_schema {type: object} are required", i), 0
		}
		rec.Tools = append(rec.Tools, tool.Name)
	}
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i), 0
		}
		if i > 0 && req.Messages[i-1].Role == m.Role {
			return fmt.Sprintf("messages.%d: roles must alternate between user and assistant", i), 0
		}
		turn := llm.Turn{Role: llm.Role(m.Role)}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			turn.Parts = []llm.Part{{Text: s}}
			rec.Turns = append(rec.Turns, turn)
			continue
		}
		var blocks []anthropicBlock
		if err := json.Unmarshal(m.Content, &blocks); err != nil || len(blocks) == 0 {
			return fmt.Sprintf("messages.%d.content: want a string or a non-empty list of blocks", i), 0
		}
		for j, b := range blocks {
			part, problem := anthropicPart(m.Role, b)
			if problem != "" {
				return fmt.Sprintf("messages.%d.content.%d: %s", i, j, problem), 0
			}
			turn.Parts = append(turn.Parts, part)
		}
		rec.Turns = append(rec.Turns, turn)
	}
	return "", 0
}

func anthropicPart(role string, b anthropicBlock) (llm.Part, string) {
	switch b.Type {
	case "text":
		return llm.Part{Text: b.Text}, ""
	case "image":
		if role != "user" {
			return llm.Part{}, "image blocks need role user"
		}
		b, problem := anthropicImage(b.Source)
		return llm.Part{Image: b}, problem
	case "tool_use":
		var input map[string]any
		if role != "assistant" || b.ID == "" || b.Name == "" || json.Unmarshal(b.Input, &input) != nil || input == nil {
			return llm.Part{}, "tool_use needs role assistant, id, name and an object input"
		}
		return llm.Part{ToolCall: &llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: b.Input}}, ""
	case "tool_result":
		if role != "user" || b.ToolUseID == "" {
			return llm.Part{}, "tool_result needs role user and tool_use_id"
		}
		content, ok := textOf(b.Content)
		if !ok {
			return llm.Part{}, "tool_result content: want a string or text blocks"
		}
		return llm.Part{ToolResult: &llm.ToolResult{CallID: b.ToolUseID, Content: content, IsError: b.IsError}}, ""
	default:
		return llm.Part{}, fmt.Sprintf("unsupported block type %q", b.Type)
	}
}

func (anthropicDialect) writeError(w http.ResponseWriter, status int, retryAfter, message string) {
	typ := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
		404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 500: "api_error",
		529: "overloaded_error"}[status]
	if typ == "" {
		typ = "api_error"
		if status < 500 {
			typ = "invalid_request_error"
		}
	}
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	const id = "req_fake_error"
	w.Header().Set("Request-Id", id)
	writeJSON(w, status, map[string]any{"type": "error",
		"error": map[string]any{"type": typ, "message": message}, "request_id": id})
}

func anthropicUsage(u llm.Usage, full bool) map[string]any {
	m := map[string]any{
		"input_tokens":                max(0, u.InputTokens-u.CachedTokens), // cache reads are not in input_tokens
		"output_tokens":               u.OutputTokens,
		"cache_creation_input_tokens": 0,
		"cache_read_input_tokens":     u.CachedTokens,
		"server_tool_use":             nil,
	}
	if full {
		m["cache_creation"] = map[string]any{"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}
		m["inference_geo"] = nil
		m["service_tier"] = "standard"
	}
	return m
}

func (anthropicDialect) writeReply(ctx context.Context, w http.ResponseWriter, rec *Recorded, reply Reply, seq int) {
	w.Header().Set("Request-Id", fmt.Sprintf("req_fake%d", seq))
	stop := "end_turn"
	if len(reply.ToolCalls) > 0 {
		stop = "tool_use"
	}
	callID := func(i int, c llm.ToolCall) string {
		if c.ID != "" {
			return c.ID
		}
		return fmt.Sprintf("toolu_fake%d_%d", seq, i)
	}
	message := func(content []any, stopReason any, u llm.Usage) map[string]any {
		return map[string]any{
			"id": fmt.Sprintf("msg_fake%d", seq), "type": "message", "role": "assistant", "model": rec.Model,
			"content": content, "stop_reason": stopReason, "stop_sequence": nil, "stop_details": nil,
			"container": nil, "usage": anthropicUsage(u, true),
		}
	}
	if !rec.Stream {
		content := []any{}
		if reply.Text != "" || len(reply.ToolCalls) == 0 {
			content = append(content, map[string]any{"type": "text", "text": reply.Text, "citations": nil})
		}
		for i, c := range reply.ToolCalls {
			content = append(content, map[string]any{"type": "tool_use", "id": callID(i, c), "name": c.Name,
				"input": args(c), "caller": map[string]any{"type": "direct"}})
		}
		writeJSON(w, http.StatusOK, message(content, stop, reply.Usage))
		return
	}
	s := startSSE(w)
	send := func(v map[string]any) { s.send(v["type"].(string), v) }
	start := reply.Usage
	start.OutputTokens = min(1, start.OutputTokens)
	send(map[string]any{"type": "message_start", "message": message([]any{}, nil, start)})
	index := 0
	if reply.Text != "" {
		send(map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "text", "text": "", "citations": nil}})
		s.send("ping", map[string]any{"type": "ping"})
		for i, c := range chunks(reply.Text) {
			if !pace(ctx, reply, i) {
				return
			}
			send(map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "text_delta", "text": c}})
		}
		send(map[string]any{"type": "content_block_stop", "index": index})
		index++
	} else {
		s.send("ping", map[string]any{"type": "ping"})
	}
	for i, c := range reply.ToolCalls {
		send(map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{
			"type": "tool_use", "id": callID(i, c), "name": c.Name, "input": map[string]any{},
			"caller": map[string]any{"type": "direct"}}})
		for _, frag := range append([]string{""}, chunks(string(args(c)))...) {
			send(map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": frag}})
		}
		send(map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	if reply.Truncate {
		return
	}
	send(map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil, "stop_details": nil, "container": nil},
		"usage": anthropicUsage(reply.Usage, false)})
	send(map[string]any{"type": "message_stop"})
}
