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

// TestProviderTable: every kind of the table works without a providers entry, takes its
// key and base URL from its SDK's variables, is refused without a key naming the
// variable, builds its adapter, and has embeddings exactly when the table says so.
func TestProviderTable(t *testing.T) {
	for _, k := range providerKinds {
		if k.NoKey {
			continue // a command-line agent: its own tests (cli_config_test.go, crew_test.go)
		}
		t.Run(k.Name, func(t *testing.T) {
			files := map[string]string{
				"mynah.yaml":      "",
				"agents/Mynah.md": agentFile("model: " + k.Name + "/some-model\n"),
			}
			cfg, err := testConfig(t, files, map[string]string{k.KeyVar: "sk-" + k.Name, k.BaseVar: "http://127.0.0.1:1/" + k.Name})
			if err != nil {
				t.Fatal(err)
			}
			a := cfg.Agents[0]
			if a.Provider.Kind != k.Name || a.Provider.APIKey != secret("sk-"+k.Name) || a.Provider.BaseURL != "http://127.0.0.1:1/"+k.Name || a.ModelID != "some-model" {
				t.Errorf("provider = %#v, model %q", a.Provider, a.ModelID)
			}
			if m, err := newAdapter(a.Provider, a.ReplyTokens, nil); err != nil || m == nil {
				t.Errorf("newAdapter: %v", err)
			}
			if _, err := testConfig(t, files, nil); err == nil || !strings.Contains(err.Error(), "set "+k.KeyVar) {
				t.Errorf("without a key: %v, want an error naming %s", err, k.KeyVar)
			}
			files["agents/Mynah.md"] = agentFile("model: " + k.Name + "/some-model\nembeddings: " + k.Name + "/some-embedder\n")
			_, err = testConfig(t, files, map[string]string{k.KeyVar: "sk-" + k.Name})
			if embeds := k.NewEmbedder != nil; embeds != (err == nil) {
				t.Errorf("embeddings: %v, want an embeddings API: %v", err, embeds)
			}
			if e, err := newEmbedder(a.Provider, nil); (err == nil && e != nil) != (k.NewEmbedder != nil) {
				t.Errorf("newEmbedder: %v", err)
			}
		})
	}
	if _, err := newAdapter(providerConfig{Kind: "llama"}, 100, nil); err == nil {
		t.Error("newAdapter built a provider kind that is not in the table")
	}
}

// TestOpenAIWithoutKeyOnALocalServer: a keyless kind needs no key once it has a base URL.
func TestOpenAIWithoutKeyOnALocalServer(t *testing.T) {
	_, err := testConfig(t, map[string]string{
		"mynah.yaml":      "providers:\n  ollama: {kind: openai, base_url: http://localhost:11434/v1}\n",
		"agents/Mynah.md": agentFile("model: ollama/llama3.2\n"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
}
