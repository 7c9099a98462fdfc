package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/anthropic"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

const testKey = "sk-ant-test-secret"

func newModel(t *testing.T, baseURL string) *anthropic.Model {
	t.Helper()
	m, err := anthropic.New(anthropic.Config{APIKey: testKey, BaseURL: baseURL})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type call func(m *anthropic.Model, ctx context.Context, req llm.Request) (*llm.Response, []string, error)

var modes = map[string]call{
	"generate": func(m *anthropic.Model, ctx context.Context, req llm.Request) (*llm.Response, []string, error) {
		r, err := m.Generate(ctx, req)
		return r, nil, err
	},
	"stream": func(m *anthropic.Model, ctx context.Context, req llm.Request) (*llm.Response, []string, error) {
		var frags []string
		r, err := m.Stream(ctx, req, func(s string) { frags = append(frags, s) })
		return r, frags, err
	},
}

func TestNew(t *testing.T) {
	if _, err := anthropic.New(anthropic.Config{}); err == nil || !strings.Contains(err.Error(), "APIKey") {
		t.Errorf("New without key: err = %v, want one naming APIKey", err)
	}
}

func body(t *testing.T, r llmtest.Recorded) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestText(t *testing.T) {
	for name, do := range modes {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewAnthropic(t)
			srv.Push(llmtest.Reply{Text: "Hello there!", Usage: llm.Usage{InputTokens: 377, OutputTokens: 6, CachedTokens: 300}})
			got, frags, err := do(newModel(t, srv.URL()), t.Context(), llm.Request{
				Model: "claude-test", System: "be brief", CacheSystem: true,
				Turns: []llm.Turn{llm.Text(llm.User, "hi"), llm.Text(llm.User, "there")},
			})
			if err != nil {
				t.Fatal(err)
			}
			want := &llm.Response{Text: "Hello there!", StopReason: "end_turn", Model: "claude-test",
				Usage: llm.Usage{InputTokens: 377, OutputTokens: 6, CachedTokens: 300}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if name == "stream" && (len(frags) < 2 || strings.Join(frags, "") != want.Text) {
				t.Errorf("fragments = %q", frags)
			}
			r := srv.Requests()[0]
			if r.System != "be brief" || !r.HasAPIKey || r.Header.Get("Anthropic-Version") == "" || r.Stream != (name == "stream") {
				t.Errorf("recorded %+v", r)
			}
			// Consecutive user turns are merged into one message.
			wantTurns := []llm.Turn{{Role: llm.User, Parts: []llm.Part{{Text: "hi"}, {Text: "there"}}}}
			if diff := cmp.Diff(wantTurns, r.Turns, jsonEq); diff != "" {
				t.Errorf("turns (-want +got):\n%s", diff)
			}
			b := body(t, r)
			if b["max_tokens"] != float64(anthropic.DefaultMaxTokens) {
				t.Errorf("max_tokens = %v", b["max_tokens"])
			}
			wantSystem := []any{map[string]any{"type": "text", "text": "be brief", "cache_control": map[string]any{"type": "ephemeral"}}}
			if diff := cmp.Diff(wantSystem, b["system"]); diff != "" {
				t.Errorf("system (-want +got):\n%s", diff)
			}
		})
	}
}

var weather = llm.Tool{Name: "get_weather", Description: "Weather for a city",
	Parameters: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}`)}

func TestToolRoundTrip(t *testing.T) {
	for name, do := range modes {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewAnthropic(t)
			call := llm.ToolCall{ID: "toolu_1", Name: "get_weather", Arguments: json.RawMessage(`{"location": "Paris"}`)}
			srv.Push(llmtest.Reply{Text: "I'll check.", ToolCalls: []llm.ToolCall{call}}, llmtest.Reply{Text: "Sunny."})
			m := newModel(t, srv.URL())
			req := llm.Request{Model: "claude-test", Tools: []llm.Tool{weather},
				Turns: []llm.Turn{llm.Text(llm.User, "weather in Paris?")}}
			got, _, err := do(m, t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]llm.ToolCall{call}, got.ToolCalls, jsonEq); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
			if got.StopReason != "tool_use" || got.Text != "I'll check." {
				t.Errorf("stop reason %q, text %q", got.StopReason, got.Text)
			}
			req.Turns = append(req.Turns,
				llm.Turn{Role: llm.Assistant, Parts: []llm.Part{{Text: got.Text}, {ToolCall: &got.ToolCalls[0]}}},
				llm.Turn{Role: llm.ToolRole, Parts: []llm.Part{{ToolResult: &llm.ToolResult{CallID: "toolu_1", Name: "get_weather", Content: "sun"}}}},
				llm.Text(llm.User, "and tomorrow?"))
			if got, _, err = do(m, t.Context(), req); err != nil {
				t.Fatal(err)
			}
			if got.Text != "Sunny." {
				t.Errorf("text = %q", got.Text)
			}
			r := srv.Requests()[1]
			if diff := cmp.Diff([]string{"get_weather"}, r.Tools); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			wantTurns := []llm.Turn{
				llm.Text(llm.User, "weather in Paris?"),
				{Role: llm.Assistant, Parts: []llm.Part{{Text: "I'll check."}, {ToolCall: &call}}},
				{Role: llm.User, Parts: []llm.Part{{ToolResult: &llm.ToolResult{CallID: "toolu_1", Content: "sun"}}, {Text: "and tomorrow?"}}},
			}
			if diff := cmp.Diff(wantTurns, r.Turns, jsonEq); diff != "" {
				t.Errorf("second request turns (-want +got):\n%s", diff)
			}
			tools := body(t, r)["tools"].([]any)
			wantTool := map[string]any{"name": "get_weather", "description": "Weather for a city", "input_schema": map[string]any{
				"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"}},
				"required": []any{"location"}, "additionalProperties": false}}
			if diff := cmp.Diff(wantTool, tools[0]); diff != "" {
				t.Errorf("tool (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParallelToolCalls(t *testing.T) {
	for name, do := range modes {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewAnthropic(t)
			calls := []llm.ToolCall{
				{ID: "toolu_a", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)},
				{ID: "toolu_b", Name: "get_time", Arguments: json.RawMessage(`{"zone":"Europe/Paris"}`)},
			}
			srv.Push(llmtest.Reply{ToolCalls: calls, Usage: llm.Usage{InputTokens: 10, OutputTokens: 65}})
			got, _, err := do(newModel(t, srv.URL()), t.Context(), llm.Request{Model: "m", Turns: []llm.Turn{llm.Text(llm.User, "x")}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(calls, got.ToolCalls, jsonEq); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(llm.Usage{InputTokens: 10, OutputTokens: 65}, got.Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
}

// jsonEq compares JSON documents by value: SDKs re-encode tool arguments.
var jsonEq = cmp.Transformer("json", func(r json.RawMessage) any {
	var v any
	if err := json.Unmarshal(r, &v); err != nil {
		return string(r)
	}
	return v
})

var cmpErr = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Err" }, cmp.Ignore())

func TestErrors(t *testing.T) {
	for name, do := range modes {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewAnthropic(t)
			srv.Push(
				llmtest.Reply{Status: 429, RetryAfter: "12", Message: "Number of requests exceeded"},
				llmtest.Reply{Status: 529, Message: "Overloaded"},
				llmtest.Reply{Status: 400, Message: "bad thing"},
			)
			m := newModel(t, srv.URL())
			req := llm.Request{Model: "m", Turns: []llm.Turn{llm.Text(llm.User, "x")}}
			for _, want := range []*llm.Error{
				{Provider: "anthropic", Status: 429, RetryAfter: 12 * time.Second, Message: "Number of requests exceeded"},
				{Provider: "anthropic", Status: 529, Message: "Overloaded"},
				{Provider: "anthropic", Status: 400, Message: "bad thing"},
			} {
				_, _, err := do(m, t.Context(), req)
				var got *llm.Error
				if !errors.As(err, &got) {
					t.Fatalf("err = %v, want *llm.Error", err)
				}
				if diff := cmp.Diff(want, got, cmpErr); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("error text leaks the key: %v", err)
				}
			}
			if n := len(srv.Requests()); n != 3 {
				t.Errorf("got %d requests, want 3 (SDK retries must be off)", n)
			}
		})
	}
}

func TestCancel(t *testing.T) {
	for name, do := range modes {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewAnthropic(t)
			srv.Push(llmtest.Reply{Text: "late", Delay: time.Hour})
			ctx, cancel := context.WithCancel(t.Context())
			errc := make(chan error, 1)
			go func() {
				_, _, err := do(newModel(t, srv.URL()), ctx, llm.Request{Model: "m", Turns: []llm.Turn{llm.Text(llm.User, "x")}})
				errc <- err
			}()
			if _, err := srv.WaitRequests(t.Context(), 1); err != nil {
				t.Fatal(err)
			}
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
		})
	}
}

// The SDK's environment variables must not override explicit configuration.
func TestEnvironmentIgnored(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "env-key")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1/")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Leak: yes")
	srv := llmtest.NewAnthropic(t)
	if _, err := newModel(t, srv.URL()).Generate(t.Context(), llm.Request{Model: "m", Turns: []llm.Turn{llm.Text(llm.User, "x")}}); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[0]; r.Header.Get("X-Leak") != "" {
		t.Error("environment headers were sent")
	}
}
