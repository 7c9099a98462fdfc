package llmtest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

// The recorded provider traffic lives in the shared specs beside the repository; a plain
// clone has none, and these tests skip.
var specs = filepath.Join("..", "..", "..", "..", "shared", "specs", "llm")

func readSpec(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(specs, name))
	if os.IsNotExist(err) {
		t.Skipf("%s not present beside the repository", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// frame is one SSE event reduced to its shape: the event name and the set of JSON paths
// with the type found there ("choices[].delta.content:string").
type frame struct {
	event string
	paths []string
}

func (f frame) String() string { return f.event + " " + strings.Join(f.paths, " ") }

func parseSSE(t *testing.T, b []byte) []frame {
	t.Helper()
	var frames []frame
	var event string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data := strings.TrimPrefix(line, "data: ")
			if data == "[DONE]" {
				frames = append(frames, frame{event: event, paths: []string{"[DONE]"}})
			} else {
				frames = append(frames, frame{event: event, paths: shape(t, []byte(data))})
			}
			event = ""
		}
	}
	return frames
}

func shape(t *testing.T, data []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("frame %s: %v", data, err)
	}
	set := map[string]bool{}
	walk(v, "", set)
	var out []string
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func walk(v any, path string, set map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		set[path+":object"] = true
		for k, e := range v {
			walk(e, path+"."+k, set)
		}
	case []any:
		set[path+":array"] = true
		for _, e := range v {
			walk(e, path+"[]", set)
		}
	case string:
		set[path+":string"] = true
	case float64:
		set[path+":number"] = true
	case bool:
		set[path+":bool"] = true
	case nil:
		set[path+":null"] = true
	}
}

// collapse merges runs of frames with the same shape, so the number of text or argument
// fragments does not matter.
func collapse(frames []frame) []frame {
	var out []frame
	for _, f := range frames {
		if n := len(out); n > 0 && out[n-1].event == f.event && slices.Equal(out[n-1].paths, f.paths) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// missing lists recorded paths absent from ours, except those containing an ignored
// fragment (fields the fake does not model).
func missing(ours, recorded []string, ignore []string) []string {
	var out []string
	for _, p := range recorded {
		if slices.Contains(ours, p) || slices.ContainsFunc(ignore, func(i string) bool { return strings.Contains(p, i) }) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// compareStreams checks that ours has the recording's sequence of frames (after
// collapsing fragment runs) and that every recorded path appears in our frame: the fake
// may add fields the current spec requires that older recordings lack.
func compareStreams(t *testing.T, ours, recorded []frame, ignore []string) {
	t.Helper()
	ours, recorded = collapse(ours), collapse(recorded)
	if len(ours) != len(recorded) {
		t.Fatalf("got %d frame kinds, recording has %d\nours:\n%s\nrecorded:\n%s",
			len(ours), len(recorded), list(ours), list(recorded))
	}
	for i := range ours {
		if ours[i].event != recorded[i].event {
			t.Errorf("frame %d: event %q, recording has %q", i, ours[i].event, recorded[i].event)
		}
		if m := missing(ours[i].paths, recorded[i].paths, ignore); len(m) > 0 {
			t.Errorf("frame %d (%s) lacks recorded paths %v\nours: %v", i, ours[i].event, m, ours[i].paths)
		}
	}
}

func list(frames []frame) string {
	var b strings.Builder
	for i, f := range frames {
		fmt.Fprintf(&b, "  %d %s\n", i, f)
	}
	return b.String()
}

func TestOpenAIStreamShape(t *testing.T) {
	tests := []struct {
		file  string
		reply llmtest.Reply
		// The fake always sends the role chunk alone, as the parallel recording does; the
		// single-call recording merges it with the first tool-call header. Such heads are
		// compared as unions of paths.
		headOurs, headRec int
	}{
		{"openai-chat-stream-parallel-tool-calls.sse", llmtest.Reply{ToolCalls: []llm.ToolCall{
			{ID: "call_1", Name: "GetWeatherArgs", Arguments: json.RawMessage(`{"city": "Edinburgh", "country": "GB", "units": "c"}`)},
			{ID: "call_2", Name: "get_stock_price", Arguments: json.RawMessage(`{"ticker": "AAPL", "exchange": "NASDAQ"}`)},
		}}, 0, 0},
		{"openai-chat-stream-tool-call.sse", llmtest.Reply{ToolCalls: []llm.ToolCall{
			{ID: "call_1", Name: "GetWeatherArgs", Arguments: json.RawMessage(`{"city":"Edinburgh","country":"UK","units":"c"}`)},
		}}, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			recorded := parseSSE(t, readSpec(t, tt.file))
			srv := llmtest.NewOpenAI(t)
			srv.Push(tt.reply)
			resp, body := post(t, srv.URL()+"/chat/completions", openaiAuth,
				`{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"x"}]}`)
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type = %q", ct)
			}
			ours := parseSSE(t, body)
			if len(ours) < tt.headOurs {
				t.Fatalf("got %d frames", len(ours))
			}
			compareStreams(t, ours[tt.headOurs:], recorded[tt.headRec:], nil)
			if m := missing(union(ours[:tt.headOurs]), union(recorded[:tt.headRec]), []string{".refusal"}); len(m) > 0 {
				t.Errorf("opening frames lack recorded paths %v", m)
			}
		})
	}
}

func union(frames []frame) []string {
	var out []string
	for _, f := range frames {
		out = append(out, f.paths...)
	}
	return out
}

func TestAnthropicStreamShape(t *testing.T) {
	tests := []struct {
		file  string
		reply llmtest.Reply
	}{
		{"anthropic-stream-tool-use.sse", llmtest.Reply{Text: "I'll check the current weather in Paris for you.",
			ToolCalls: []llm.ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: json.RawMessage(`{"location": "Paris"}`)}},
			Usage:     llm.Usage{InputTokens: 377, OutputTokens: 65}}},
		{"anthropic-stream-text.sse", llmtest.Reply{Text: "Hello there!", Usage: llm.Usage{InputTokens: 11, OutputTokens: 6}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			recorded := parseSSE(t, readSpec(t, tt.file))
			srv := llmtest.NewAnthropic(t)
			srv.Push(tt.reply)
			resp, body := post(t, srv.URL()+"/v1/messages", anthropicAuth,
				`{"model":"claude-sonnet-4","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"x"}]}`)
			if resp.Header.Get("Request-Id") == "" {
				t.Error("no request-id header")
			}
			ours := parseSSE(t, body)
			for i, f := range ours {
				if f.event == "" {
					t.Errorf("frame %d has no event: line", i)
				}
			}
			compareStreams(t, ours, recorded, nil)
		})
	}
}

// Fields of the Gemini recordings the fake does not model.
var geminiIgnore = []string{"thoughtsTokenCount", "avgLogprobs", "candidatesTokensDetails", "violations"}

func TestGeminiStreamShape(t *testing.T) {
	tests := []struct {
		file  string
		reply llmtest.Reply
	}{
		{"gemini-stream-tool-call.gemini3.sse", llmtest.Reply{ToolCalls: []llm.ToolCall{
			{Name: "weather", Arguments: json.RawMessage(`{"location":"San Francisco"}`)}}, Usage: llm.Usage{InputTokens: 29, OutputTokens: 15}}},
		{"gemini-stream-text.sse", llmtest.Reply{Text: `There are **3** "r"s in strawberry.`, Usage: llm.Usage{InputTokens: 9, OutputTokens: 23}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			recorded := parseSSE(t, readSpec(t, tt.file))
			srv := llmtest.NewGemini(t)
			srv.Push(tt.reply)
			_, body := post(t, srv.URL()+"/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse", geminiAuth,
				`{"contents":[{"role":"user","parts":[{"text":"x"}]}]}`)
			if bytes.Contains(body, []byte("[DONE]")) || bytes.Contains(body, []byte("event:")) {
				t.Error("Gemini streams have no [DONE] and no event: lines")
			}
			compareStreams(t, parseSSE(t, body), recorded, geminiIgnore)
		})
	}
}

func TestGeminiJSONShape(t *testing.T) {
	t.Run("function calls", func(t *testing.T) {
		recorded := shape(t, readSpec(t, "gemini-generate-content-function-calls.json"))
		srv := llmtest.NewGemini(t)
		srv.Push(llmtest.Reply{ToolCalls: []llm.ToolCall{
			{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Tokyo"}`)},
			{Name: "search_web", Arguments: json.RawMessage(`{"search_engine":"google","search_term":"current population of Tokyo"}`)},
		}, Usage: llm.Usage{InputTokens: 71, OutputTokens: 19}})
		_, body := post(t, srv.URL()+"/v1beta/models/gemini-2.0-flash:generateContent", geminiAuth,
			`{"contents":[{"role":"user","parts":[{"text":"x"}]}]}`)
		if m := missing(shape(t, body), recorded, geminiIgnore); len(m) > 0 {
			t.Errorf("response lacks recorded paths %v\n%s", m, body)
		}
	})
	t.Run("429", func(t *testing.T) {
		recorded := shape(t, readSpec(t, "gemini-error-429.json"))
		srv := llmtest.NewGemini(t)
		srv.Push(llmtest.Reply{Status: 429, RetryAfter: "34.4", Message: "You exceeded your current quota, please check your plan."})
		resp, body := post(t, srv.URL()+"/v1beta/models/g:generateContent", geminiAuth,
			`{"contents":[{"role":"user","parts":[{"text":"x"}]}]}`)
		if resp.StatusCode != 429 {
			t.Errorf("status = %d", resp.StatusCode)
		}
		if m := missing(shape(t, body), recorded, geminiIgnore); len(m) > 0 {
			t.Errorf("error lacks recorded paths %v\n%s", m, body)
		}
		if !bytes.Contains(body, []byte(`"retryDelay":"34.4s"`)) {
			t.Errorf("no RetryInfo 34.4s in %s", body)
		}
	})
}
