package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

func toolCall(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// TestPlanInGroup: the model answers a mention with a plan — a reaction, a sticker from
// the agent's set and two messages — and the group sees exactly that, in order, from one
// model call.
func TestPlanInGroup(t *testing.T) {
	h := newHarness(t, harnessOptions{Front: "stickers: [MrRibbit]\n"})
	h.emu.AddStickerSet("MrRibbit", "Mr Ribbit", "😀", "💻")
	h.llm.Push(llmtest.Reply{Text: "Let me think.", ToolCalls: []llm.ToolCall{
		toolCall("c1", "react", `{"emoji":"👀"}`),
		toolCall("c2", "send_sticker", `{"emoji":"💻"}`),
		toolCall("c3", "send_message", `{"text":"Mynahs eat **fruit** and insects."}`),
	}})
	h.start()
	group := telegramtest.Supergroup(-100555, "Bird watchers")
	mention := h.emu.SendGroup(group, alice, "@mynah_bot what do mynahs eat?")
	sent := h.waitSent(group.ID, 3)
	if sent[0].Text != "Let me think." || sent[0].ReplyTo != mention.MessageID {
		t.Errorf("first message %q replying to %d, want the answer text replying to the mention %d", sent[0].Text, sent[0].ReplyTo, mention.MessageID)
	}
	if st := sent[1].Message.Sticker; sent[1].Method != "sendSticker" || st == nil || st.Emoji != "💻" || st.SetName != "MrRibbit" {
		t.Errorf("second message %s %+v, want the 💻 sticker of MrRibbit", sent[1].Method, sent[1].Message.Sticker)
	}
	if sent[2].Text != "Mynahs eat fruit and insects." || sent[2].ParseMode != "HTML" {
		t.Errorf("third message %q (%s)", sent[2].Text, sent[2].ParseMode)
	}
	reactions := h.emu.Reactions(group.ID)
	if len(reactions) != 1 || reactions[0].MessageID != mention.MessageID || !strings.Contains(reactionText(reactions[0]), "👀") {
		t.Errorf("reactions %+v, want 👀 on the mention", reactions)
	}
	if n := len(h.llm.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
	if req := h.llm.Requests()[0]; !strings.Contains(string(req.Body), `"send_sticker"`) || !strings.Contains(string(req.Body), "MrRibbit") {
		t.Errorf("the request does not offer send_sticker with the agent's set:\n%s", req.Body)
	}
	h.stop()
}

func reactionText(r telegramtest.Reaction) string {
	b, _ := json.Marshal(r.Reaction)
	return string(b)
}

// TestReminderSurvivesRestart: a reminder the model schedules is sent when due, even when
// mynah was restarted in between, and costs no model call.
func TestReminderSurvivesRestart(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.Push(llmtest.Reply{Text: "Sure, I'll remind you.", ToolCalls: []llm.ToolCall{
		toolCall("c1", "schedule", `{"text":"Time to **stretch**!","in_minutes":0.05}`), // 3 s
	}})
	h.start()
	h.emu.SendPrivate(alice, "remind me to stretch in a few seconds")
	h.waitSent(alice.ID, 1)
	h.stop()
	h.start()
	sent := h.waitSent(alice.ID, 2)
	if sent[1].Text != "Time to stretch!" {
		t.Errorf("reminder %q", sent[1].Text)
	}
	time.Sleep(100 * time.Millisecond) // nothing more may follow
	if got := h.emu.Sent(alice.ID); len(got) != 2 {
		t.Errorf("%d messages, want the answer and one reminder", len(got))
	}
	if n := len(h.llm.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
	h.stop()
}

// TestTaskFailuresInMetrics: a reaction Telegram refuses is given up without holding the
// answer back, and the refusal shows in the Prometheus metrics along with the model call.
func TestTaskFailuresInMetrics(t *testing.T) {
	addr := freePort(t)
	h := newHarness(t, harnessOptions{YAML: "metrics:\n  listen: " + addr + "\n"})
	h.llm.Push(llmtest.Reply{Text: "Noted.", ToolCalls: []llm.ToolCall{
		toolCall("c1", "react", `{"emoji":"👍","message_id":999999}`), // no such message
	}})
	h.start()
	h.emu.SendPrivate(alice, "hello")
	if sent := h.waitSent(alice.ID, 1); sent[0].Text != "Noted." {
		t.Fatalf("answer %q", sent[0].Text)
	}
	var body string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		body = httpGet(t, "http://"+addr+"/metrics")
		if strings.Contains(body, `outcome="rejected"`) {
			break
		}
	}
	for _, want := range []string{
		`mynah_tasks_total{agent="Mynah",kind="react",outcome="rejected"} 1`,
		`mynah_tasks_total{agent="Mynah",kind="send",outcome="done"} 1`,
		`mynah_model_calls_total{agent="Mynah",result="ok"} 1`,
		"process_resident_memory_bytes",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s:\n%s", want, body)
		}
	}
	if !h.waitLog("telegram rejected a task") {
		t.Error("the refused reaction is not in the log")
	}
	h.stop()
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
