package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

// TestProviderWireShapes runs one private exchange per provider through the real binary
// and checks each request has the shape its API requires.
func TestProviderWireShapes(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic", "gemini"} {
		t.Run(provider, func(t *testing.T) {
			h := newHarness(t, harnessOptions{Provider: provider})
			h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "answer from " + provider} })
			h.start()
			h.emu.SendPrivate(alice, "first")
			h.waitSent(alice.ID, 1)
			h.emu.SendPrivate(alice, "second")
			if s := h.waitSent(alice.ID, 2); s[1].Text != "answer from "+provider {
				t.Errorf("reply = %q", s[1].Text)
			}
			h.stop()
			req := h.llm.Requests()[1]
			if !req.HasAPIKey {
				t.Error("request carried no API key")
			}
			var body map[string]any
			if err := json.Unmarshal(req.Body, &body); err != nil {
				t.Fatal(err)
			}
			raw := string(req.Body)
			switch provider {
			case "openai":
				msgs := body["messages"].([]any)
				if role := msgs[0].(map[string]any)["role"]; role != "system" && role != "developer" {
					t.Errorf("first message role %v, want the system instruction first", role)
				}
				if body["model"] != "test-model" {
					t.Errorf("model = %v", body["model"])
				}
			case "anthropic":
				if _, ok := body["system"]; !ok {
					t.Error("no top-level system")
				}
				for _, m := range body["messages"].([]any) {
					if role := m.(map[string]any)["role"]; role != "user" && role != "assistant" {
						t.Errorf("message role %v", role)
					}
				}
				if !strings.Contains(raw, `"cache_control"`) {
					t.Error("the stable system prefix carries no cache_control")
				}
			case "gemini":
				if _, ok := body["systemInstruction"]; !ok {
					if _, ok := body["system_instruction"]; !ok {
						t.Errorf("no system_instruction in %s", raw)
					}
				}
				for _, c := range body["contents"].([]any) {
					if role := c.(map[string]any)["role"]; role != "user" && role != "model" {
						t.Errorf("content role %v: Gemini accepts only user and model", role)
					}
				}
				if !strings.Contains(req.Path, "test-model") {
					t.Errorf("path %s does not name the model", req.Path)
				}
			}
			if got := requestText(req); !strings.Contains(got, "answer from "+provider) || !strings.Contains(got, "second") {
				t.Errorf("second request lacks the first exchange:\n%s", got)
			}
		})
	}
}
