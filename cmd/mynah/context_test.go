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

// TestLongGroupConversation drives hundreds of group messages from several speakers
// through the real binary, then a question that replies to a message long out of the
// window, and checks the recorded prompt composition of the answer.
func TestLongGroupConversation(t *testing.T) {
	h := newHarness(t, harnessOptions{Front: "context_tokens: 4000\nreply_tokens: 500\n"})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	h.start()
	group := telegramtest.Supergroup(-100700, "Busy")
	speakers := []telegramtest.User{alice, bob, {ID: 1003, FirstName: "Carol"}, {ID: 1004, FirstName: "Dmytro", Username: "dm"}}
	old := h.emu.SendGroup(group, alice, "the spare key is under the blue flowerpot")
	var last telegramtest.Message
	for i := 0; i < 300; i++ {
		var opts []telegramtest.MessageOption
		if i%25 == 24 {
			opts = append(opts, telegramtest.ReplyTo(last.MessageID-10))
		}
		last = h.emu.SendGroup(group, speakers[i%len(speakers)], "message number "+strconv.Itoa(i)+" about the weekend plans and the weather", opts...)
	}
	q := h.emu.SendGroup(group, bob, "@mynah_bot where is the spare key?", telegramtest.ReplyTo(old.MessageID))
	reply := h.waitSent(group.ID, 1)[0]
	h.stop()

	cmd := exec.Command(os.Args[0], "context", "explain", "--config", h.dir, "--reply", strconv.Itoa(reply.MessageID), "--format", "json")
	cmd.Args[0] = "mynah"
	cmd.Env = h.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rec struct {
		Composition struct {
			Budget   int   `json:"budget"`
			Tokens   int   `json:"tokens"`
			Messages []int `json:"messages"`
			Quoted   []int `json:"quoted"`
			Target   int   `json:"target"`
			Trimmed  int   `json:"trimmed"`
			Layers   []struct {
				Name   string
				Tokens int
			} `json:"layers"`
		} `json:"composition"`
	}
	if err := json.Unmarshal(out, &rec); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	c := rec.Composition
	if c.Budget != 3500 || c.Tokens > c.Budget {
		t.Errorf("prompt of %d tokens for a budget of %d, want within 4000-500", c.Tokens, c.Budget)
	}
	if c.Target != q.MessageID || c.Messages[len(c.Messages)-1] != q.MessageID {
		t.Errorf("target %d, last message %d; want the question %d", c.Target, c.Messages[len(c.Messages)-1], q.MessageID)
	}
	for i := 1; i < len(c.Messages); i++ {
		if c.Messages[i] != c.Messages[i-1]+1 {
			t.Fatalf("history is not the newest contiguous run: %v", c.Messages)
		}
	}
	if len(c.Quoted) != 1 || c.Quoted[0] != old.MessageID {
		t.Errorf("quoted %v, want the old message %d the question replies to", c.Quoted, old.MessageID)
	}
	if total := len(c.Messages) + c.Trimmed; total != 302 {
		t.Errorf("%d shown + %d trimmed = %d, want all 302 messages of the session accounted for", len(c.Messages), c.Trimmed, total)
	}
	if len(c.Messages) < 20 || c.Trimmed < 200 {
		t.Errorf("%d messages shown, %d trimmed: the budget should hold a few dozen", len(c.Messages), c.Trimmed)
	}
	text := requestText(h.llm.Requests()[0])
	if !strings.Contains(text, "the spare key is under the blue flowerpot") || !strings.Contains(text, "[quoted]") {
		t.Errorf("the model did not see the quoted old message")
	}
}
