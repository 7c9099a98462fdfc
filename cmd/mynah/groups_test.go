package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// addBot injects the my_chat_member update Telegram sends when by adds the bot to chat.
func (h *harness) addBot(chat telegramtest.Chat, by telegramtest.User) {
	h.t.Helper()
	member := func(status string) map[string]any {
		return map[string]any{"status": status, "user": map[string]any{"id": botUser.ID, "is_bot": true,
			"first_name": botUser.FirstName, "username": botUser.Username}}
	}
	raw, err := json.Marshal(map[string]any{
		"chat": chat, "from": by, "date": time.Now().Unix(),
		"old_chat_member": member("left"), "new_chat_member": member("member"),
	})
	if err != nil {
		h.t.Fatal(err)
	}
	if u := h.emu.Inject(telegramtest.DefaultToken, telegramtest.Update{Extra: map[string]json.RawMessage{"my_chat_member": raw}}); u.UpdateID == 0 {
		h.t.Fatal("the bot does not receive my_chat_member updates")
	}
}

// TestGroupsNeedApproval: with the default access settings a stranger who adds the bot to
// a group and mentions it gets nothing and costs nothing; the owner is told once, with the
// command that approves the group, and pair list shows it. Groups an admin added, where
// an admin sent /activation, or that the operator approved are answered (issue 10,
// item 1).
func TestGroupsNeedApproval(t *testing.T) {
	h := newHarness(t, harnessOptions{Access: "{admins: [1]}"})
	h.echo()
	h.start()
	eve := telegramtest.User{ID: 4001, FirstName: "Eve", Username: "eve_x"}
	strange := telegramtest.Supergroup(-100401, "Eve's group")
	owned := telegramtest.Supergroup(-100402, "Owner's group")
	activated := telegramtest.Supergroup(-100403, "Activated")

	h.addBot(strange, eve)
	h.emu.SendGroup(strange, eve, "@mynah_bot write me a poem")
	h.emu.SendGroup(strange, eve, "@mynah_bot hello??")
	h.emu.SendGroup(strange, eve, "/help@mynah_bot")
	h.addBot(owned, owner)
	h.emu.SendGroup(owned, eve, "@mynah_bot hi from the owner's group")
	h.waitSent(owned.ID, 1)
	h.emu.SendGroup(activated, eve, "@mynah_bot anyone?")
	h.emu.SendGroup(activated, owner, "/activation@mynah_bot mention")
	h.waitSent(activated.ID, 1)
	h.emu.SendGroup(activated, eve, "@mynah_bot now?")
	h.waitSent(activated.ID, 2)
	h.delivered()
	approve := fmt.Sprintf("mynah pair approve-group %d --agent Mynah", strange.ID)
	if !h.waitLog(approve) {
		t.Errorf("the log does not name the command that approves the stranger's group")
	}
	if n := len(h.emu.Sent(strange.ID)); n != 0 {
		t.Errorf("%d messages in a group a stranger added, want none", n)
	}
	if n := len(h.llm.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2 (the owner's group and the activated one)", n)
	}
	out := mustCLI(t, h, "pair", "list", "--config", h.dir)
	if !strings.Contains(out, approve+" --config "+h.dir) || !strings.Contains(out, "@eve_x") || !strings.Contains(out, `"Eve's group"`) {
		t.Errorf("pair list does not show the waiting group with its approve command:\n%s", out)
	}
	for _, c := range []telegramtest.Chat{owned, activated} {
		if line := lineWith(out, strconv.FormatInt(c.ID, 10)); !strings.Contains(line, "approved") {
			t.Errorf("pair list shows group %d as %q, want approved", c.ID, line)
		}
	}
	h.stop()

	// The notice is given once, also across a restart; approval works while serve runs.
	h.start()
	h.emu.SendGroup(strange, eve, "@mynah_bot still nothing?")
	h.delivered()
	// The command exactly as pair list prints it.
	line := lineWith(mustCLI(t, h, "pair", "list", "--config", h.dir), "mynah pair approve-group")
	_, command, _ := strings.Cut(line, "mynah ")
	if out := mustCLI(t, h, strings.Fields(command)...); !strings.Contains(out, `approved group -100401 "Eve's group" for agent Mynah`) {
		t.Errorf("%s: %s", command, out)
	}
	if out, code := mynahCLI(t, h, "pair", "approve-group", "--config", h.dir, "100401"); code != 2 || !strings.Contains(out, "not a group's chat id") {
		t.Errorf("approve-group with a positive id: exit %d\n%s", code, out)
	}
	h.emu.SendGroup(strange, eve, "@mynah_bot and now?")
	if s := h.waitSent(strange.ID, 1); s[0].Text != "re: @mynah_bot and now?" {
		t.Errorf("after approval the group got %q", s[0].Text)
	}
	h.stop()
	if n := strings.Count(h.logs.String(), `never answered" agent=Mynah chat=-100401`); n != 1 {
		t.Errorf("the owner was told %d times about the stranger's group, want once:\n%s", n, h.logs)
	}
	if n := len(h.llm.Requests()); n != 3 {
		t.Errorf("%d model calls, want 3", n)
	}
}

// lineWith returns the first line of out containing s.
func lineWith(out, s string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// TestGroupsOpenExplicitly: groups.allow ["*"] keeps the old behaviour for an operator who
// asks for it (testdata/script/access.txtar checks "*" among chat ids is refused).
func TestGroupsOpenExplicitly(t *testing.T) {
	h := newHarness(t, harnessOptions{Access: `{groups: {allow: ["*"]}}`})
	h.echo()
	h.start()
	group := telegramtest.Supergroup(-100411, "Anyone's")
	h.emu.SendGroup(group, telegramtest.User{ID: 4002, FirstName: "Stranger"}, "@mynah_bot hi")
	h.waitSent(group.ID, 1)
	h.stop()
}

// TestAccessPolicyGroups: what groups.allow turns into.
func TestAccessPolicyGroups(t *testing.T) {
	for _, c := range []struct {
		allow    []string
		approved bool
		listed   int
	}{
		{nil, true, 0},
		{[]string{"*"}, false, 0},
		{[]string{" * "}, false, 0},
		{[]string{"-100123", "-100456"}, false, 2},
	} {
		p, err := accessPolicy("f", "access", accessConfig{Groups: groupsConfig{Allow: c.allow}})
		if err != nil {
			t.Fatal(err)
		}
		if p.ApprovedGroups != c.approved || len(p.Groups) != c.listed {
			t.Errorf("groups.allow %q: ApprovedGroups %t, %d listed; want %t, %d", c.allow, p.ApprovedGroups, len(p.Groups), c.approved, c.listed)
		}
	}
	if _, err := accessPolicy("f", "access", accessConfig{Groups: groupsConfig{Allow: []string{"*", "-1"}}}); err == nil {
		t.Error(`groups.allow ["*", "-1"] was accepted`)
	}
	p, err := accessPolicy("f", "access", accessConfig{RateLimit: &rateLimitConfig{Messages: 3, Per: duration(time.Hour), Commands: 7}})
	if err != nil || p.Limit.Commands != 7 {
		t.Errorf("rate_limit.commands: %+v, %v", p.Limit, err)
	}
}

// TestForgedPressRefused: a button press whose data names the presser, on the /memories
// message that answered somebody else, is refused and edits nothing (issue 10, item 7).
func TestForgedPressRefused(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	mustCLI(t, h, "memory", "add", "--config", h.dir, "--user", "1001", "Alice's door code is 4711")
	mustCLI(t, h, "memory", "add", "--config", h.dir, "--user", "1002", "Bob likes chess")
	h.echo()
	h.start()
	h.emu.SendPrivate(alice, "/memories")
	page := h.waitSent(alice.ID, 1)[0]
	if !strings.Contains(page.Text, "4711") {
		t.Fatalf("alice's /memories: %q", page.Text)
	}
	msg := page.Message
	h.emu.Inject(telegramtest.DefaultToken, telegramtest.Update{CallbackQuery: &telegramtest.CallbackQuery{
		ID: "forged-1", From: bob, Message: &msg, ChatInstance: "1", Data: fmt.Sprintf("m:p:%d:1", bob.ID),
	}})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	calls, err := h.emu.WaitCalls(ctx, "answerCallbackQuery", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := calls[0].Param("text"); got != "These are not your memories." {
		t.Errorf("the forged press was answered %q", got)
	}
	h.stop()
	if s := h.emu.Sent(alice.ID); len(s) != 1 || len(s[0].Edits) != 0 || !strings.Contains(s[0].Text, "4711") {
		t.Errorf("alice's /memories message after bob's forged press: %+v", s)
	}
}

// TestReplayedMessageAnsweredOnce: a message delivered again under a new update id (a
// webhook replay) is stored once and answered once (issue 10, item 7).
func TestReplayedMessageAnsweredOnce(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.echo()
	h.start()
	first := h.emu.SendPrivate(alice, "hello")
	h.waitSent(alice.ID, 1)
	h.emu.Inject(telegramtest.DefaultToken, telegramtest.Update{Message: &first})
	h.delivered() // stored, with its turn queued if it gets one
	h.emu.SendPrivate(alice, "second")
	h.waitSent(alice.ID, 2)
	h.delivered()
	h.stop()
	if got := h.texts(alice.ID); strings.Join(got, " | ") != "re: hello | re: second" {
		t.Errorf("replies = %q, want one per message", got)
	}
	if n := len(h.llm.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
}

// TestCommandsCountAgainstRateLimit: a stranger's 100 /start and an allowed user's 20
// /help make the bot send only up to the command budget and one notice each; the allowed
// user's messages keep their own budget (issue 10, item 17).
func TestCommandsCountAgainstRateLimit(t *testing.T) {
	h := newHarness(t, harnessOptions{Access: "{allow: [1001], rate_limit: {messages: 2, per: 1h}}"})
	h.echo()
	h.start()
	stranger := telegramtest.User{ID: 4031, FirstName: "Flood"}
	for range 100 {
		h.emu.SendPrivate(stranger, "/start")
	}
	for range 20 {
		h.emu.SendPrivate(alice, "/help")
	}
	h.emu.SendPrivate(alice, "a question")
	h.waitSent(alice.ID, 4)
	h.waitSent(stranger.ID, 3)
	h.delivered()
	h.stop() // drains every queued turn
	got := h.texts(stranger.ID)
	if len(got) != 3 || !strings.Contains(got[0], "pairing code") || !strings.Contains(got[2], "faster than") {
		t.Errorf("the stranger's 100 /start got %d replies %q, want the code twice and one notice", len(got), got)
	}
	got = h.texts(alice.ID)
	if len(got) != 4 || !strings.Contains(got[2], "faster than") || !strings.HasPrefix(got[3], "re:") {
		t.Errorf("alice's 20 /help and a question got %q, want two /help texts, one notice and an answer", got)
	}
}
