package anthropic_test

import (
	"net/http"
	"testing"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/anthropic"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

const testKey = "sk-ant-test-secret"

func newModel(t *testing.T, baseURL string) *anthropic.Model {
	t.Helper()
	m, err := anthropic.New(anthropic.Config{APIKey: testKey, BaseURL: baseURL})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestModel(t *testing.T) {
	llmtest.TestModel(t, llmtest.ModelCase{
		Provider: "anthropic",
		Server:   llmtest.NewAnthropic,
		New: func(key, baseURL string, hc *http.Client) (llm.Model, error) {
			return anthropic.New(anthropic.Config{APIKey: key, BaseURL: baseURL, HTTPClient: hc})
		},
		Key:    testKey,
		Images: []string{"image/png", "image/jpeg", "image/gif", "image/webp"},
		// The Messages API takes no audio: Audio is empty.
		Env: map[string]string{"ANTHROPIC_API_KEY": "env-key", "ANTHROPIC_BASE_URL": "http://127.0.0.1:1/",
			"ANTHROPIC_CUSTOM_HEADERS": "X-Leak: yes"},
		EnvHeaders: []string{"X-Leak"},
		Headers:    []string{"Anthropic-Version"},
		TextStop:   "end_turn",
		ToolStop:   "tool_use",
		// Tool results travel in user turns, and user and assistant must alternate.
		Roles:            map[llm.Role]llm.Role{llm.ToolRole: llm.User},
		MergeTurns:       true,
		MaxTokens:        "max_tokens",
		DefaultMaxTokens: anthropic.DefaultMaxTokens,
		Tool:             "tools.0",
		ToolSchema:       "input_schema",
		Body: map[string]string{
			"system": `[{"type":"text","text":"be brief","cache_control":{"type":"ephemeral"}}]`},
	})
}
