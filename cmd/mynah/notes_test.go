package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

// toolResults is what the model read back from its tool calls in request r.
func toolResults(r llmtest.Recorded) string {
	var out string
	for _, turn := range r.Turns {
		for _, p := range turn.Parts {
			if p.ToolResult != nil {
				out += p.ToolResult.Content
			}
		}
	}
	return out
}

// TestNotesEndToEnd: a curated note an operator writes while mynah runs is found by the
// model's memory_search, and a note the model writes with its note tool is found by
// `mynah memory search --json`, with its path and lines.
func TestNotesEndToEnd(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	h.start()

	// Written after start: no restart is needed for it to be found.
	write(t, filepath.Join(h.dir, "agents", "Mynah", "memory", "club", "bees.md"),
		"# Beekeepers\n\nThe beekeepers' club meets on Sundays at the old mill.\n")
	h.llm.Push(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "memory_search", Arguments: json.RawMessage(`{"query":"when does the beekeepers club meet"}`)}}},
		llmtest.Reply{Text: "On Sundays."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_2", Name: "note", Arguments: json.RawMessage(`{"topic":"Alice's hives","text":"Alice moved her hives to the orchard."}`)}}},
		llmtest.Reply{Text: "Noted."},
	)
	h.emu.SendPrivate(alice, "when does the club meet?")
	if got := h.waitSent(alice.ID, 1)[0].Text; got != "On Sundays." {
		t.Fatalf("reply = %q", got)
	}
	reqs := h.waitRequests(2)
	if got := toolResults(reqs[1]); !strings.Contains(got, "[note memory/club/bees.md:1-3]") || !strings.Contains(got, "old mill") {
		t.Errorf("memory_search result the model read: %q", got)
	}

	h.emu.SendPrivate(alice, "I moved my hives to the orchard")
	h.waitSent(alice.ID, 2)
	reqs = h.waitRequests(4)
	if got := toolResults(reqs[3]); !strings.Contains(got, "Noted in notes/chats/1001/alice-s-hives.md.") {
		t.Errorf("note result the model read: %q", got)
	}

	out := mustCLI(t, h, "memory", "search", "--config", h.dir, "--query", "hives orchard", "--json")
	var items []struct {
		Kind    string `json:"kind"`
		Source  string `json:"source"`
		Snippet string `json:"snippet"`
	}
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatalf("memory search --json: %v\n%s", err, out)
	}
	var kinds []string
	found := false
	for _, it := range items {
		kinds = append(kinds, it.Kind+" "+it.Source)
		found = found || it.Kind == "note" && it.Source == "notes/chats/1001/alice-s-hives.md:1-5" && strings.Contains(it.Snippet, "orchard")
	}
	if !found {
		t.Errorf("memory search did not find the note the model wrote; got %v", kinds)
	}
	h.stop()
}
