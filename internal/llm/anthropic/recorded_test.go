package anthropic_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
)

// TestRecordedStream replays real recorded traffic from the shared specs beside the
// repository (skipped in a plain clone).
func TestRecordedStream(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "specs", "llm", "anthropic-stream-tool-use.sse"))
	if os.IsNotExist(err) {
		t.Skip("shared specs not present beside the repository")
	}
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(b)
	}))
	defer srv.Close()
	var frags []string
	got, err := newModel(t, srv.URL).Stream(t.Context(), llm.Request{Model: "m", Turns: []llm.Turn{llm.Text(llm.User, "x")}},
		func(s string) { frags = append(frags, s) })
	if err != nil {
		t.Fatal(err)
	}
	want := &llm.Response{
		Text: "I'll check the current weather in Paris for you.",
		ToolCalls: []llm.ToolCall{{ID: "toolu_01NRLabsLyVHZPKxbKvkfSMn", Name: "get_weather",
			Arguments: json.RawMessage(`{"location": "Paris"}`)}},
		Usage:      llm.Usage{InputTokens: 377, OutputTokens: 65},
		StopReason: "tool_use",
		Model:      "claude-sonnet-4-20250514",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if len(frags) != 2 {
		t.Errorf("fragments = %q, want 2", frags)
	}
}

// An error event inside a 200 stream keeps its meaning: overloaded is retryable 529.
func TestStreamErrorEvent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"))
	}))
	defer srv.Close()
	_, err := newModel(t, srv.URL).Stream(t.Context(), llm.Request{Model: "m", Turns: []llm.Turn{llm.Text(llm.User, "x")}}, nil)
	var e *llm.Error
	if !errors.As(err, &e) || e.Status != 529 || e.Message != "Overloaded" || !e.Retryable() {
		t.Fatalf("err = %#v", err)
	}
}
