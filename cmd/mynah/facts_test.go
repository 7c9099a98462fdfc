package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// mynahCLI runs the real binary with args in h's environment and returns its output and
// exit code.
func mynahCLI(t *testing.T, h *harness, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Args[0] = "mynah"
	cmd.Env = h.env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatalf("mynah %s: %v", strings.Join(args, " "), err)
	}
	return string(out), 0
}

// mynahSplit is mynahCLI with stdout and stderr apart.
func mynahSplit(t *testing.T, h *harness, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Args[0], cmd.Env = "mynah", h.env
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), errb.String(), exit.ExitCode()
	case err != nil:
		t.Fatalf("mynah %s: %v", strings.Join(args, " "), err)
	}
	return string(out), errb.String(), 0
}

// mustCLI runs mynah and fails the test unless it succeeds.
func mustCLI(t *testing.T, h *harness, args ...string) string {
	t.Helper()
	out, code := mynahCLI(t, h, args...)
	if code != 0 {
		t.Fatalf("mynah %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// TestMemoryFactsCLI: an operator lists, adds and removes what an agent remembers about a
// person, through the real binary.
func TestMemoryFactsCLI(t *testing.T) {
	h := newHarness(t, harnessOptions{Front: "max_facts: 3\n"})
	base := []string{"--config", h.dir, "--agent", "mynah", "--user", "1001"}
	memory := func(sub string, args ...string) []string {
		return append(append([]string{"memory", sub}, base...), args...)
	}

	if out := mustCLI(t, h, memory("add", "Likes", "green", "tea.")...); !strings.Contains(out, "Added fact 1 about user 1001: Likes green tea.") {
		t.Errorf("add: %s", out)
	}
	if out := mustCLI(t, h, memory("add", "likes green TEA")...); !strings.Contains(out, "already remembers this about user 1001 (fact 1)") {
		t.Errorf("add a duplicate: %s", out)
	}
	mustCLI(t, h, memory("add", "Keeps bees")...)
	mustCLI(t, h, "memory", "add", "--config", h.dir, "--user", "1002", "Bob's own fact")

	out := mustCLI(t, h, memory("list")...)
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		rows = append(rows, strings.Fields(line))
	}
	if len(rows) != 3 || rows[0][0] != "#" || strings.Join(rows[1][:2], " ") != "1 1" || !strings.HasSuffix(strings.Join(rows[1], " "), "added by hand Likes green tea.") ||
		strings.Join(rows[2][:2], " ") != "2 2" || !strings.HasSuffix(strings.Join(rows[2], " "), "Keeps bees") {
		t.Errorf("list:\n%s", out)
	}
	if strings.Contains(out, "Bob's") {
		t.Errorf("list of user 1001 shows user 1002's fact:\n%s", out)
	}
	var listed []struct {
		ID     int64  `json:"id"`
		Number int    `json:"number"`
		UserID int64  `json:"user_id"`
		Text   string `json:"text"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, h, memory("list", "--json")...)), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed) != 2 || listed[1].Number != 2 || listed[1].Text != "Keeps bees" || listed[1].UserID != 1001 {
		t.Errorf("list --json = %+v", listed)
	}

	// The agent's cap (max_facts: 3) evicts the oldest.
	mustCLI(t, h, memory("add", "third")...)
	mustCLI(t, h, memory("add", "fourth")...)
	if out := mustCLI(t, h, memory("list")...); strings.Contains(out, "green tea") || !strings.Contains(out, "fourth") {
		t.Errorf("after a fourth fact with max_facts 3:\n%s", out)
	}

	// Removing another person's fact by its id is refused.
	if out, code := mynahCLI(t, h, "memory", "rm", "--config", h.dir, "--user", "1002", "2"); code == 0 || !strings.Contains(out, "no fact 2 about user 1002") {
		t.Errorf("rm of another user's fact: exit %d\n%s", code, out)
	}
	if out := mustCLI(t, h, memory("rm", "2")...); !strings.Contains(out, "Removed fact 2 about user 1001: Keeps bees") {
		t.Errorf("rm: %s", out)
	}
	if out := mustCLI(t, h, memory("rm", "--all")...); !strings.Contains(out, "Removed 2 facts about user 1001") {
		t.Errorf("rm --all: %s", out)
	}
	if out := mustCLI(t, h, memory("list")...); !strings.Contains(out, "Mynah remembers nothing about user 1001") {
		t.Errorf("list after rm --all: %s", out)
	}
	if out := mustCLI(t, h, "memory", "list", "--config", h.dir, "--user", "1002"); !strings.Contains(out, "Bob's own fact") {
		t.Errorf("user 1002's fact after user 1001's rm --all:\n%s", out)
	}

	for _, bad := range [][]string{
		{"memory", "list", "--config", h.dir},
		{"memory", "add", "--config", h.dir, "--user", "1001", "  "},
		{"memory", "add", "--config", h.dir, "--user", "1001", strings.Repeat("x", 501)},
		{"memory", "rm", "--config", h.dir, "--user", "1001"},
		{"memory", "rm", "--config", h.dir, "--user", "1001", "--all", "3"},
		{"memory", "rm", "--config", h.dir, "--user", "1001", "three"},
		{"memory", "list", "--config", h.dir, "--user", "1001", "--agent", "nobody"},
	} {
		if out, code := mynahCLI(t, h, bad...); code == 0 {
			t.Errorf("mynah %s succeeded:\n%s", strings.Join(bad[2:], " "), out)
		}
	}
}

// TestMemoriesEndToEnd: the model remembers a fact with its tool, the next prompt carries
// it with the curated notes, and the person pages through and forgets what the agent
// remembers with /memories and /forget and their buttons, which work only for them.
func TestMemoriesEndToEnd(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for i := 1; i <= 11; i++ {
		mustCLI(t, h, "memory", "add", "--config", h.dir, "--user", "1001", fmt.Sprintf("seeded fact %d", i))
	}
	write(t, filepath.Join(h.dir, "agents", "Mynah", "memory", "house.md"), "The beekeepers' club meets on Sundays.")
	h.llm.SetDefault(func(llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	h.llm.Push(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "remember", Arguments: json.RawMessage(`{"fact":"Keeps bees on the roof."}`)}}},
		llmtest.Reply{Text: "Noted!"},
	)
	h.start()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	events := h.emu.Subscribe(ctx)

	h.emu.SendPrivate(alice, "I keep bees on my roof")
	if got := h.waitSent(alice.ID, 1)[0].Text; got != "Noted!" {
		t.Fatalf("reply = %q", got)
	}
	reqs := h.waitRequests(2)
	var result string
	for _, turn := range reqs[1].Turns {
		for _, p := range turn.Parts {
			if p.ToolResult != nil {
				result += p.ToolResult.Content
			}
		}
	}
	if result != "Remembered about Alice (@alice, id 1001) (fact 12): Keeps bees on the roof." {
		t.Errorf("the tool result the model read: %q", result)
	}
	h.emu.SendPrivate(alice, "what do you know about me?")
	h.waitSent(alice.ID, 2)
	system := h.waitRequests(3)[2].System
	for _, want := range []string{"About Alice (@alice, id 1001): Keeps bees on the roof. (fact 12)", "seeded fact 1 (fact 1)", "The beekeepers' club meets on Sundays."} {
		if !strings.Contains(system, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, system)
		}
	}

	// In a group nothing told in private is shown: only a count and where to look.
	group := telegramtest.Supergroup(-100700, "Bee club")
	h.emu.SendGroup(group, alice, "/memories@mynah_bot")
	if got := h.waitSent(group.ID, 1)[0].Text; strings.Contains(got, "seeded fact") || strings.Contains(got, "bees on the roof") || !strings.Contains(got, "private") {
		t.Errorf("/memories in a group showed private facts or no pointer to the private chat:\n%s", got)
	}

	h.emu.SendPrivate(alice, "/memories")
	page := h.waitSent(alice.ID, 3)[2]
	if !strings.Contains(page.Text, "What I remember about Alice (12)") || !strings.Contains(page.Text, "1. seeded fact 1\n") || !strings.Contains(page.Text, "Page 1 of 2") {
		t.Errorf("/memories page 1:\n%s", page.Text)
	}
	buttons := page.Buttons()
	if len(buttons) != 1 || len(buttons[0]) != 1 || buttons[0][0].Text != "▶" {
		t.Fatalf("page 1 buttons = %+v", buttons)
	}
	next := buttons[0][0].CallbackData

	// Bob's press is refused with a notice; the page stays.
	if _, err := h.emu.PressButton(bob, alice.ID, page.MessageID, next); err != nil {
		t.Fatal(err)
	}
	answers, err := h.emu.WaitCallbackAnswers(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if answers[0].Text != "These are not your memories." {
		t.Errorf("bob's press answered %q", answers[0].Text)
	}
	if _, err := h.emu.PressButton(alice, alice.ID, page.MessageID, next); err != nil {
		t.Fatal(err)
	}
	edited := waitEdit(t, events, page.MessageID)
	if !strings.Contains(edited.Text, "11. seeded fact 11") || !strings.Contains(edited.Text, "12. Keeps bees on the roof.") || !strings.Contains(edited.Text, "Page 2 of 2") {
		t.Errorf("page 2:\n%s", edited.Text)
	}
	if b := edited.Buttons(); len(b) != 1 || len(b[0]) != 1 || b[0][0].Text != "◀" {
		t.Errorf("page 2 buttons = %+v", b)
	}
	if _, err := h.emu.WaitCallbackAnswers(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if n := len(h.emu.Sent(alice.ID)); n != 3 {
		t.Errorf("turning the page sent a new message: %d in the private chat, want 3", n)
	}

	h.emu.SendPrivate(alice, "/forget 1")
	if got := h.waitSent(alice.ID, 4)[3].Text; got != "Forgot: seeded fact 1" {
		t.Errorf("/forget 1: %q", got)
	}
	h.emu.SendPrivate(alice, "/forget all")
	confirm := h.waitSent(alice.ID, 5)[4]
	if b := confirm.Buttons(); !strings.Contains(confirm.Text, "Forget all 11 things") || len(b) != 1 || len(b[0]) != 2 || b[0][0].Text != "Forget all" {
		t.Fatalf("/forget all: %q %+v", confirm.Text, confirm.Buttons())
	}
	if _, err := h.emu.PressButton(alice, alice.ID, confirm.MessageID, confirm.Buttons()[0][0].CallbackData); err != nil {
		t.Fatal(err)
	}
	if done := waitEdit(t, events, confirm.MessageID); !strings.Contains(done.Text, "Forgot all 11 things") || done.Buttons() != nil {
		t.Errorf("after confirming: %q %+v", done.Text, done.Buttons())
	}
	if _, err := h.emu.WaitCallbackAnswers(ctx, 3); err != nil {
		t.Fatal(err)
	}
	h.stop()
	if out := mustCLI(t, h, "memory", "list", "--config", h.dir, "--user", strconv.FormatInt(alice.ID, 10)); !strings.Contains(out, "remembers nothing") {
		t.Errorf("facts left after /forget all:\n%s", out)
	}
	if v := h.emu.Violations(); len(v) != 0 {
		t.Errorf("Bot API violations: %v", v)
	}
}

// waitEdit reads events until message id is edited and returns it as edited.
func waitEdit(t *testing.T, events <-chan telegramtest.Event, id int) telegramtest.SentMessage {
	t.Helper()
	for ev := range events {
		if ev.Kind == telegramtest.EventEdited && ev.Message.MessageID == id {
			return ev.Message
		}
	}
	t.Fatalf("message %d was not edited", id)
	return telegramtest.SentMessage{}
}
