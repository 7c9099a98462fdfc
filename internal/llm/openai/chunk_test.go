package openai

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
)

// sdkChunk is what the SDK's own chunk type reads of b, in chunk's terms: what the
// accumulator read before chunk existed.
func sdkChunk(t *testing.T, b []byte) (chunk, error) {
	t.Helper()
	var c openai.ChatCompletionChunk
	if err := json.Unmarshal(b, &c); err != nil {
		return chunk{}, err
	}
	out := chunk{Model: c.Model, HasUsage: c.JSON.Usage.Valid()}
	if out.HasUsage {
		out.Usage = chunkUsage{c.Usage.PromptTokens, c.Usage.CompletionTokens, c.Usage.PromptTokensDetails.CachedTokens}
	}
	for _, ch := range c.Choices {
		cc := chunkChoice{Index: ch.Index, Content: ch.Delta.Content, FinishReason: ch.FinishReason}
		for _, tc := range ch.Delta.ToolCalls {
			cc.ToolCalls = append(cc.ToolCalls, chunkToolCall{tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments})
		}
		out.Choices = append(out.Choices, cc)
	}
	return out, nil
}

// recordedFrames are the data lines of the shared recorded Chat Completions streams.
func recordedFrames(t *testing.T) []string {
	var frames []string
	for _, name := range []string{"openai-chat-stream-parallel-tool-calls.sse", "openai-chat-stream-tool-call.sse"} {
		f, err := os.Open(filepath.Join(specs, name))
		if os.IsNotExist(err) {
			t.Log("shared specs not present beside the repository")
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "[DONE]" {
				frames = append(frames, data)
			}
		}
		f.Close()
	}
	return frames
}

// TestChunkAsSDK: chunk reads what the SDK's chunk type read, from recorded streams and
// from chunks as odd as servers may send.
func TestChunkAsSDK(t *testing.T) {
	frames := append(recordedFrames(t),
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","system_fingerprint":"fp","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"content":"line\none \"quoted\" \\ back\/slash \u00e9 \ud83d\udc26 \t tab"},"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"content":"lone \ud83d and \udc26 and \ud83d\u0041 end"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"plain é 日本 🐦"}}]}`,
		`{"choices":[],"usage":{"prompt_tokens":149,"completion_tokens":60,"total_tokens":209,"prompt_tokens_details":{"cached_tokens":128,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`,
		`{"choices":[],"usage":null}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}`,
		`{"choices":[{"index":1,"delta":{"content":"second"}},{"index":0,"delta":{"content":"first"}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"f","arguments":"{\"a\":"}},{"index":2,"function":{"arguments":"1}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"content":null,"tool_calls":null},"finish_reason":null}],"model":null}`,
		`  { "model" : "spaced" , "choices" : [ { "index" : 0 , "delta" : { "content" : "x" } , "finish_reason" : "length" } ] }  `,
		`{"model":"m","extra":{"nested":[1,2.5e3,-0.1,true,false,null,"s\"}",{"a":[]}]},"choices":[{"index":0,"delta":{"content":"after"}}]}`,
		`{}`,
		// Fields of other types than the API's, read as the SDK reads them.
		`{"model":7,"choices":[{"index":0,"delta":{"content":"x"}}]}`,
		`{"model":true,"choices":[{"index":"1","delta":{"content":["x", {"y": null}]},"finish_reason":1}]}`,
		`{"choices":{"index":0},"usage":[1],"model":"m"}`,
		`{"choices":[{"index":0.0,"delta":{"tool_calls":{"index":0}}}],"usage":{"prompt_tokens":"3","completion_tokens":2.7}}`,
		`{"choices":[null,{"index":0,"delta":{"tool_calls":[null,{"id":"c","function":"f"},{"index":"x","id":5,"function":{"name":false,"arguments":{"a":1}}}]}}]}`,
		`{"choices":[{"index":-2,"delta":{"content":{"text":"x"}},"finish_reason":null}],"usage":{"prompt_tokens":1e2,"prompt_tokens_details":null}}`,
		`{"choices":[],"usage":{}}`,
		`{"choices":[],"usage":"none"}`,
	)
	for _, f := range frames {
		want, err := sdkChunk(t, []byte(f))
		if err != nil {
			t.Fatalf("SDK: %s: %v", f, err)
		}
		var got chunk
		if err := json.Unmarshal([]byte(f), &got); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-SDK +chunk):\n%s", f, diff)
		}
	}
}

// TestChunkMalformed: a chunk that is no JSON object is an error (the SDK's stream hands
// only valid JSON to chunk; the reader stops at anything it cannot read all the same).
func TestChunkMalformed(t *testing.T) {
	for _, f := range []string{`[]`, `"x"`, `null`, ``, `{"model":"m"`, `{"model" "m"}`, `{"model":"\q"}`, `{"a":tru}`, `{"model":"\u12"}`} {
		var got chunk
		if err := got.UnmarshalJSON([]byte(f)); err == nil {
			t.Errorf("%s: no error", f)
		}
	}
}
