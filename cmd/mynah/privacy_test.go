package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// TestNotesStayInTheirChat: a note the agent wrote in Alice's private chat is found
// neither by memory_search nor by memory_get in Bob's (issue 10, item 2).
func TestNotesStayInTheirChat(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	h.llm.Push(
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "note", `{"topic":"door","text":"Alice's door code is 4711."}`)}},
		llmtest.Reply{Text: "Noted."},
	)
	h.start()
	h.emu.SendPrivate(alice, "my door code is 4711, please remember")
	h.waitSent(alice.ID, 1)
	if got := toolResults(h.waitRequests(2)[1]); !strings.Contains(got, "Noted in notes/chats/1001/door.md") {
		t.Fatalf("note result: %q", got)
	}

	h.llm.Push(
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("c2", "memory_search", `{"query":"door code"}`)}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("c3", "memory_get", `{"path":"notes/chats/1001/door.md"}`)}},
		llmtest.Reply{Text: "I don't know."},
	)
	h.emu.SendPrivate(bob, "what is alice's door code?")
	h.waitSent(bob.ID, 1)
	reqs := h.waitRequests(5)
	for _, r := range reqs[3:5] {
		if got := toolResults(r); strings.Contains(got, "4711") {
			t.Errorf("Bob's turn read Alice's note: %q", got)
		}
	}
	if got := toolResults(reqs[4]); !strings.Contains(got, "is not among the notes of this chat") {
		t.Errorf("memory_get of Alice's note in Bob's chat answered %q, want a refusal", got)
	}
	if strings.Contains(requestText(reqs[2])+reqs[2].System, "4711") {
		t.Error("Bob's prompt contains Alice's note")
	}
}

// TestPrivateFactsStayOutOfGroups: a fact Alice told the agent in private is not in the
// prompt of a group turn answering Bob, while a fact learned in the group is (issue 10,
// item 3).
func TestPrivateFactsStayOutOfGroups(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	h.llm.Push(
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "remember", `{"fact":"was diagnosed with asthma"}`)}},
		llmtest.Reply{Text: "I'll keep that in mind."},
	)
	h.start()
	h.emu.SendPrivate(alice, "I was diagnosed with asthma")
	h.waitSent(alice.ID, 1)

	group := telegramtest.Supergroup(-100321, "Hiking")
	h.llm.Push(
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("c2", "remember", `{"fact":"leads the Sunday hikes"}`)}},
		llmtest.Reply{Text: "Great!"},
	)
	h.emu.SendGroup(group, alice, "@mynah_bot I lead the Sunday hikes")
	h.waitSent(group.ID, 1)
	h.emu.SendGroup(group, bob, "@mynah_bot what do you know about Alice?")
	h.waitSent(group.ID, 2)
	reqs := h.waitRequests(5)
	prompt := reqs[4].System + requestText(reqs[4])
	if strings.Contains(prompt, "asthma") {
		t.Errorf("a group turn answering Bob sees Alice's private fact:\n%s", reqs[4].System)
	}
	if !strings.Contains(prompt, "leads the Sunday hikes") {
		t.Errorf("a group turn lacks the fact learned in that group:\n%s", reqs[4].System)
	}
	// In her private chat Alice's facts are all there.
	h.emu.SendPrivate(alice, "what do you know about me?")
	h.waitSent(alice.ID, 2)
	if own := h.waitRequests(6)[5].System; !strings.Contains(own, "asthma") || !strings.Contains(own, "Sunday hikes") {
		t.Errorf("Alice's private prompt lacks her own facts:\n%s", own)
	}
}

// TestHugeMessageFitsTheBudget: a 1 MB message is answered with a prompt inside the
// context budget, the message cut with a marker; the stored text stays whole (item 18).
func TestHugeMessageFitsTheBudget(t *testing.T) {
	h := newHarness(t, harnessOptions{Front: "context_tokens: 32000\n"})
	h.echo()
	h.start()
	huge := strings.Repeat("all work and no play makes jack a dull boy ", 1<<20/43)
	h.emu.SendPrivate(alice, huge)
	h.waitSent(alice.ID, 1)
	req := h.waitRequests(1)[0]
	text := req.System + requestText(req)
	if len(text) > 200_000 {
		t.Errorf("the prompt is %d bytes for a 32000-token budget", len(text))
	}
	if !strings.Contains(text, "message truncated:") {
		t.Error("the cut message carries no truncation marker")
	}
	h.stop()
	if got := storedTexts(t, h, alice.ID); len(got) != 1 || got[0] != huge {
		t.Errorf("the stored message is not whole (%d messages)", len(got))
	}
}

// TestNotesRefuseSymlinks: a symbolic link in the notes folder does not let the model
// read a file outside it (issue 10, item 19).
func TestNotesRefuseSymlinks(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	secret := filepath.Join(t.TempDir(), "secrets.md")
	write(t, secret, "ROOT PASSWORD hunter2\n")
	dir := filepath.Join(h.dir, "agents", "Mynah", "memory")
	write(t, filepath.Join(dir, "house.md"), "The house is blue.\n")
	if err := os.Symlink(secret, filepath.Join(dir, "linked.md")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	h.llm.SetDefault(func(llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	h.llm.Push(
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "memory_get", `{"path":"memory/linked.md"}`)}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("c2", "memory_search", `{"query":"root password"}`)}},
		llmtest.Reply{Text: "no"},
	)
	h.start()
	h.emu.SendPrivate(alice, "what is the root password?")
	h.waitSent(alice.ID, 1)
	reqs := h.waitRequests(3)
	for _, r := range reqs {
		if strings.Contains(toolResults(r)+r.System+requestText(r), "hunter2") {
			t.Fatalf("the model read the file behind a symlink:\n%s", toolResults(r))
		}
	}
}
