package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
)

// ModelCase is one llm.Model adapter, tested by TestModel against its fake server: the
// adapters are tested alike without importing each other. The fields from TextStop on
// say, as data, where the provider's wire format and answers differ.
type ModelCase struct {
	Provider string           // the adapter's llm.Error.Provider
	Server   func(TB) *Server // starts the provider's fake: NewOpenAI, NewAnthropic or NewGemini
	// New builds the adapter for apiKey and baseURL, with hc as its HTTP client (nil: the
	// adapter's default).
	New func(apiKey, baseURL string, hc *http.Client) (llm.Model, error)
	Key string // the API key TestModel configures, which no error or recorded header may show
	// Env holds environment variables the provider's SDK would read (key, base URL,
	// organisation, extra headers); TestModel sets them where it checks they are ignored.
	Env        map[string]string
	EnvHeaders []string // headers Env would make the SDK send; none may be sent
	Headers    []string // headers every request must carry (such as Anthropic-Version)

	TextStop string // Response.StopReason of a text answer
	ToolStop string // Response.StopReason of an answer calling tools

	// How the fake records the turns the adapter sends.
	Roles       map[llm.Role]llm.Role // the wire's role for a turn's role, where it differs
	MergeTurns  bool                  // consecutive turns of one wire role become one message
	ResultNames bool                  // tool results carry the tool's name, taken from the call when unset
	// NoCallIDs says the provider's tool calls have no id: the fake sends them without,
	// and the adapter must number them call_0, call_1, … in the order of the response.
	NoCallIDs bool
	// Signatures says tool calls carry a signature (Gemini's thoughtSignature) that the
	// adapter returns and echoes back.
	Signatures bool
	// Images and Audio list the media types the adapter sends as media, as the fake
	// records them; media of other types must arrive as llm.MediaPlaceholder text.
	Images []string
	Audio  []string

	// Places in the JSON request body, as dot-separated keys and array indexes.
	MaxTokens        string // the output token limit
	DefaultMaxTokens int    // sent when Request.MaxTokens is 0; 0: no limit is sent
	Tool             string // the first declared tool: an object of name, description and ToolSchema
	ToolSchema       string // the key of Tool's object that holds the parameters' JSON Schema
	// Body maps places to the JSON the body of TestModel's text request (System "be
	// brief" with CacheSystem) has there; StreamBody adds those of streaming calls.
	Body       map[string]string
	StreamBody map[string]string
}

// TestModel checks that c's adapter keeps the llm.Model contract, each call both
// generated and streamed: construction errors; text answers with their usage and the
// wire shape of their requests (system text, roles, max tokens); images and audio in
// user turns, in order among the text, or their placeholders; tool calls, parallel
// ones and a tool round trip with the tools' wire shape; provider errors as classified
// *llm.Error values without the key; broken 200 answers (an HTML page, a stream that
// is empty, not one or cut off) as retryable errors; recovery under llm.WithRetry;
// cancellation; deadlines (llm.WithDeadlines) when the provider stalls; and that the
// provider's environment variables are ignored.
func TestModel(t *testing.T, c ModelCase) {
	t.Run("New", c.testNew)
	for _, stream := range []bool{false, true} {
		mode := "generate"
		if stream {
			mode = "stream"
		}
		t.Run("Text/"+mode, func(t *testing.T) {
			for _, suffix := range []string{"", "/"} {
				t.Run("base"+suffix, func(t *testing.T) { c.testText(t, stream, suffix) })
			}
		})
		t.Run("DefaultMaxTokens/"+mode, func(t *testing.T) { c.testDefaultMaxTokens(t, stream) })
		t.Run("Media/"+mode, func(t *testing.T) { c.testMedia(t, stream) })
		// Tool calls come alone and after text.
		for _, tt := range []struct{ name, text string }{{"alone", ""}, {"after text", "Let me look."}} {
			t.Run("ToolRoundTrip/"+mode+"/"+tt.name, func(t *testing.T) { c.testToolRoundTrip(t, stream, tt.text) })
			t.Run("ParallelToolCalls/"+mode+"/"+tt.name, func(t *testing.T) { c.testParallelToolCalls(t, stream, tt.text) })
		}
		t.Run("Errors/"+mode, func(t *testing.T) { c.testErrors(t, stream) })
		t.Run("Malformed/"+mode, func(t *testing.T) { c.testMalformed(t, stream) })
		t.Run("Retry/"+mode, func(t *testing.T) { c.testRetry(t, stream) })
		t.Run("Cancel/"+mode, func(t *testing.T) { c.testCancel(t, stream) })
		t.Run("Deadlines/"+mode, func(t *testing.T) { c.testDeadlines(t, stream) })
		t.Run("EnvironmentIgnored/"+mode, func(t *testing.T) { c.testEnvironment(t, stream) })
	}
}

// call sends req through m.Generate, or m.Stream collecting the text fragments.
func call(ctx context.Context, m llm.Model, stream bool, req llm.Request) (*llm.Response, []string, error) {
	if !stream {
		resp, err := m.Generate(ctx, req)
		return resp, nil, err
	}
	var frags []string
	resp, err := m.Stream(ctx, req, func(s string) { frags = append(frags, s) })
	return resp, frags, err
}

// start starts c's fake and an adapter pointed at its URL with suffix appended.
func (c ModelCase) start(t *testing.T, suffix string) (*Server, llm.Model) {
	t.Helper()
	srv := c.Server(t)
	m, err := c.New(c.Key, srv.URL()+suffix, nil)
	if err != nil {
		t.Fatal(err)
	}
	return srv, m
}

func userText(text string) llm.Request {
	return llm.Request{Model: "test-model", Turns: []llm.Turn{llm.Text(llm.User, text)}}
}

func (c ModelCase) testText(t *testing.T, stream bool, suffix string) {
	srv, m := c.start(t, suffix)
	usage := llm.Usage{InputTokens: 377, OutputTokens: 6, CachedTokens: 300}
	srv.Push(Reply{Text: "There are 3 r's in strawberry.", Usage: usage})
	req := llm.Request{Model: "test-model", System: "be brief", CacheSystem: true, MaxTokens: 100,
		Turns: []llm.Turn{llm.Text(llm.User, "how many"), llm.Text(llm.User, "r's?")}}
	got, frags, err := call(t.Context(), m, stream, req)
	if err != nil {
		t.Fatal(err)
	}
	want := &llm.Response{Text: "There are 3 r's in strawberry.", StopReason: c.TextStop, Model: req.Model, Usage: usage}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("response (-got +want):\n%s", diff)
	}
	if stream && (len(frags) < 2 || strings.Join(frags, "") != want.Text) {
		t.Errorf("fragments = %q, want several joining to %q", frags, want.Text)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	c.checkRecorded(t, r, req.Model, stream)
	if r.System != "be brief" {
		t.Errorf("system = %q, want %q", r.System, "be brief")
	}
	if diff := cmp.Diff(r.Turns, c.wire(req.Turns)); diff != "" {
		t.Errorf("turns (-got +want):\n%s", diff)
	}
	body := decode(t, r)
	checkAt(t, body, c.MaxTokens, "100")
	for path, want := range c.Body {
		checkAt(t, body, path, want)
	}
	for path, want := range c.StreamBody {
		if stream {
			checkAt(t, body, path, want)
		} else if v, ok := at(body, path); ok {
			t.Errorf("%s = %v in a call that does not stream", path, v)
		}
	}
}

// checkRecorded checks what every request carries: model, stream flag, the key (sent,
// never recorded in the clear) and c.Headers.
func (c ModelCase) checkRecorded(t *testing.T, r Recorded, model string, stream bool) {
	t.Helper()
	if r.Model != model || r.Stream != stream || !r.HasAPIKey {
		t.Errorf("recorded model %q, stream %v, key sent %v; want %q, %v, true", r.Model, r.Stream, r.HasAPIKey, model, stream)
	}
	for _, h := range c.Headers {
		if r.Header.Get(h) == "" {
			t.Errorf("request lacks the %s header", h)
		}
	}
	if strings.Contains(fmt.Sprint(r.Header, r.Query), c.Key) || strings.Contains(string(r.Body), c.Key) {
		t.Error("recorded request shows the key")
	}
}

func (c ModelCase) testDefaultMaxTokens(t *testing.T, stream bool) {
	srv, m := c.start(t, "")
	if _, _, err := call(t.Context(), m, stream, userText("x")); err != nil {
		t.Fatal(err)
	}
	body := decode(t, srv.Requests()[0])
	if c.DefaultMaxTokens != 0 {
		checkAt(t, body, c.MaxTokens, strconv.Itoa(c.DefaultMaxTokens))
	} else if v, ok := at(body, c.MaxTokens); ok {
		t.Errorf("%s = %v, want none sent", c.MaxTokens, v)
	}
}

// wire returns turns as c's fake records them.
func (c ModelCase) wire(turns []llm.Turn) []llm.Turn {
	names := map[string]string{}
	for _, t := range turns {
		for _, p := range t.Parts {
			if p.ToolCall != nil {
				names[p.ToolCall.ID] = p.ToolCall.Name
			}
		}
	}
	var out []llm.Turn
	for _, t := range turns {
		role := t.Role
		if r, ok := c.Roles[role]; ok {
			role = r
		}
		var parts []llm.Part
		for _, p := range t.Parts {
			if p.Image != nil || p.Audio != nil {
				p = c.wireMedia(p)
			}
			if p.ToolResult != nil {
				r := *p.ToolResult
				r.Name = ""
				if c.ResultNames {
					r.Name = p.ToolResult.Name
					if r.Name == "" {
						r.Name = names[r.CallID]
					}
				}
				p = llm.Part{ToolResult: &r}
			}
			parts = append(parts, p)
		}
		if n := len(out); c.MergeTurns && n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, parts...)
			continue
		}
		out = append(out, llm.Turn{Role: role, Parts: parts})
	}
	return out
}

// decode returns r's body as decoded JSON.
func decode(t *testing.T, r Recorded) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return v
}

// at returns the value at path in a decoded JSON document: dot-separated object keys
// and array indexes.
func at(doc any, path string) (any, bool) {
	for _, k := range strings.Split(path, ".") {
		switch v := doc.(type) {
		case map[string]any:
			var ok bool
			if doc, ok = v[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			doc = v[i]
		default:
			return nil, false
		}
	}
	return doc, true
}

// checkAt checks that doc has the JSON document want at path.
func checkAt(t *testing.T, doc any, path, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %s at %s: %v", want, path, err)
	}
	got, ok := at(doc, path)
	if !ok {
		t.Errorf("request body has nothing at %s, want %s", path, want)
		return
	}
	if diff := cmp.Diff(got, w); diff != "" {
		t.Errorf("request body at %s (-got +want):\n%s", path, diff)
	}
}

// EquateJSON returns an option comparing json.RawMessage values as decoded JSON: SDKs
// re-encode tool arguments.
func EquateJSON() cmp.Option {
	return cmp.Transformer("json", func(r json.RawMessage) any {
		var v any
		if err := json.Unmarshal(r, &v); err != nil {
			return string(r)
		}
		return v
	})
}
