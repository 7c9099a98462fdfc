package llmtest

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
)

// weatherTool is the tool TestModel declares.
func weatherTool() llm.Tool {
	return llm.Tool{Name: "get_weather", Description: "Weather for a city",
		Parameters: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}`)}
}

// toolCalls returns the calls to script in a reply and those the adapter must return
// for them: numbered when the provider has no ids, without signatures when it has none.
func (c ModelCase) toolCalls(calls ...llm.ToolCall) (reply, want []llm.ToolCall) {
	for i, call := range calls {
		w := call
		if c.NoCallIDs {
			call.ID, w.ID = "", fmt.Sprintf("call_%d", i)
		}
		if !c.Signatures {
			w.Signature = nil
		}
		reply, want = append(reply, call), append(want, w)
	}
	return reply, want
}

func (c ModelCase) testToolRoundTrip(t *testing.T, stream bool, text string) {
	srv, m := c.start(t, "")
	reply, want := c.toolCalls(llm.ToolCall{ID: "call_1", Name: "get_weather",
		Arguments: json.RawMessage(`{"location": "Paris"}`), Signature: []byte("sig-1")})
	srv.Push(Reply{Text: text, ToolCalls: reply}, Reply{Text: "Sunny."})
	req := llm.Request{Model: "test-model", Tools: []llm.Tool{weatherTool()},
		Turns: []llm.Turn{llm.Text(llm.User, "weather in Paris?")}}
	got, _, err := call(t.Context(), m, stream, req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got.ToolCalls, want, EquateJSON()); diff != "" {
		t.Fatalf("tool calls (-got +want):\n%s", diff)
	}
	if got.StopReason != c.ToolStop || got.Text != text {
		t.Errorf("stop reason %q, text %q; want %q, %q", got.StopReason, got.Text, c.ToolStop, text)
	}
	answer := llm.Turn{Role: llm.Assistant}
	if got.Text != "" {
		answer.Parts = append(answer.Parts, llm.Part{Text: got.Text})
	}
	answer.Parts = append(answer.Parts, llm.Part{ToolCall: &got.ToolCalls[0]})
	// The result leaves Name unset: adapters whose wire needs it take it from the call.
	req.Turns = append(req.Turns, answer,
		llm.Turn{Role: llm.ToolRole, Parts: []llm.Part{{ToolResult: &llm.ToolResult{CallID: want[0].ID, Content: "sun"}}}},
		llm.Text(llm.User, "and tomorrow?"))
	if got, _, err = call(t.Context(), m, stream, req); err != nil {
		t.Fatal(err)
	}
	if got.Text != "Sunny." {
		t.Errorf("text = %q, want %q", got.Text, "Sunny.")
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d requests, want 2", len(reqs))
	}
	if diff := cmp.Diff(reqs[1].Turns, c.wire(req.Turns), EquateJSON()); diff != "" {
		t.Errorf("second request turns (-got +want):\n%s", diff)
	}
	tool := weatherTool()
	wantTool, _ := json.Marshal(map[string]any{"name": tool.Name, "description": tool.Description, c.ToolSchema: tool.Parameters})
	for i, r := range reqs {
		if diff := cmp.Diff(r.Tools, []string{"get_weather"}); diff != "" {
			t.Errorf("request %d tools (-got +want):\n%s", i, diff)
		}
		checkAt(t, decode(t, r), c.Tool, string(wantTool))
	}
}

func (c ModelCase) testParallelToolCalls(t *testing.T, stream bool, text string) {
	srv, m := c.start(t, "")
	reply, want := c.toolCalls(
		llm.ToolCall{ID: "call_a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Tokyo","country":"JP"}`)},
		llm.ToolCall{ID: "call_b", Name: "search_web", Arguments: json.RawMessage(`{"search_term":"population of Tokyo"}`)})
	if c.Signatures {
		// The fake signs the first call of an unsigned reply, numbered by request.
		want[0].Signature = []byte("fake-signature-1")
	}
	usage := llm.Usage{InputTokens: 10, OutputTokens: 65}
	srv.Push(Reply{Text: text, ToolCalls: reply, Usage: usage})
	got, _, err := call(t.Context(), m, stream, userText("x"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got.ToolCalls, want, EquateJSON()); diff != "" {
		t.Errorf("tool calls (-got +want):\n%s", diff)
	}
	if got.Text != text || got.StopReason != c.ToolStop {
		t.Errorf("text %q, stop reason %q; want %q, %q", got.Text, got.StopReason, text, c.ToolStop)
	}
	if diff := cmp.Diff(got.Usage, usage); diff != "" {
		t.Errorf("usage (-got +want):\n%s", diff)
	}
}
