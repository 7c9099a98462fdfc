package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// TestContextCommands shows the prompt a chat would get now and explains a reply already
// sent, through the real binary, on the database a real conversation produced.
func TestContextCommands(t *testing.T) {
	h := newHarness(t, harnessOptions{Front: "history_messages: 6\n"})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Reply{Text: "noted", Usage: llmUsage(120, 7, 100)}
	})
	h.start()
	group := telegramtest.Supergroup(-100600, "Long chat")
	first := h.emu.SendGroup(group, alice, "the meeting is at the old mill on Friday")
	for i := 0; i < 12; i++ {
		h.emu.SendGroup(group, bob, "chatter "+strconv.Itoa(i))
	}
	h.emu.SendGroup(group, alice, "@mynah_bot where was the meeting again?", telegramtest.ReplyTo(first.MessageID))
	reply := h.waitSent(group.ID, 1)[0]
	h.stop()

	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(os.Args[0], args...)
		cmd.Args[0] = "mynah"
		cmd.Env = h.env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mynah %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	chat := strconv.FormatInt(group.ID, 10)

	out := run("context", "explain", "--config", h.dir, "--reply", strconv.Itoa(reply.MessageID))
	for _, want := range []string{"model openai/test-model", "120 tokens in (100 cached), 7 out", "history", "quoted from outside the window: " + strconv.Itoa(first.MessageID), "tail"} {
		if !strings.Contains(out, want) {
			t.Errorf("context explain lacks %q:\n%s", want, out)
		}
	}

	out = run("context", "show", "--config", h.dir, "--chat", chat)
	for _, want := range []string{"POST /v1/chat/completions", `"model": "test-model"`, "the meeting is at the old mill", "[quoted]", "system", "total"} {
		if !strings.Contains(out, want) {
			t.Errorf("context show lacks %q:\n%s", want, out)
		}
	}
	out = run("context", "show", "--config", h.dir, "--chat", chat, "--compact", "--format", "json")
	var shown struct {
		Request struct {
			Messages []struct {
				Content any `json:"content"`
			} `json:"messages"`
		} `json:"request"`
		Composition struct {
			Format   string  `json:"format"`
			Messages []int64 `json:"messages"`
			Quoted   []int64 `json:"quoted"`
		} `json:"composition"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatalf("context show --format json: %v\n%s", err, out)
	}
	if shown.Composition.Format != "compact" || len(shown.Composition.Messages) == 0 || len(shown.Request.Messages) != 2 {
		t.Errorf("compact json view: %+v", shown)
	}
	if text, _ := shown.Request.Messages[1].Content.(string); !strings.Contains(text, "Alice#001001") && !strings.Contains(text, "Alice#1001") {
		t.Errorf("compact transcript does not name speakers compactly:\n%s", text)
	}
}

func llmUsage(in, out, cached int) llm.Usage {
	return llm.Usage{InputTokens: in, OutputTokens: out, CachedTokens: cached}
}
