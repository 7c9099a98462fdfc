package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// TestTwoAgentsOneProcess runs two agents, each on its own bot, in one mynah process.
func TestTwoAgentsOneProcess(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	const wendyToken = "654321:WENDY-TOKEN-BBBBBBBBBBBBBBBBBBBBBBB"
	wendy := telegramtest.BotUser{ID: 7000002, FirstName: "Wendy", Username: "wendy_bot", CanReadAllGroupMessages: true}
	h.emu.AddBot(wendyToken, wendy)
	write(t, filepath.Join(h.dir, "agents", "Wendy.md"), "---\ntelegram_token: ${WENDY_TOKEN}\nmodel: openai/test-model\n---\nYou are Wendy.\n")
	h.env = append(h.env, "WENDY_TOKEN="+wendyToken)
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		if strings.Contains(r.System, "You are Wendy") {
			return llmtest.Reply{Text: "Wendy here"}
		}
		return llmtest.Reply{Text: "Mynah here"}
	})
	h.start()

	group := telegramtest.Supergroup(-100321, "Crew")
	h.emu.SendGroup(group, alice, "@wendy_bot hello")
	first := h.waitSent(group.ID, 1)
	h.emu.SendGroup(group, alice, "@mynah_bot hello")
	second := h.waitSent(group.ID, 2)
	h.emu.SendPrivate(alice, "hi Wendy", telegramtest.ToBot(wendyToken))
	private := h.waitSent(alice.ID, 1)
	h.stop()

	if first[0].Text != "Wendy here" || first[0].BotID != wendy.ID {
		t.Errorf("first group reply %q from bot %d, want Wendy", first[0].Text, first[0].BotID)
	}
	if second[1].Text != "Mynah here" || second[1].BotID != botUser.ID {
		t.Errorf("second group reply %q from bot %d, want Mynah", second[1].Text, second[1].BotID)
	}
	if private[0].BotID != wendy.ID || private[0].Text != "Wendy here" {
		t.Errorf("private reply %q from bot %d, want Wendy", private[0].Text, private[0].BotID)
	}
	if n := len(h.emu.Sent(group.ID)); n != 2 {
		t.Errorf("%d group replies, want 2: each agent answers only when addressed", n)
	}
	if len(h.emu.Commands(wendyToken)) == 0 {
		t.Error("Wendy's command menu was not registered")
	}
}
