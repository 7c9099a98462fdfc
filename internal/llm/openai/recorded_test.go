package openai_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/mynah-ai/mynah/internal/llm"
)

// TestRecordedStream replays real recorded traffic from the shared specs beside the
// repository (skipped in a plain clone) through the SDK and our accumulator.
func TestRecordedStream(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "specs", "llm", "openai-chat-stream-parallel-tool-calls.sse"))
	if os.IsNotExist(err) {
		t.Skip("shared specs not present beside the repository")
	}
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			t.Errorf("path %s", r.URL.Path)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(b)
	}))
	defer srv.Close()
	got, err := newModel(t, srv.URL+"/v1").Stream(t.Context(), llm.Request{Model: "m", Turns: []llm.Turn{llm.Text(llm.User, "x")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.ToolCalls) != 2 || got.ToolCalls[0].Name != "GetWeatherArgs" || got.ToolCalls[1].Name != "get_stock_price" ||
		string(got.ToolCalls[1].Arguments) != `{"ticker": "AAPL", "exchange": "NASDAQ"}` {
		t.Errorf("tool calls = %+v", got.ToolCalls)
	}
	if got.Usage.InputTokens != 149 || got.Usage.OutputTokens != 60 {
		t.Errorf("usage = %+v", got.Usage)
	}
}
