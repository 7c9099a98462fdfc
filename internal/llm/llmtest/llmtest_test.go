package llmtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

// fakeTB records Errorf calls instead of failing, to test that servers report
// malformed requests.
type fakeTB struct {
	t    *testing.T
	mu   sync.Mutex
	errs []string
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Cleanup(fn func()) { f.t.Cleanup(fn) }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func (f *fakeTB) errors() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.errs...)
}

func post(t *testing.T, url string, header map[string]string, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

var (
	openaiAuth    = map[string]string{"Authorization": "Bearer sk-secret"}
	anthropicAuth = map[string]string{"X-Api-Key": "sk-ant-secret", "Anthropic-Version": "2023-06-01"}
	geminiAuth    = map[string]string{"X-Goog-Api-Key": "AIza-secret"}
)

func TestMalformedRequests(t *testing.T) {
	tests := []struct {
		name       string
		start      func(llmtest.TB) *llmtest.Server
		path       string
		header     map[string]string
		body       string
		wantStatus int
		wantKey    string // top-level key of the error envelope
	}{
		{"openai no model", llmtest.NewOpenAI, "/chat/completions", openaiAuth,
			`{"messages":[{"role":"user","content":"hi"}]}`, 400, "error"},
		{"openai no messages", llmtest.NewOpenAI, "/chat/completions", openaiAuth, `{"model":"m"}`, 400, "error"},
		{"openai tool without id", llmtest.NewOpenAI, "/chat/completions", openaiAuth,
			`{"model":"m","messages":[{"role":"tool","content":"x"}]}`, 400, "error"},
		{"openai no auth", llmtest.NewOpenAI, "/chat/completions", nil,
			`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, 401, "error"},
		{"anthropic no max_tokens", llmtest.NewAnthropic, "/v1/messages", anthropicAuth,
			`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, 400, "error"},
		{"anthropic no version", llmtest.NewAnthropic, "/v1/messages", map[string]string{"X-Api-Key": "k"},
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, 400, "error"},
		{"anthropic system role", llmtest.NewAnthropic, "/v1/messages", anthropicAuth,
			`{"model":"m","max_tokens":5,"messages":[{"role":"system","content":"hi"}]}`, 400, "error"},
		{"anthropic no alternation", llmtest.NewAnthropic, "/v1/messages", anthropicAuth,
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`, 400, "error"},
		{"gemini system role", llmtest.NewGemini, "/v1beta/models/g:generateContent", geminiAuth,
			`{"contents":[{"role":"system","parts":[{"text":"be brief"}]}]}`, 400, "error"},
		{"gemini no contents", llmtest.NewGemini, "/v1beta/models/g:generateContent", geminiAuth, `{}`, 400, "error"},
		{"gemini no key", llmtest.NewGemini, "/v1beta/models/g:generateContent", nil,
			`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, 403, "error"},
		{"gemini stream without sse", llmtest.NewGemini, "/v1beta/models/g:streamGenerateContent", geminiAuth,
			`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, 400, "error"},
		{"openai image by URL", llmtest.NewOpenAI, "/chat/completions", openaiAuth,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://example.com/cat.png"}}]}]}`, 400, "error"},
		{"openai bmp image", llmtest.NewOpenAI, "/chat/completions", openaiAuth,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/bmp;base64,Qk0="}}]}]}`, 400, "error"},
		{"openai ogg audio", llmtest.NewOpenAI, "/chat/completions", openaiAuth,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"T2dnUw==","format":"ogg"}}]}]}`, 400, "error"},
		{"openai image in a system message", llmtest.NewOpenAI, "/chat/completions", openaiAuth,
			`{"model":"m","messages":[{"role":"system","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBO"}}]},{"role":"user","content":"hi"}]}`, 400, "error"},
		{"anthropic bmp image", llmtest.NewAnthropic, "/v1/messages", anthropicAuth,
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/bmp","data":"Qk0="}}]}]}`, 400, "error"},
		{"anthropic image not base64", llmtest.NewAnthropic, "/v1/messages", anthropicAuth,
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"%%%"}}]}]}`, 400, "error"},
		{"anthropic assistant image", llmtest.NewAnthropic, "/v1/messages", anthropicAuth,
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}}]}]}`, 400, "error"},
		{"gemini gif", llmtest.NewGemini, "/v1beta/models/g:generateContent", geminiAuth,
			`{"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":"image/gif","data":"R0lG"}}]}]}`, 400, "error"},
		{"gemini inline without data", llmtest.NewGemini, "/v1beta/models/g:generateContent", geminiAuth,
			`{"contents":[{"role":"user","parts":[{"inline_data":{"mime_type":"audio/ogg"}}]}]}`, 400, "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := &fakeTB{t: t}
			srv := tt.start(tb)
			resp, body := post(t, srv.URL()+tt.path, tt.header, tt.body)
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d, want %d; body %s", resp.StatusCode, tt.wantStatus, body)
			}
			var env map[string]json.RawMessage
			if err := json.Unmarshal(body, &env); err != nil || env[tt.wantKey] == nil {
				t.Errorf("body %s is not an error envelope", body)
			}
			if errs := tb.errors(); len(errs) != 1 {
				t.Errorf("got %d Errorf calls, want 1: %q", len(errs), errs)
			}
		})
	}
}

func TestQueueDefaultAndRecording(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Push(llmtest.Reply{Text: "first"})
	body := `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":"hello"}]}`
	text := func() string {
		_, b := post(t, srv.URL()+"/chat/completions", openaiAuth, body)
		var c struct {
			Choices []struct {
				Message struct{ Content string }
			}
		}
		if err := json.Unmarshal(b, &c); err != nil || len(c.Choices) != 1 {
			t.Fatalf("response %s: %v", b, err)
		}
		return c.Choices[0].Message.Content
	}
	if got := text(); got != "first" {
		t.Errorf("queued reply = %q", got)
	}
	if got := text(); got != "ok" {
		t.Errorf("default reply = %q, want ok", got)
	}
	srv.SetDefault(func(r llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "echo: " + r.LastUserText()} })
	if got := text(); got != "echo: hello" {
		t.Errorf("SetDefault reply = %q", got)
	}
	reqs, err := srv.WaitRequests(t.Context(), 3)
	if err != nil {
		t.Fatal(err)
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/chat/completions" || r.Model != "m" || r.System != "sys" || r.Stream {
		t.Errorf("recorded %+v", r)
	}
	if !r.HasAPIKey || r.Header.Get("Authorization") != "REDACTED" {
		t.Errorf("key header = %q, HasAPIKey %v", r.Header.Get("Authorization"), r.HasAPIKey)
	}
	if diff := cmp.Diff([]llm.Turn{llm.Text(llm.User, "hello")}, r.Turns); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
}

func TestWaitRequestsBlocksAndCancels(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	if _, err := srv.WaitRequests(ctx, 1); err == nil {
		t.Fatal("WaitRequests returned without requests")
	}
	done := make(chan []llmtest.Recorded)
	go func() {
		reqs, _ := srv.WaitRequests(t.Context(), 1)
		done <- reqs
	}()
	post(t, srv.URL()+"/v1/messages", anthropicAuth, `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`)
	if reqs := <-done; len(reqs) != 1 || reqs[0].Header.Get("X-Api-Key") != "REDACTED" {
		t.Errorf("got %+v", reqs)
	}
}

func TestGeminiQueryKeyRedacted(t *testing.T) {
	srv := llmtest.NewGemini(t)
	resp, b := post(t, srv.URL()+"/v1beta/models/g:generateContent?key=AIza-secret", nil,
		`{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"system_instruction":{"parts":[{"text":"sys"}]}}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	r := srv.Requests()[0]
	if !r.HasAPIKey || r.Query.Get("key") != "REDACTED" || r.System != "sys" || r.Model != "g" {
		t.Errorf("recorded %+v", r)
	}
}
