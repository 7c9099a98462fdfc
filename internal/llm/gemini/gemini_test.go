package gemini_test

import (
	"net/http"
	"testing"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/gemini"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

const testKey = "AIza-test-secret"

func newModel(t *testing.T, baseURL string) *gemini.Model {
	t.Helper()
	m, err := gemini.New(gemini.Config{APIKey: testKey, BaseURL: baseURL})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestModel(t *testing.T) {
	llmtest.TestModel(t, llmtest.ModelCase{
		Provider: "gemini",
		Server:   llmtest.NewGemini,
		New: func(key, baseURL string, hc *http.Client) (llm.Model, error) {
			return gemini.New(gemini.Config{APIKey: key, BaseURL: baseURL, HTTPClient: hc})
		},
		Key:    testKey,
		Images: []string{"image/png", "image/jpeg", "image/webp"},
		Audio:  []string{"audio/wav", "audio/mpeg", "audio/ogg"},
		Env: map[string]string{"GEMINI_API_KEY": "env-key", "GOOGLE_API_KEY": "env-key",
			"GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:1/", "GOOGLE_GENAI_USE_VERTEXAI": "true"},
		TextStop: "stop",
		ToolStop: "stop", // Gemini finishes with STOP also when it calls tools
		// Gemini's roles are user and model; function responses are user parts.
		Roles:       map[llm.Role]llm.Role{llm.Assistant: "model", llm.ToolRole: llm.User},
		MergeTurns:  true,
		ResultNames: true,
		NoCallIDs:   true,
		Signatures:  true,
		MaxTokens:   "generationConfig.maxOutputTokens",
		Tool:        "tools.0.functionDeclarations.0",
		ToolSchema:  "parametersJsonSchema",
		Body:        map[string]string{"systemInstruction.parts": `[{"text":"be brief"}]`},
	})
}

func TestTranscriber(t *testing.T) {
	llmtest.TestTranscriber(t, llmtest.TranscriberCase{
		Provider: "gemini",
		Server:   llmtest.NewGemini,
		New: func(key, baseURL string, hc *http.Client) (llm.Transcriber, error) {
			return gemini.NewTranscriber(gemini.Config{APIKey: key, BaseURL: baseURL, HTTPClient: hc}, "gemini-2.5-flash")
		},
		Model: "gemini-2.5-flash",
		Key:   testKey,
		Push:  (*llmtest.Server).Push,
		Heard: func(s *llmtest.Server) []llmtest.Heard {
			var out []llmtest.Heard
			for _, r := range s.Requests() {
				for _, a := range r.Audio() {
					out = append(out, llmtest.Heard{Model: r.Model, Audio: a})
				}
			}
			return out
		},
	})
}
