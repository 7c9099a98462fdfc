package openai

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
)

// specs is where the shared recorded provider traffic lives beside the repository.
var specs = filepath.Join("..", "..", "..", "..", "shared", "specs", "llm")

func feed(t *testing.T, frames []string) *llm.Response {
	t.Helper()
	var a accumulator
	for _, f := range frames {
		if f == "[DONE]" {
			break
		}
		var c chunk
		if err := json.Unmarshal([]byte(f), &c); err != nil {
			t.Fatalf("chunk %s: %v", f, err)
		}
		a.add(c)
	}
	return a.response()
}

func TestAccumulatorRecordedParallelCalls(t *testing.T) {
	f, err := os.Open(filepath.Join(specs, "openai-chat-stream-parallel-tool-calls.sse"))
	if os.IsNotExist(err) {
		t.Skip("shared specs not present beside the repository")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var frames []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			frames = append(frames, data)
		}
	}
	got := feed(t, frames)
	want := &llm.Response{
		ToolCalls: []llm.ToolCall{
			{ID: "call_JMW1whyEaYG438VE1OIflxA2", Name: "GetWeatherArgs",
				Arguments: json.RawMessage(`{"city": "Edinburgh", "country": "GB", "units": "c"}`)},
			{ID: "call_DNYTawLBoN8fj3KN6qU9N1Ou", Name: "get_stock_price",
				Arguments: json.RawMessage(`{"ticker": "AAPL", "exchange": "NASDAQ"}`)},
		},
		Usage:      llm.Usage{InputTokens: 149, OutputTokens: 60},
		StopReason: "tool_calls",
		Model:      "gpt-4o-2024-08-06",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

// Some OpenAI-compatible servers send each parallel call whole, all at index 0.
func TestAccumulatorSameIndexDistinctIDs(t *testing.T) {
	frames := []string{
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"llama","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_x","type":"function","function":{"name":"a","arguments":"{\"q\":1}"}}]},"finish_reason":null}]}`,
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"llama","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_y","type":"function","function":{"name":"b","arguments":"{}"}}]},"finish_reason":null}]}`,
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"llama","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	}
	got := feed(t, frames)
	want := []llm.ToolCall{
		{ID: "call_x", Name: "a", Arguments: json.RawMessage(`{"q":1}`)},
		{ID: "call_y", Name: "b", Arguments: json.RawMessage(`{}`)},
	}
	if diff := cmp.Diff(want, got.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
}
