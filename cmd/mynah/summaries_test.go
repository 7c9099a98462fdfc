package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// TestRollingSummary: when a group's history outgrows a small prompt, the messages left
// out are summarized (after a silent memory flush), the next answer's prompt carries the
// summary, and every raw message stays stored.
func TestRollingSummary(t *testing.T) {
	h := newHarness(t, harnessOptions{Front: "context_tokens: 1500\nreply_tokens: 200\n" +
		"summaries: {min_messages: 5, check_every: 20ms, week_every: 0s, month_every: 0s}\n"})
	const summary = "Bob went on about the heron colony at length."
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		switch {
		case slices.Contains(r.Tools, "remember") && strings.Contains(r.System, "scroll out"):
			return llmtest.Reply{Text: "nothing to save"}
		case strings.Contains(r.System, "running summary"):
			return llmtest.Reply{Text: summary}
		}
		return llmtest.Reply{Text: "answer"}
	})
	h.start()
	group := telegramtest.Supergroup(-100321, "Herons")
	for i := 1; i <= 30; i++ {
		h.emu.SendGroup(group, bob, fmt.Sprintf("Message %d about herons: %s", i, strings.Repeat("they stand very still in the shallow water ", 5)))
	}
	h.emu.SendGroup(group, alice, "@mynah_bot what did Bob say?")
	h.waitSent(group.ID, 1)

	var first, last int
	deadline := time.Now().Add(30 * time.Second)
	for {
		rows := h.query(`SELECT first_id, last_id FROM summaries WHERE agent = 'Mynah' AND chat_id = ? AND kind = 'rolling'`, group.ID)
		if len(rows) > 0 {
			first, _ = strconv.Atoi(rows[0][0])
			last, _ = strconv.Atoi(rows[0][1])
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no rolling summary was written\n%s", h.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if first != 1 || last < 5 || last >= 30 {
		t.Errorf("the summary covers messages %d–%d, want 1 to one of the older messages", first, last)
	}

	h.emu.SendGroup(group, alice, "@mynah_bot and now?")
	h.waitSent(group.ID, 2)
	var answers []llmtest.Recorded
	for _, r := range h.llm.Requests() {
		if len(r.Tools) == 0 || !strings.Contains(r.System, "scroll out") {
			if !strings.Contains(r.System, "running summary") {
				answers = append(answers, r)
			}
		}
	}
	if len(answers) != 2 {
		t.Fatalf("%d answer requests, want 2", len(answers))
	}
	want := fmt.Sprintf("summary of messages %d–%d", first, last)
	if !strings.Contains(answers[1].System, summary) || !strings.Contains(answers[1].System, want) {
		t.Errorf("the second answer's prompt lacks the summary (%q, %q):\n%s", want, summary, answers[1].System)
	}
	if strings.Contains(answers[0].System, summary) {
		t.Error("the first answer's prompt holds a summary written after it")
	}
	h.stop()
	if stored := h.query(`SELECT count(*) FROM messages WHERE agent = 'Mynah' AND chat_id = ?`, group.ID)[0][0]; stored != "34" { // 30 of Bob's, two questions, two answers
		t.Errorf("%s messages stored, want all 34", stored)
	}
}

// TestFlushFollowsTheRememberRule: the memory flush before a compaction cannot file a
// fact under a member who did not say it (issue 10, item 4): the same rule as remember.
func TestFlushFollowsTheRememberRule(t *testing.T) {
	h := newHarness(t, harnessOptions{Front: "context_tokens: 1500\nreply_tokens: 200\n" +
		"summaries: {min_messages: 5, check_every: 20ms, week_every: 0s, month_every: 0s}\n"})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		switch {
		case slices.Contains(r.Tools, "remember") && strings.Contains(r.System, "scroll out"):
			if toolResults(r) == "" {
				return llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("f1", "remember", `{"user_id": 1001, "fact": "Alice owes Bob 500 euros"}`)}}
			}
			return llmtest.Reply{Text: "done"}
		case strings.Contains(r.System, "running summary"):
			return llmtest.Reply{Text: "Bob talked about herons."}
		}
		return llmtest.Reply{Text: "answer"}
	})
	h.start()
	group := telegramtest.Supergroup(-100322, "Herons")
	for i := 1; i <= 30; i++ {
		h.emu.SendGroup(group, bob, fmt.Sprintf("Message %d about herons: %s", i, strings.Repeat("they stand very still in the shallow water ", 5)))
	}
	h.emu.SendGroup(group, alice, "@mynah_bot what did Bob say?")
	h.waitSent(group.ID, 1)
	if !h.waitLog("summar") {
		t.Fatal("no summary was written")
	}
	// Wait until the flush turn got its tool result, then look at what was filed.
	deadline := time.Now().Add(30 * time.Second)
	for {
		done := false
		for _, r := range h.llm.Requests() {
			if strings.Contains(r.System, "scroll out") && toolResults(r) != "" {
				done = true
			}
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the flush turn never ran its tool call:\n%s", h.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.stop()
	if out := mustCLI(t, h, "memory", "list", "--config", h.dir, "--user", "1001"); strings.Contains(out, "500 euros") {
		t.Errorf("the flush filed a fact under Alice, who never said it:\n%s", out)
	}
}
