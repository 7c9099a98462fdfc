package openai_test

import (
	"net/http"
	"testing"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/llm/openai"
)

const testKey = "sk-test-secret-key"

func newModel(t *testing.T, baseURL string) *openai.Model {
	t.Helper()
	m, err := openai.New(openai.Config{APIKey: testKey, BaseURL: baseURL})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestModel(t *testing.T) {
	llmtest.TestModel(t, llmtest.ModelCase{
		Provider: "openai",
		Server:   llmtest.NewOpenAI,
		New: func(key, baseURL string, hc *http.Client) (llm.Model, error) {
			return openai.New(openai.Config{APIKey: key, BaseURL: baseURL, HTTPClient: hc})
		},
		Key:    testKey,
		Images: []string{"image/png", "image/jpeg", "image/gif", "image/webp"},
		Audio:  []string{"audio/wav", "audio/mpeg"},
		Env: map[string]string{"OPENAI_API_KEY": "env-key", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
			"OPENAI_ORG_ID": "org-env"},
		EnvHeaders: []string{"OpenAI-Organization"},
		TextStop:   "stop",
		ToolStop:   "tool_calls",
		// The fake's base URL is not OpenAI's own, so the limit is max_tokens, which every
		// OpenAI-compatible server knows.
		MaxTokens:  "max_tokens",
		Tool:       "tools.0.function",
		ToolSchema: "parameters",
		Body:       map[string]string{"messages.0": `{"role":"system","content":"be brief"}`},
		StreamBody: map[string]string{"stream_options": `{"include_usage":true}`},
	})
}

func transcriberCase() llmtest.TranscriberCase {
	return llmtest.TranscriberCase{
		Provider: "openai",
		Server:   llmtest.NewOpenAI,
		New: func(key, baseURL string, hc *http.Client) (llm.Transcriber, error) {
			return openai.NewTranscriber(openai.Config{APIKey: key, BaseURL: baseURL, HTTPClient: hc}, "whisper-1")
		},
		Model: "whisper-1",
		Key:   testKey,
		Push:  (*llmtest.Server).PushTranscripts,
		Heard: func(s *llmtest.Server) []llmtest.Heard {
			var out []llmtest.Heard
			for _, r := range s.TranscribeRequests() {
				out = append(out, llmtest.Heard{Model: r.Model, Audio: llm.Blob{MIME: r.MIME, Data: r.Audio}})
			}
			return out
		},
	}
}

func TestTranscriber(t *testing.T) { llmtest.TestTranscriber(t, transcriberCase()) }
