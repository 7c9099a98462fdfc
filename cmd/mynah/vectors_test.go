package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

// TestVectorSearchEndToEnd: with embeddings configured, serve embeds messages in the
// background and `mynah memory search --json` finds a message by meaning, sharing no
// word with the query, beside what keywords find.
func TestVectorSearchEndToEnd(t *testing.T) {
	h := newHarness(t, harnessOptions{Front: "embeddings: openai/text-embedding-3-small\n"})
	h.llm.SetSynonyms(map[string]string{"kitten": "cat", "feline": "cat"})
	h.start()
	h.emu.SendPrivate(alice, "We adopted a kitten from the shelter")
	h.waitSent(alice.ID, 1)
	h.emu.SendPrivate(alice, "The plumber comes on Tuesday")
	h.waitSent(alice.ID, 2)

	// Embedding runs every few seconds: wait until both of alice's messages were sent.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !embedded(h.llm, "We adopted a kitten from the shelter", "The plumber comes on Tuesday") {
		select {
		case <-ctx.Done():
			t.Fatalf("messages not embedded; embeddings calls: %+v", h.llm.EmbedRequests())
		case <-tick.C:
		}
	}
	for _, r := range h.llm.EmbedRequests() {
		if r.Model != "text-embedding-3-small" || !r.HasAPIKey {
			t.Errorf("embeddings call %+v: want model text-embedding-3-small with the key", r)
		}
	}

	type item struct {
		Kind      string `json:"kind"`
		MessageID int64  `json:"message_id"`
		Snippet   string `json:"snippet"`
	}
	search := func(query string) []string {
		out := mustCLI(t, h, "memory", "search", "--config", h.dir, "--query", query, "--json")
		var items []item
		if err := json.Unmarshal([]byte(out), &items); err != nil {
			t.Fatalf("memory search --json: %v\n%s", err, out)
		}
		var snippets []string
		for _, it := range items {
			if it.Kind == "message" && it.MessageID > 0 {
				snippets = append(snippets, it.Snippet)
			}
		}
		return snippets
	}
	got := search("feline plumber")
	if !slices.Contains(got, "We adopted a kitten from the shelter") {
		t.Errorf("search by meaning missed the kitten message: %q", got)
	}
	if !slices.Contains(got, "The plumber comes on Tuesday") {
		t.Errorf("search dropped the keyword hit: %q", got)
	}

	// The agent's own memory_search finds by meaning too.
	h.llm.Push(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "s1", Name: "memory_search", Arguments: json.RawMessage(`{"query":"feline"}`)}}},
		llmtest.Reply{Text: "You adopted a kitten."})
	h.emu.SendPrivate(alice, "what pet did we get?")
	h.waitSent(alice.ID, 3)
	reqs := h.llm.Requests()
	var result string
	for _, turn := range reqs[len(reqs)-1].Turns {
		for _, p := range turn.Parts {
			if p.ToolResult != nil && p.ToolResult.CallID == "s1" {
				result = p.ToolResult.Content
			}
		}
	}
	if !strings.Contains(result, "adopted a kitten") {
		t.Errorf("the model's memory_search \"feline\" did not find the kitten message by meaning: %q", result)
	}
	h.stop()
}

// embedded reports whether every text was sent to the fake's embeddings endpoint.
func embedded(srv *llmtest.Server, texts ...string) bool {
	var sent []string
	for _, r := range srv.EmbedRequests() {
		sent = append(sent, r.Texts...)
	}
	for _, t := range texts {
		if !slices.Contains(sent, t) {
			return false
		}
	}
	return true
}

// TestEmbeddingsConfig: a bad embeddings setting is refused, naming the key.
func TestEmbeddingsConfig(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{"text-embedding-3-small", "must be provider/model"},
		{"anthropic/claude-embed", "has no embeddings API"},
		{"nosuch/model", "unknown provider"},
	} {
		h := newHarness(t, harnessOptions{Front: "embeddings: " + c.value + "\n"})
		out, code := mynahCLI(t, h, "check", "--config", h.dir)
		if code == 0 || !strings.Contains(out, "embeddings") || !strings.Contains(out, c.want) {
			t.Errorf("embeddings: %s: exit %d, output %q; want an error naming embeddings: %s", c.value, code, out, c.want)
		}
	}
	h := newHarness(t, harnessOptions{Front: "embeddings: gemini/gemini-embedding-001\n"})
	if out, code := mynahCLI(t, h, "check", "--config", h.dir); code != 0 {
		t.Errorf("a valid embeddings setting was refused: %s", out)
	}
}
