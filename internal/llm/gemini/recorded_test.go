package gemini_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

// TestRecordedStream replays real recorded traffic from the shared specs beside the
// repository (skipped in a plain clone).
func TestRecordedStream(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "specs", "llm")
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		t.Skip("shared specs not present beside the repository")
	}
	serve := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasSuffix(r.URL.Path, ":streamGenerateContent") || r.URL.Query().Get("alt") != "sse" {
				t.Errorf("request %s", r.URL)
			}
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(b)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	req := llm.Request{Model: "gemini-3-pro-preview", Turns: []llm.Turn{llm.Text(llm.User, "x")}}

	got, err := newModel(t, serve("gemini-stream-tool-call.gemini3.sse")).Stream(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.ToolCalls) != 1 {
		t.Fatalf("tool calls = %+v", got.ToolCalls)
	}
	c := got.ToolCalls[0]
	if c.ID != "call_0" || c.Name != "weather" || !strings.HasPrefix(base64.StdEncoding.EncodeToString(c.Signature), "EqUCCqICAb4") {
		t.Errorf("tool call = %+v", c)
	}
	if diff := cmp.Diff(json.RawMessage(`{"location":"San Francisco"}`), c.Arguments, llmtest.EquateJSON()); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}
	// Usage counts thinking tokens as output, as the other providers do.
	if diff := cmp.Diff(llm.Usage{InputTokens: 29, OutputTokens: 60}, got.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}

	var frags []string
	got, err = newModel(t, serve("gemini-stream-text.sse")).Stream(t.Context(), req, func(s string) { frags = append(frags, s) })
	if err != nil {
		t.Fatal(err)
	}
	if want := "There are **3** \"r\"s in strawberry.\n\nst**r**awbe**rr**y"; got.Text != want || len(frags) != 2 {
		t.Errorf("text = %q in %d fragments", got.Text, len(frags))
	}
	if got.StopReason != "stop" || got.Model != "gemini-3-pro-preview" {
		t.Errorf("stop %q model %q", got.StopReason, got.Model)
	}
}
