package openai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/mynah-ai/mynah/internal/llm"
)

// benchRequest is about what an agent sends mid-conversation: a system prompt of a few
// kilobytes, twenty turns of history and a handful of tools.
func benchRequest() llm.Request {
	req := llm.Request{
		Model:     "gpt-4o-mini",
		System:    strings.Repeat("You are a helpful assistant in a Telegram chat. Answer briefly.\n", 40),
		Context:   "Memory: the user likes tea; lives in Edinburgh.",
		MaxTokens: 1024,
	}
	for i := range 10 {
		req.Turns = append(req.Turns,
			llm.Text(llm.User, fmt.Sprintf("message %d: what do you think about \"this\" one?\nThanks!", i)),
			llm.Text(llm.Assistant, fmt.Sprintf("re: message %d, I think it is fine. Here is why: it works.", i)))
	}
	for _, name := range []string{"remember", "recall", "search_web", "fetch_url", "schedule", "send_file"} {
		req.Tools = append(req.Tools, llm.Tool{Name: name, Description: "Does " + name + " for the user.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"what to ` + name + `"},"limit":{"type":"integer"}},"required":["query"]}`)})
	}
	return req
}

func benchModel(b *testing.B, url string) *Model {
	m, err := New(Config{APIKey: "sk-bench", BaseURL: url})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkBody is encoding benchRequest's streaming body; BenchmarkBodySDK is the SDK
// doing it from its params, as before (without NewStreaming's rewrite of "stream").
func BenchmarkBody(b *testing.B) {
	m, req := benchModel(b, "http://localhost/v1"), benchRequest()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.body(req, true); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBodySDK(b *testing.B) {
	m, req := benchModel(b, "http://localhost/v1"), benchRequest()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sdkBody(m, req); err != nil {
			b.Fatal(err)
		}
	}
}

// benchFrames are the events of one short streamed answer, as bench load's model sends.
var benchFrames = []string{
	`{"id": "chatcmpl-load1", "object": "chat.completion.chunk", "created": 1727346176, "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]}`,
	`{"id": "chatcmpl-load1", "object": "chat.completion.chunk", "created": 1727346176, "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": {"content": "re: message 9: wha"}, "finish_reason": null}]}`,
	`{"id": "chatcmpl-load1", "object": "chat.completion.chunk", "created": 1727346176, "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": {"content": "t do you think abo"}, "finish_reason": null}]}`,
	`{"id": "chatcmpl-load1", "object": "chat.completion.chunk", "created": 1727346176, "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": {"content": "ut \"this\" one?"}, "finish_reason": null}]}`,
	`{"id": "chatcmpl-load1", "object": "chat.completion.chunk", "created": 1727346176, "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}`,
	`{"id": "chatcmpl-load1", "object": "chat.completion.chunk", "created": 1727346176, "model": "gpt-4o-mini", "choices": [], "usage": {"prompt_tokens": 900, "completion_tokens": 12, "total_tokens": 912}}`,
}

// BenchmarkChunks is decoding benchFrames as the SDK's stream does (encoding/json into
// the chunk type); BenchmarkChunksSDK with the SDK's chunk type, as before.
func BenchmarkChunks(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range benchFrames {
			var c chunk
			if err := json.Unmarshal([]byte(f), &c); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkChunksSDK(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range benchFrames {
			var c openai.ChatCompletionChunk
			if err := json.Unmarshal([]byte(f), &c); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// benchServer answers every call with benchFrames as an event stream.
func benchServer(b *testing.B) *httptest.Server {
	var sse strings.Builder
	for _, f := range benchFrames {
		sse.WriteString("data: " + f + "\n\n")
	}
	sse.WriteString("data: [DONE]\n\n")
	body := sse.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkStream is one whole streamed call of benchRequest over HTTP (the server's
// share included); BenchmarkStreamSDK the same call as before, through the SDK's params,
// NewStreaming and chunk type.
func BenchmarkStream(b *testing.B) {
	srv := benchServer(b)
	m, req := benchModel(b, srv.URL+"/v1"), benchRequest()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Stream(b.Context(), req, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStreamSDK(b *testing.B) {
	srv := benchServer(b)
	m, req := benchModel(b, srv.URL+"/v1"), benchRequest()
	svc := openai.NewChatCompletionService(m.options()...)
	b.ReportAllocs()
	for b.Loop() {
		p, err := sdkParams(m, req)
		if err != nil {
			b.Fatal(err)
		}
		p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
		s := svc.NewStreaming(b.Context(), p)
		var text strings.Builder
		for s.Next() {
			for _, ch := range s.Current().Choices {
				text.WriteString(ch.Delta.Content)
			}
		}
		if err := s.Err(); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
