package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/gemini"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

const testKey = "AIza-test-secret"

func newModel(t *testing.T, baseURL string) *gemini.Model {
	t.Helper()
	m, err := gemini.New(gemini.Config{APIKey: testKey, BaseURL: baseURL})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type call func(m *gemini.Model, ctx context.Context, req llm.Request) (*llm.Response, []string, error)

var modes = map[string]call{
	"generate": func(m *gemini.Model, ctx context.Context, req llm.Request) (*llm.Response, []string, error) {
		r, err := m.Generate(ctx, req)
		return r, nil, err
	},
	"stream": func(m *gemini.Model, ctx context.Context, req llm.Request) (*llm.Response, []string, error) {
		var frags []string
		r, err := m.Stream(ctx, req, func(s string) { frags = append(frags, s) })
		return r, frags, err
	},
}

var jsonEq = cmp.Transformer("json", func(r json.RawMessage) any {
	var v any
	if err := json.Unmarshal(r, &v); err != nil {
		return string(r)
	}
	return v
})

var cmpErr = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Err" }, cmp.Ignore())

func TestNew(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "env-key")
	if _, err := gemini.New(gemini.Config{}); err == nil || !strings.Contains(err.Error(), "APIKey") {
		t.Errorf("New without key: err = %v, want one naming APIKey", err)
	}
}

type keyCheck struct {
	next http.RoundTripper
	bad  atomic.Int32
}

func (k *keyCheck) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("X-Goog-Api-Key") != testKey {
		k.bad.Add(1)
	}
	return k.next.RoundTrip(r)
}

// The environment genai reads must not override explicit configuration.
func TestEnvironmentIgnored(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "env-key")
	t.Setenv("GOOGLE_API_KEY", "env-key")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:1/")
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
	srv := llmtest.NewGemini(t)
	kc := &keyCheck{next: http.DefaultTransport}
	hc := &http.Client{Transport: kc}
	m, err := gemini.New(gemini.Config{APIKey: testKey, BaseURL: srv.URL(), HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(t.Context(), llm.Request{Model: "gemini-test", Turns: []llm.Turn{llm.Text(llm.User, "x")}}); err != nil {
		t.Fatal(err)
	}
	if kc.bad.Load() != 0 {
		t.Error("request did not carry the configured key")
	}
	if hc.Transport != kc {
		t.Error("New modified the caller's HTTP client")
	}
}

func TestText(t *testing.T) {
	for name, do := range modes {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewGemini(t)
			srv.Push(llmtest.Reply{Text: "There are 3 r's in strawberry.", Usage: llm.Usage{InputTokens: 9, OutputTokens: 23, CachedTokens: 4}})
			got, frags, err := do(newModel(t, srv.URL()), t.Context(), llm.Request{
				Model: "gemini-test", System: "be brief", MaxTokens: 100,
				Turns: []llm.Turn{llm.Text(llm.User, "how many"), llm.Text(llm.User, "r's?")},
			})
			if err != nil {
				t.Fatal(err)
			}
			want := &llm.Response{Text: "There are 3 r's in strawberry.", StopReason: "stop", Model: "gemini-test",
				Usage: llm.Usage{InputTokens: 9, OutputTokens: 23, CachedTokens: 4}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if name == "stream" && (len(frags) < 2 || strings.Join(frags, "") != want.Text) {
				t.Errorf("fragments = %q", frags)
			}
			r := srv.Requests()[0]
			if r.System != "be brief" || r.Model != "gemini-test" || !r.HasAPIKey || r.Stream != (name == "stream") {
				t.Errorf("recorded %+v", r)
			}
			wantTurns := []llm.Turn{{Role: "user", Parts: []llm.Part{{Text: "how many"}, {Text: "r's?"}}}}
			if diff := cmp.Diff(wantTurns, r.Turns); diff != "" {
				t.Errorf("turns (-want +got):\n%s", diff)
			}
			if !strings.Contains(string(r.Body), `"maxOutputTokens":100`) {
				t.Errorf("body lacks maxOutputTokens: %s", r.Body)
			}
		})
	}
}

var weather = llm.Tool{Name: "weather", Description: "Weather for a place",
	Parameters: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`)}

func TestToolRoundTrip(t *testing.T) {
	for name, do := range modes {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewGemini(t)
			srv.Push(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: json.RawMessage(`{"location":"San Francisco"}`),
				Signature: []byte("sig-1")}}}, llmtest.Reply{Text: "Foggy."})
			m := newModel(t, srv.URL())
			req := llm.Request{Model: "gemini-test", Tools: []llm.Tool{weather},
				Turns: []llm.Turn{llm.Text(llm.User, "weather in SF?")}}
			got, _, err := do(m, t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			call := llm.ToolCall{ID: "call_0", Name: "weather", Arguments: json.RawMessage(`{"location":"San Francisco"}`), Signature: []byte("sig-1")}
			if diff := cmp.Diff([]llm.ToolCall{call}, got.ToolCalls, jsonEq); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
			if got.StopReason != "stop" {
				t.Errorf("stop reason = %q", got.StopReason)
			}
			req.Turns = append(req.Turns,
				llm.Turn{Role: llm.Assistant, Parts: []llm.Part{{ToolCall: &got.ToolCalls[0]}}},
				llm.Turn{Role: llm.ToolRole, Parts: []llm.Part{{ToolResult: &llm.ToolResult{CallID: "call_0", Content: "fog"}}}}, // Name from the call
				llm.Text(llm.User, "thanks"))
			if got, _, err = do(m, t.Context(), req); err != nil {
				t.Fatal(err)
			}
			if got.Text != "Foggy." {
				t.Errorf("text = %q", got.Text)
			}
			r := srv.Requests()[1]
			if diff := cmp.Diff([]string{"weather"}, r.Tools); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			wantTurns := []llm.Turn{
				llm.Text("user", "weather in SF?"),
				{Role: "model", Parts: []llm.Part{{ToolCall: &call}}},
				{Role: "user", Parts: []llm.Part{{ToolResult: &llm.ToolResult{CallID: "call_0", Name: "weather", Content: "fog"}}, {Text: "thanks"}}},
			}
			if diff := cmp.Diff(wantTurns, r.Turns, jsonEq); diff != "" {
				t.Errorf("second request turns (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParallelToolCalls(t *testing.T) {
	for name, do := range modes {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewGemini(t)
			srv.Push(llmtest.Reply{Text: "Let me look.", ToolCalls: []llm.ToolCall{
				{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Tokyo"}`)},
				{Name: "search_web", Arguments: json.RawMessage(`{"search_term":"population of Tokyo"}`)},
			}})
			got, _, err := do(newModel(t, srv.URL()), t.Context(), llm.Request{Model: "m", Turns: []llm.Turn{llm.Text(llm.User, "x")}})
			if err != nil {
				t.Fatal(err)
			}
			want := []llm.ToolCall{
				{ID: "call_0", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Tokyo"}`), Signature: []byte("fake-signature-1")},
				{ID: "call_1", Name: "search_web", Arguments: json.RawMessage(`{"search_term":"population of Tokyo"}`)},
			}
			if diff := cmp.Diff(want, got.ToolCalls, jsonEq); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
			if got.Text != "Let me look." {
				t.Errorf("text = %q", got.Text)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	for name, do := range modes {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewGemini(t)
			srv.Push(
				llmtest.Reply{Status: 429, RetryAfter: "34.4", Message: "You exceeded your current quota"},
				llmtest.Reply{Status: 500, Message: "internal"},
				llmtest.Reply{Status: 400, Message: "bad thing"},
			)
			m := newModel(t, srv.URL())
			req := llm.Request{Model: "m", Turns: []llm.Turn{llm.Text(llm.User, "x")}}
			for _, want := range []*llm.Error{
				{Provider: "gemini", Status: 429, RetryAfter: 34400 * time.Millisecond, Message: "You exceeded your current quota"},
				{Provider: "gemini", Status: 500, Message: "internal"},
				{Provider: "gemini", Status: 400, Message: "bad thing"},
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
			srv := llmtest.NewGemini(t)
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
