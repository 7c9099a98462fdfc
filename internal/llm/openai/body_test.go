package openai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/mynah-ai/mynah/internal/llm"
)

// TestBodyAsSDK: for representative requests, Model sends the bytes and headers the
// SDK sent when it encoded the request itself (sdkParams is the translation Model made
// into the SDK's params then): streaming (the SDK adding stream_options and "stream")
// and not, to OpenAI (max_completion_tokens) and to a compatible server (max_tokens).
func TestBodyAsSDK(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	tool := llm.Tool{Name: "search", Description: "Search the <web> & more", Parameters: json.RawMessage(`{
		"type": "object", "properties": {"q": {"type": "string", "description": "a <query>"}}, "required": ["q"]}`)}
	tools := []llm.Tool{tool, {Name: "now", Description: "the time"}, {Name: "x", Parameters: json.RawMessage(`{}`)}}
	odd := "quote \" back \\ nl \n cr \r tab \t ctl \x01\x1f\b\f del \x7f html <&> é 日本 🐦 \u2028\u2029 bad \xff\xfe end"
	user := func(parts ...llm.Part) llm.Turn { return llm.Turn{Role: llm.User, Parts: parts} }
	asst := func(parts ...llm.Part) llm.Turn { return llm.Turn{Role: llm.Assistant, Parts: parts} }
	call := func(id, name, args string) llm.Part {
		return llm.Part{ToolCall: &llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}}
	}
	result := func(id, content string, isErr bool) llm.Part {
		return llm.Part{ToolResult: &llm.ToolResult{CallID: id, Name: "search", Content: content, IsError: isErr}}
	}
	cases := map[string]llm.Request{
		"text": {Model: "gpt-4o-mini", Turns: []llm.Turn{llm.Text(llm.User, "hello")}},
		"system": {Model: "gpt-4o-mini", System: "be brief", Context: "the user is Ann",
			Turns: []llm.Turn{llm.Text(llm.User, "hi"), llm.Text(llm.Assistant, "hello"), llm.Text(llm.User, "and?")}},
		"context only":  {Model: "m", Context: "memory", Turns: []llm.Turn{llm.Text(llm.User, "x")}},
		"escapes":       {Model: "m", System: odd, Turns: []llm.Turn{llm.Text(llm.User, odd), llm.Text(llm.Assistant, odd)}},
		"no model":      {Turns: []llm.Turn{llm.Text(llm.User, "x")}},
		"empty":         {},
		"limits":        {Model: "m", MaxTokens: 321, Temperature: 0.7, Turns: []llm.Turn{llm.Text(llm.User, "x")}},
		"tiny temp":     {Model: "m", Temperature: 1e-7, Turns: []llm.Turn{llm.Text(llm.User, "x")}},
		"whole temp":    {Model: "m", Temperature: 1, Turns: []llm.Turn{llm.Text(llm.User, "x")}},
		"negative temp": {Model: "m", Temperature: -0.25, Turns: []llm.Turn{llm.Text(llm.User, "x")}},
		"huge temp":     {Model: "m", Temperature: 3e21, Turns: []llm.Turn{llm.Text(llm.User, "x")}},
		"joined":        {Model: "m", Turns: []llm.Turn{user(llm.Part{Text: "one"}, llm.Part{}, llm.Part{Text: "two\n"}, llm.Part{Text: "three"})}},
		"empty turns":   {Model: "m", Turns: []llm.Turn{user(), asst(), user(llm.Part{}), llm.Text(llm.User, "x")}},
		"tools":         {Model: "m", Tools: tools, Turns: []llm.Turn{llm.Text(llm.User, "x")}},
		"one tool":      {Model: "m", Tools: tools[:1], Turns: []llm.Turn{llm.Text(llm.User, "x")}},
		"images": {Model: "gpt-4o", Turns: []llm.Turn{user(
			llm.Part{Text: "what is this?"},
			llm.Part{Image: &llm.Blob{MIME: "image/png", Data: png}},
			llm.Part{Text: "and this"},
			llm.Part{Image: &llm.Blob{MIME: "image/JPEG; q=1", Data: someBytes(3000)}},
			llm.Part{Image: &llm.Blob{MIME: "image/webp", Data: someBytes(1)}},
			llm.Part{Image: &llm.Blob{MIME: "image/gif", Data: someBytes(2)}},
			llm.Part{Image: &llm.Blob{MIME: "image/tiff", Data: png}},
			llm.Part{Image: &llm.Blob{MIME: "image/png"}},
			llm.Part{Image: &llm.Blob{MIME: "", Data: png}},
		)}},
		"audio": {Model: "gpt-4o-audio-preview", Turns: []llm.Turn{user(
			llm.Part{Audio: &llm.Blob{MIME: "audio/wav", Data: someBytes(100)}},
			llm.Part{Audio: &llm.Blob{MIME: "audio/mpeg", Data: someBytes(10)}},
			llm.Part{Audio: &llm.Blob{MIME: "audio/ogg; codecs=opus", Data: someBytes(10)}},
			llm.Part{Audio: &llm.Blob{MIME: "audio/mp3"}},
			llm.Part{Text: odd},
		)}},
		"media only": {Model: "m", Turns: []llm.Turn{user(llm.Part{Image: &llm.Blob{MIME: "image/png", Data: png}})}},
		"tool round": {Model: "m", System: "s", Tools: tools[:2], Turns: []llm.Turn{
			llm.Text(llm.User, "find cats"),
			asst(call("call_1", "search", `{"q": "cats"}`), call("call_2", "now", ""), call("", "", `{"q":"\u00e9<"}`)),
			{Role: llm.ToolRole, Parts: []llm.Part{result("call_1", "cats: "+odd, false), result("call_2", "no clock", true), result("", "", false), result("c", "", true)}},
			asst(llm.Part{Text: "Found"}, call("call_3", "search", `{}`), llm.Part{Text: "cats"}),
			{Role: llm.ToolRole, Parts: []llm.Part{result("call_3", "none", false)}},
			llm.Text(llm.Assistant, "none found"),
		}},
		"results in a user turn": {Model: "m", Turns: []llm.Turn{
			user(llm.Part{Text: "before"}, result("c1", "r", false), llm.Part{Text: "after"}),
			user(llm.Part{Image: &llm.Blob{MIME: "image/png", Data: png}}, result("c2", "r2", true)),
			asst(result("c3", "r3", false)),
		}},
	}
	for _, custom := range []bool{true, false} {
		for _, maxTokens := range []int{0, 1024} {
			for name, req := range cases {
				for _, stream := range []bool{true, false} {
					t.Run(fmt.Sprintf("%s/custom=%v/max=%d/stream=%v", name, custom, maxTokens, stream), func(t *testing.T) {
						checkBodyAsSDK(t, req, custom, maxTokens, stream)
					})
				}
			}
		}
	}
}

func someBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

// sent is one request a capture server received.
type sent struct {
	body   string
	header http.Header
}

// capture serves chat completions with the smallest valid answer, recording requests.
func capture(t *testing.T) (*httptest.Server, *[]sent) {
	var got []sent
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h := r.Header.Clone()
		mu.Lock()
		got = append(got, sent{string(b), h})
		mu.Unlock()
		if strings.Contains(string(b), `"stream":true`) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func checkBodyAsSDK(t *testing.T, req llm.Request, custom bool, maxTokens int, stream bool) {
	t.Helper()
	srv, got := capture(t)
	cfg := Config{APIKey: "sk-k", BaseURL: srv.URL + "/v1", MaxTokens: maxTokens, HTTPClient: srv.Client()}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.custom = custom // the server is local; the body is what matters
	ctx := t.Context()
	svc := openai.NewChatCompletionService(m.options()...)
	params, perr := sdkParams(m, req)
	var oldErr, newErr error
	if stream {
		if perr == nil {
			params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
			s := svc.NewStreaming(ctx, params)
			for s.Next() {
			}
			oldErr = s.Err()
			s.Close()
		}
		_, newErr = m.Stream(ctx, req, nil)
	} else {
		if perr == nil {
			_, oldErr = svc.New(ctx, params)
		}
		_, newErr = m.Generate(ctx, req)
	}
	if perr != nil || oldErr != nil {
		if newErr == nil {
			t.Fatalf("the SDK path failed (%v, %v), the new one did not", perr, oldErr)
		}
		return
	}
	if newErr != nil {
		t.Fatalf("new path: %v", newErr)
	}
	if len(*got) != 2 {
		t.Fatalf("%d requests, want 2", len(*got))
	}
	old, now := (*got)[0], (*got)[1]
	if old.body != now.body {
		t.Errorf("body differs\nSDK: %s\nnew: %s", old.body, now.body)
	}
	if !json.Valid([]byte(now.body)) {
		t.Errorf("body is not JSON: %s", now.body)
	}
	for k := range old.header {
		if old.header.Get(k) != now.header.Get(k) {
			t.Errorf("header %s: SDK %q, new %q", k, old.header.Get(k), now.header.Get(k))
		}
	}
	for k := range now.header {
		if _, ok := old.header[k]; !ok {
			t.Errorf("header %s sent only by the new path", k)
		}
	}
}

// TestBodyErrors: requests the API cannot take fail before anything is sent, as they did
// with the SDK's params.
func TestBodyErrors(t *testing.T) {
	m, err := New(Config{APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	for name, req := range map[string]llm.Request{
		"media in an assistant turn": {Turns: []llm.Turn{{Role: llm.Assistant, Parts: []llm.Part{{Image: &llm.Blob{MIME: "image/png", Data: []byte("x")}}}}}},
		"tool call in a user turn":   {Turns: []llm.Turn{{Role: llm.User, Parts: []llm.Part{{Text: "x"}, {ToolCall: &llm.ToolCall{ID: "c", Name: "f"}}}}}},
		"schema not an object":       {Tools: []llm.Tool{{Name: "f", Parameters: json.RawMessage(`[1]`)}}},
		"temperature NaN":            {Temperature: math.NaN()},
	} {
		_, sdkErr := sdkBody(m, req)
		_, err := m.body(req, true)
		if err == nil || sdkErr == nil {
			t.Errorf("%s: body error %v, SDK error %v; want both", name, err, sdkErr)
		}
	}
}

// sdkBody is the old path's encoding, for the errors test and the benchmarks.
func sdkBody(m *Model, req llm.Request) ([]byte, error) {
	p, err := sdkParams(m, req)
	if err != nil {
		return nil, err
	}
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	return p.MarshalJSON()
}

// sdkParams translates req: the system message first, then the turns; tool results become
// role "tool" messages (an error result is prefixed "error: ", the API having no flag).
// A user turn's text parts become one string, joined by newlines, unless the turn holds
// media: then its parts become content parts in their order (see mediaPart).
func sdkParams(m *Model, req llm.Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(req.Model)}
	if sys := llm.SystemText(req); sys != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(sys))
	}
	for _, t := range req.Turns {
		var text []string
		var calls []openai.ChatCompletionMessageToolCallUnionParam
		var content []openai.ChatCompletionContentPartUnionParam // text and media in order
		media := false
		for _, part := range t.Parts {
			switch {
			case part.Image != nil || part.Audio != nil:
				if t.Role != llm.User {
					return p, fmt.Errorf("openai: media in a %s turn", t.Role)
				}
				media = true
				content = append(content, sdkMediaPart(part))
			case part.ToolResult != nil:
				content := part.ToolResult.Content
				if part.ToolResult.IsError {
					content = "error: " + content
				}
				p.Messages = append(p.Messages, openai.ToolMessage(content, part.ToolResult.CallID))
			case part.ToolCall != nil:
				c := part.ToolCall
				arguments := string(c.Arguments)
				if arguments == "" {
					arguments = "{}"
				}
				calls = append(calls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: arguments},
					}})
			case part.Text != "":
				text = append(text, part.Text)
				content = append(content, openai.TextContentPart(part.Text))
			}
		}
		joined := strings.Join(text, "\n")
		switch {
		case t.Role == llm.Assistant && (joined != "" || len(calls) > 0):
			var a openai.ChatCompletionAssistantMessageParam
			if joined != "" {
				a.Content.OfString = openai.String(joined)
			}
			a.ToolCalls = calls
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case len(calls) > 0:
			return p, fmt.Errorf("openai: tool calls in a %s turn", t.Role)
		case media:
			p.Messages = append(p.Messages, openai.UserMessage(content))
		case joined != "":
			p.Messages = append(p.Messages, openai.UserMessage(joined))
		}
	}
	if len(req.Tools) > 0 {
		for _, t := range req.Tools {
			raw, err := encodeTool(t)
			if err != nil {
				return p, err
			}
			p.Tools = append(p.Tools, param.Override[openai.ChatCompletionToolUnionParam](raw))
		}
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = m.cfg.MaxTokens
	}
	if maxTokens > 0 {
		// OpenAI's reasoning models reject max_tokens; clones may not know its successor.
		if m.custom {
			p.MaxTokens = openai.Int(int64(maxTokens))
		} else {
			p.MaxCompletionTokens = openai.Int(int64(maxTokens))
		}
	}
	if req.Temperature != 0 {
		p.Temperature = openai.Float(req.Temperature)
	}
	return p, nil
}

// sdkMediaPart is the content part of p's image (an image_url with a data URL) or audio
// (input_audio); media the API does not take, or without bytes, becomes a text part
// saying so.
func sdkMediaPart(p llm.Part) openai.ChatCompletionContentPartUnionParam {
	if b := p.Image; b != nil {
		if t := b.MediaType(); imageTypes[t] && len(b.Data) > 0 {
			return openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
				URL: "data:" + t + ";base64," + base64.StdEncoding.EncodeToString(b.Data)})
		}
	} else if f := audioFormats[p.Audio.MediaType()]; f != "" && len(p.Audio.Data) > 0 {
		return openai.InputAudioContentPart(openai.ChatCompletionContentPartInputAudioInputAudioParam{
			Data: base64.StdEncoding.EncodeToString(p.Audio.Data), Format: f})
	}
	return openai.TextContentPart(llm.MediaPlaceholder(p))
}
