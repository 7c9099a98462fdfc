package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/llm/openai"
)

const testKey = "sk-test-secret-key"

func newModel(t *testing.T, baseURL string) *openai.Model {
	t.Helper()
	m, err := openai.New(openai.Config{APIKey: testKey, BaseURL: baseURL})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type call func(m *openai.Model, ctx context.Context, req llm.Request) (*llm.Response, []string, error)

var modes = map[string]call{
	"generate": func(m *openai.Model, ctx context.Context, req llm.Request) (*llm.Response, []string, error) {
		r, err := m.Generate(ctx, req)
		return r, nil, err
	},
	"stream": func(m *openai.Model, ctx context.Context, req llm.Request) (*llm.Response, []string, error) {
		var frags []string
		r, err := m.Stream(ctx, req, func(s string) { frags = append(frags, s) })
		return r, frags, err
	},
}

func TestNew(t *testing.T) {
	if _, err := openai.New(openai.Config{}); err == nil || !strings.Contains(err.Error(), "APIKey") {
		t.Errorf("New without key: err = %v, want one naming APIKey", err)
	}
	if _, err := openai.New(openai.Config{APIKey: "k", BaseURL: "not a url"}); err == nil {
		t.Error("New with a relative BaseURL: want error")
	}
}

func TestText(t *testing.T) {
	for name, do := range modes {
		for _, slash := range []string{"", "/"} {
			t.Run(name+"/base"+slash, func(t *testing.T) {
				srv := llmtest.NewOpenAI(t)
				srv.Push(llmtest.Reply{Text: "Hello there, world!", Usage: llm.Usage{InputTokens: 12, OutputTokens: 5, CachedTokens: 8}})
				m := newModel(t, srv.URL()+slash)
				got, frags, err := do(m, t.Context(), llm.Request{
					Model: "gpt-test", System: "be brief", MaxTokens: 50,
					Turns: []llm.Turn{llm.Text(llm.User, "hi")},
				})
				if err != nil {
					t.Fatal(err)
				}
				want := &llm.Response{Text: "Hello there, world!", StopReason: "stop", Model: "gpt-test",
					Usage: llm.Usage{InputTokens: 12, OutputTokens: 5, CachedTokens: 8}}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("response (-want +got):\n%s", diff)
				}
				if name == "stream" && (len(frags) < 2 || strings.Join(frags, "") != want.Text) {
					t.Errorf("fragments = %q, want several joining to %q", frags, want.Text)
				}
				reqs := srv.Requests()
				if len(reqs) != 1 {
					t.Fatalf("got %d requests", len(reqs))
				}
				r := reqs[0]
				if r.System != "be brief" || r.Model != "gpt-test" || r.Stream != (name == "stream") || !r.HasAPIKey {
					t.Errorf("recorded %+v", r)
				}
				if strings.Contains(r.Header.Get("Authorization"), testKey) {
					t.Error("recorded header leaks the key")
				}
				if diff := cmp.Diff([]llm.Turn{llm.Text(llm.User, "hi")}, r.Turns); diff != "" {
					t.Errorf("turns (-want +got):\n%s", diff)
				}
				var body map[string]any
				if err := json.Unmarshal(r.Body, &body); err != nil {
					t.Fatal(err)
				}
				if body["max_tokens"] != float64(50) {
					t.Errorf("max_tokens = %v, want 50 (custom base URL)", body["max_tokens"])
				}
				if name == "stream" {
					if diff := cmp.Diff(map[string]any{"include_usage": true}, body["stream_options"]); diff != "" {
						t.Errorf("stream_options (-want +got):\n%s", diff)
					}
				}
			})
		}
	}
}

var weather = llm.Tool{Name: "get_weather", Description: "Weather for a city",
	Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}

func TestToolRoundTrip(t *testing.T) {
	for name, do := range modes {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewOpenAI(t)
			call := llm.ToolCall{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Edinburgh"}`)}
			srv.Push(llmtest.Reply{ToolCalls: []llm.ToolCall{call}}, llmtest.Reply{Text: "It is raining."})
			m := newModel(t, srv.URL())
			req := llm.Request{Model: "gpt-test", Tools: []llm.Tool{weather},
				Turns: []llm.Turn{llm.Text(llm.User, "weather in Edinburgh?")}}
			got, _, err := do(m, t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]llm.ToolCall{call}, got.ToolCalls, jsonEq); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
			if got.StopReason != "tool_calls" {
				t.Errorf("stop reason = %q", got.StopReason)
			}
			req.Turns = append(req.Turns,
				llm.Turn{Role: llm.Assistant, Parts: []llm.Part{{ToolCall: &got.ToolCalls[0]}}},
				llm.Turn{Role: llm.ToolRole, Parts: []llm.Part{{ToolResult: &llm.ToolResult{CallID: "call_1", Name: "get_weather", Content: "rain"}}}})
			got, _, err = do(m, t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != "It is raining." {
				t.Errorf("text = %q", got.Text)
			}
			reqs := srv.Requests()
			if diff := cmp.Diff([]string{"get_weather"}, reqs[1].Tools); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			wantTurns := []llm.Turn{
				llm.Text(llm.User, "weather in Edinburgh?"),
				{Role: llm.Assistant, Parts: []llm.Part{{ToolCall: &call}}},
				{Role: llm.ToolRole, Parts: []llm.Part{{ToolResult: &llm.ToolResult{CallID: "call_1", Content: "rain"}}}},
			}
			if diff := cmp.Diff(wantTurns, reqs[1].Turns, jsonEq); diff != "" {
				t.Errorf("second request turns (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParallelToolCalls(t *testing.T) {
	for name, do := range modes {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewOpenAI(t)
			calls := []llm.ToolCall{
				{ID: "call_a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Edinburgh","country":"GB"}`)},
				{ID: "call_b", Name: "get_stock_price", Arguments: json.RawMessage(`{"ticker":"AAPL"}`)},
			}
			srv.Push(llmtest.Reply{Text: "Checking.", ToolCalls: calls})
			got, _, err := do(newModel(t, srv.URL()), t.Context(), llm.Request{Model: "m", Turns: []llm.Turn{llm.Text(llm.User, "x")}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(calls, got.ToolCalls, jsonEq); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
			if got.Text != "Checking." {
				t.Errorf("text = %q", got.Text)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	for name, do := range modes {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewOpenAI(t)
			srv.Push(
				llmtest.Reply{Status: 429, RetryAfter: "7", Message: "Rate limit reached"},
				llmtest.Reply{Status: 500, Message: "boom"},
				llmtest.Reply{Status: 400, Message: "bad thing"},
			)
			m := newModel(t, srv.URL())
			req := llm.Request{Model: "m", Turns: []llm.Turn{llm.Text(llm.User, "x")}}
			for _, want := range []*llm.Error{
				{Provider: "openai", Status: 429, RetryAfter: 7 * time.Second, Message: "Rate limit reached"},
				{Provider: "openai", Status: 500, Message: "boom"},
				{Provider: "openai", Status: 400, Message: "bad thing"},
			} {
				_, _, err := do(m, t.Context(), req)
				var got *llm.Error
				if !errors.As(err, &got) {
					t.Fatalf("err = %v, want *llm.Error", err)
				}
				if diff := cmp.Diff(want, got, cmpErr); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				if got.Retryable() != (want.Status != 400) {
					t.Errorf("Retryable() = %v for %d", got.Retryable(), want.Status)
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

// jsonEq compares JSON documents by value: SDKs re-encode tool arguments.
var jsonEq = cmp.Transformer("json", func(r json.RawMessage) any {
	var v any
	if err := json.Unmarshal(r, &v); err != nil {
		return string(r)
	}
	return v
})

var cmpErr = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Err" }, cmp.Ignore())

func TestRetryRecovers(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Push(llmtest.Reply{Status: 503}, llmtest.Reply{Text: "fine"})
	m := llm.WithRetry(newModel(t, srv.URL()), llm.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }})
	got, err := m.Stream(t.Context(), llm.Request{Model: "m", Turns: []llm.Turn{llm.Text(llm.User, "x")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "fine" {
		t.Errorf("text = %q", got.Text)
	}
}

func TestCancel(t *testing.T) {
	for name, do := range modes {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewOpenAI(t)
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
			err := <-errc
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			var le *llm.Error
			if errors.As(err, &le) {
				t.Errorf("cancellation reported as provider error %v", le)
			}
		})
	}
}

// The SDK's environment variables must not override explicit configuration.
func TestEnvironmentIgnored(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "env-key")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_ORG_ID", "org-env")
	srv := llmtest.NewOpenAI(t)
	if _, err := newModel(t, srv.URL()).Generate(t.Context(), llm.Request{Model: "m", Turns: []llm.Turn{llm.Text(llm.User, "x")}}); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[0]; r.Header.Get("OpenAI-Organization") != "" {
		t.Error("environment organisation was sent")
	}
}
