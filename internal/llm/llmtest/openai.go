package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mynah-ai/mynah/internal/llm"
)

// NewOpenAI starts a fake OpenAI server: Chat Completions (POST /v1/chat/completions,
// JSON or SSE; user messages may hold image_url parts with data URLs and input_audio
// parts), embeddings and audio transcriptions (see TranscribeRequest). Its URL includes
// /v1, as the SDKs' base URL does.
func NewOpenAI(t TB) *Server {
	t.Helper()
	return newServer(t, openaiDialect{}, "/v1")
}

type openaiDialect struct{}

type openaiRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string  `json:"name"`
				Arguments *string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func (openaiDialect) parse(r *http.Request, body []byte, rec *Recorded) (string, int) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		return fmt.Sprintf("unknown endpoint %s %s", r.Method, r.URL.Path), http.StatusNotFound
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		return "missing Authorization: Bearer header", http.StatusUnauthorized
	}
	var req openaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return "body is not a JSON request: " + err.Error(), 0
	}
	rec.Model, rec.Stream = req.Model, req.Stream
	for _, t := range req.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return "tools[] must be {type:function, function:{name}}", 0
		}
		rec.Tools = append(rec.Tools, t.Function.Name)
	}
	if req.Model == "" {
		return "missing required parameter: 'model'", 0
	}
	if len(req.Messages) == 0 {
		return "missing required parameter: 'messages'", 0
	}
	if req.StreamOptions != nil && !req.Stream {
		return "stream_options is only allowed when stream is true", 0
	}
	for i, m := range req.Messages {
		if m.Role == "user" {
			parts, problem := openaiUserParts(m.Content)
			if problem != "" {
				return fmt.Sprintf("messages[%d].content%s", i, problem), 0
			}
			rec.Turns = append(rec.Turns, llm.Turn{Role: llm.User, Parts: parts})
			continue
		}
		text, ok := textOf(m.Content)
		if !ok {
			return fmt.Sprintf("messages[%d].content: want a string or text parts", i), 0
		}
		switch m.Role {
		case "system", "developer":
			if rec.System != "" {
				rec.System += "\n\n"
			}
			rec.System += text
		case "assistant":
			turn := llm.Turn{Role: llm.Assistant}
			if text != "" {
				turn.Parts = append(turn.Parts, llm.Part{Text: text})
			}
			for j, c := range m.ToolCalls {
				if c.ID == "" || c.Type != "function" || c.Function.Name == "" || c.Function.Arguments == nil {
					return fmt.Sprintf("messages[%d].tool_calls[%d]: id, type function, function.name and function.arguments are required", i, j), 0
				}
				turn.Parts = append(turn.Parts, llm.Part{ToolCall: &llm.ToolCall{
					ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(*c.Function.Arguments)}})
			}
			if len(turn.Parts) == 0 {
				return fmt.Sprintf("messages[%d]: assistant content is required unless tool_calls is set", i), 0
			}
			rec.Turns = append(rec.Turns, turn)
		case "tool":
			if m.ToolCallID == "" {
				return fmt.Sprintf("messages[%d]: missing required parameter 'tool_call_id'", i), 0
			}
			rec.Turns = append(rec.Turns, llm.Turn{Role: llm.ToolRole, Parts: []llm.Part{{
				ToolResult: &llm.ToolResult{CallID: m.ToolCallID, Content: text}}}})
		default:
			return fmt.Sprintf("messages[%d].role: invalid value %q", i, m.Role), 0
		}
	}
	return "", 0
}

func (openaiDialect) writeError(w http.ResponseWriter, status int, retryAfter, message string) {
	typ, code := "invalid_request_error", any(nil)
	switch {
	case status == http.StatusUnauthorized:
		code = "invalid_api_key"
	case status == http.StatusNotFound:
		code = "unknown_url"
	case status == http.StatusTooManyRequests:
		typ, code = "requests", "rate_limit_exceeded"
	case status >= 500:
		typ = "server_error"
	}
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": message, "type": typ, "param": nil, "code": code}})
}

func openaiUsage(u llm.Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":     u.InputTokens,
		"completion_tokens": u.OutputTokens,
		"total_tokens":      u.InputTokens + u.OutputTokens,
		"prompt_tokens_details": map[string]any{
			"cached_tokens": u.CachedTokens, "audio_tokens": 0},
		"completion_tokens_details": map[string]any{
			"reasoning_tokens": 0, "audio_tokens": 0,
			"accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
	}
}

func (openaiDialect) writeReply(ctx context.Context, w http.ResponseWriter, rec *Recorded, reply Reply, seq int) {
	id := fmt.Sprintf("chatcmpl-fake%d", seq)
	const created = 1727346176
	finish := "stop"
	if len(reply.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	callID := func(i int, c llm.ToolCall) string {
		if c.ID != "" {
			return c.ID
		}
		return fmt.Sprintf("call_fake%d_%d", seq, i)
	}
	if !rec.Stream {
		msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{}}
		if reply.Text != "" || len(reply.ToolCalls) == 0 {
			msg["content"] = reply.Text
		}
		if len(reply.ToolCalls) > 0 {
			var calls []any
			for i, c := range reply.ToolCalls {
				calls = append(calls, map[string]any{"id": callID(i, c), "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": string(args(c))}})
			}
			msg["tool_calls"] = calls
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": rec.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
			"usage":   openaiUsage(reply.Usage), "service_tier": "default", "system_fingerprint": "fp_fake",
		})
		return
	}
	var req openaiRequest
	_ = json.Unmarshal(rec.Body, &req)
	s := startSSE(w)
	chunk := func(delta map[string]any, finish any) {
		s.send("", map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": rec.Model,
			"system_fingerprint": "fp_fake",
			"choices":            []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		})
	}
	// The role chunk opens the stream: content "" for text, null before tool calls.
	if reply.Text != "" || len(reply.ToolCalls) == 0 {
		chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	} else {
		chunk(map[string]any{"role": "assistant", "content": nil}, nil)
	}
	for i, c := range chunks(reply.Text) {
		if !pace(ctx, reply, i) {
			return
		}
		chunk(map[string]any{"content": c}, nil)
	}
	for i, c := range reply.ToolCalls {
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": callID(i, c), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil)
		for _, frag := range chunks(string(args(c))) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i,
				"function": map[string]any{"arguments": frag}}}}, nil)
		}
	}
	if reply.Truncate {
		return
	}
	chunk(map[string]any{}, finish)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		s.send("", map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": rec.Model,
			"system_fingerprint": "fp_fake", "choices": []any{}, "usage": openaiUsage(reply.Usage),
		})
	}
	s.send("", "[DONE]")
}
