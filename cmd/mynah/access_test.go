package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// Users of the access tests; owner is the admin where a test has one.
var (
	owner   = telegramtest.User{ID: 1, FirstName: "Owner"}
	carol   = telegramtest.User{ID: 1003, FirstName: "Carol", Username: "carol_c"}
	mallory = telegramtest.User{ID: 1666, FirstName: "Mallory", Username: "mallory"}
)

var codePattern = regexp.MustCompile(`code is ([A-Z2-9]{8})`)

// echo makes the fake provider answer every request.
func (h *harness) echo() {
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Reply{Text: "re: " + lastPlainLine(r.LastUserText())}
	})
}

// delivered waits until mynah has taken every update from the emulator: each is then
// stored, with its turn queued if it gets one.
func (h *harness) delivered() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.t.Context(), 30*time.Second)
	defer cancel()
	if err := h.emu.WaitDelivered(ctx, telegramtest.DefaultToken); err != nil {
		h.t.Fatalf("updates not taken: %v\n%s", err, h.logs.String())
	}
}

// mynah runs another mynah command on the harness's configuration.
func (h *harness) mynah(args ...string) (string, error) {
	h.t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Args[0] = "mynah"
	cmd.Env = h.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// texts returns the texts the bot sent to chat.
func (h *harness) texts(chat int64) []string {
	var out []string
	for _, s := range h.emu.Sent(chat) {
		out = append(out, s.Text)
	}
	return out
}

// storedTexts returns the texts of the messages stored from user, in any chat.
func storedTexts(t *testing.T, h *harness, user int64) []string {
	t.Helper()
	var out []string
	for _, row := range h.query("SELECT text FROM messages WHERE sender_id = ? ORDER BY stored_at, message_id", user) {
		out = append(out, row[0])
	}
	return out
}

func TestPairing(t *testing.T) {
	h := newHarness(t, harnessOptions{Access: "{}"}) // the defaults: pairing
	h.echo()
	h.start()

	h.emu.SendPrivate(alice, "hello, who are you?")
	sent := h.waitSent(alice.ID, 1)
	m := codePattern.FindStringSubmatch(sent[0].Text)
	if m == nil {
		t.Fatalf("a stranger got %q, want a pairing code", sent[0].Text)
	}
	code := m[1]
	if !h.waitLog(code) {
		t.Error("the pairing code is not in the log, where the operator looks first")
	}
	// Asking again while the code is pending: silence, and /start repeats the same code.
	h.emu.SendPrivate(alice, "hello??")
	h.emu.SendPrivate(alice, "/start")
	if s := h.waitSent(alice.ID, 2); !strings.Contains(s[1].Text, code) {
		t.Errorf("/start while pending got %q, want the same code %s", s[1].Text, code)
	}
	// Three codes at most wait at once: the fourth stranger is told to try later.
	for i, u := range []telegramtest.User{bob, carol, mallory} {
		h.emu.SendPrivate(u, "hi")
		want := "valid for"
		if i == 2 {
			want = "try again"
		}
		if s := h.waitSent(u.ID, 1); !strings.Contains(s[0].Text, want) {
			t.Errorf("stranger %d got %q, want %q", i+1, s[0].Text, want)
		}
	}
	if n := len(h.llm.Requests()); n != 0 {
		t.Fatalf("%d model calls for strangers, want none: unauthorised messages must cost nothing", n)
	}

	out, err := h.mynah("pair", "list", "--config", h.dir)
	if err != nil || !strings.Contains(out, code) || !strings.Contains(out, "@alice") || !strings.Contains(out, "pending") {
		t.Errorf("pair list: %v\n%s", err, out)
	}
	out, err = h.mynah("pair", "approve", "--config", h.dir, strings.ToLower(code))
	if err != nil || !strings.Contains(out, "approved Alice @alice id 1001 for agent Mynah") {
		t.Fatalf("pair approve: %v\n%s", err, out)
	}
	if s := h.waitSent(alice.ID, 3); s[2].Text != "You're in. Write to me any time." {
		t.Errorf("after approval alice got %q, want the welcome", s[2].Text)
	}
	h.emu.SendPrivate(alice, "now can we talk?")
	if s := h.waitSent(alice.ID, 4); s[3].Text != "re: now can we talk?" {
		t.Errorf("after approval alice got %q, want an answer", s[3].Text)
	}
	if _, err := h.mynah("pair", "approve", "--config", h.dir, code); err == nil {
		t.Error("approving a code twice succeeded")
	}
	if out, err := h.mynah("pair", "approve", "--config", h.dir, "nope"); err == nil || !strings.Contains(out, "not a pairing code") {
		t.Errorf("approving a malformed code: %v\n%s", err, out)
	}
	h.stop()

	// The approval survives a restart; the strangers' messages were stored, not answered.
	h.start()
	h.emu.SendPrivate(alice, "still there?")
	h.waitSent(alice.ID, 5)
	h.stop()
	if n := len(h.llm.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2 (only alice's messages after approval)", n)
	}
	if got := storedTexts(t, h, alice.ID); len(got) != 5 || got[1] != "hello??" {
		t.Errorf("alice's stored messages = %q, want all 5", got)
	}
}

func TestAllowlistAndBlocklist(t *testing.T) {
	h := newHarness(t, harnessOptions{Access: `{private: allowlist, allow: [1001, "@Bob_B"], block: ["@mallory"], groups: {allow: ["*"]}}`})
	bobB := telegramtest.User{ID: 1002, FirstName: "Bob", Username: "bob_b"}
	h.echo()
	h.start()
	group := telegramtest.Supergroup(-100777, "Open group")
	h.emu.SendPrivate(carol, "let me in")
	h.emu.SendPrivate(mallory, "spam")
	h.emu.SendGroup(group, mallory, "@mynah_bot spam")
	h.emu.SendPrivate(alice, "by id")
	h.emu.SendPrivate(bobB, "by username")
	h.waitSent(alice.ID, 1)
	h.waitSent(bobB.ID, 1)
	h.emu.SendGroup(group, carol, "@mynah_bot groups are open to everyone not blocked")
	h.waitSent(group.ID, 1)
	h.delivered()
	h.stop()
	if got := h.texts(carol.ID); len(got) != 0 {
		t.Errorf("a user not on the allowlist got %q", got)
	}
	if got := len(h.emu.Sent(mallory.ID)) + len(h.emu.Sent(group.ID)); got != 1 {
		t.Errorf("%d messages for mallory and the group, want only carol's answer", got)
	}
	if n := len(h.llm.Requests()); n != 3 {
		t.Errorf("%d model calls, want 3", n)
	}
	if got := storedTexts(t, h, carol.ID); len(got) != 2 {
		t.Errorf("carol's stored messages = %q; unauthorised messages are stored", got)
	}
	if got := storedTexts(t, h, mallory.ID); len(got) != 0 {
		t.Errorf("a blocked user's messages were stored: %q", got)
	}
}

func TestGroupTriggers(t *testing.T) {
	h := newHarness(t, harnessOptions{
		Access: "{}",
		YAML: `defaults:
  access:
    admins: [1]
    groups:
      allow: [-100701, -100702, -100703, -100704]
      per_group: {-100702: always, "-100703": reply, -100704: name}
`})
	h.echo()
	h.start()
	mention := telegramtest.Supergroup(-100701, "Mention")
	always := telegramtest.Supergroup(-100702, "Always")
	reply := telegramtest.Supergroup(-100703, "Reply")
	name := telegramtest.Supergroup(-100704, "Name")
	other := telegramtest.Supergroup(-100799, "Not allowed")

	h.emu.SendGroup(mention, alice, "just chatting")
	h.emu.SendGroup(mention, alice, "Mynah, hi")
	h.waitSent(mention.ID, 1)

	h.emu.SendGroup(always, alice, "just chatting")
	h.waitSent(always.ID, 1)

	h.emu.SendGroup(reply, alice, "Mynah, are you there?") // names do not count
	h.emu.SendGroup(reply, alice, "@mynah_bot hello")
	first := h.waitSent(reply.ID, 1)[0]
	h.emu.SendGroup(reply, alice, "and?", telegramtest.ReplyTo(first.MessageID))
	h.waitSent(reply.ID, 2)

	h.emu.SendGroup(name, alice, "Mynah, hi")
	first = h.waitSent(name.ID, 1)[0]
	h.emu.SendGroup(name, alice, "a reply does not count", telegramtest.ReplyTo(first.MessageID))
	h.emu.SendGroup(name, alice, "@mynah_bot a mention does")
	h.waitSent(name.ID, 2)

	h.emu.SendGroup(other, alice, "@mynah_bot anyone?")
	h.emu.SendGroup(other, owner, "/status")
	if s := h.waitSent(other.ID, 1); !strings.Contains(s[0].Text, "-100799") || !strings.Contains(s[0].Text, "not on the group allowlist") {
		t.Errorf("/status in a group not allowed = %q", s[0].Text)
	}
	h.delivered()
	h.stop()
	want := map[string][]string{
		"mention": {"re: Mynah, hi"},
		"always":  {"re: just chatting"},
		"reply":   {"re: @mynah_bot hello", "re: and?"},
		"name":    {"re: Mynah, hi", "re: @mynah_bot a mention does"},
	}
	for label, chat := range map[string]telegramtest.Chat{"mention": mention, "always": always, "reply": reply, "name": name} {
		if got := strings.Join(h.texts(chat.ID), " | "); got != strings.Join(want[label], " | ") {
			t.Errorf("%s group got %q, want %q", label, got, want[label])
		}
	}
	if n := len(h.emu.Sent(other.ID)); n != 1 {
		t.Errorf("%d messages in a group not allowed, want only the /status answer", n)
	}
	if n := len(h.llm.Requests()); n != 6 {
		t.Errorf("%d model calls, want 6", n)
	}
}

func TestAdminCommands(t *testing.T) {
	h := newHarness(t, harnessOptions{Access: "{private: open, admins: [1]}"})
	h.echo()
	h.start()
	group := telegramtest.Supergroup(-100777, "Team")

	h.emu.SendGroup(group, alice, "/activation always") // not an admin: stored, no reply
	h.emu.SendGroup(group, owner, "/activation@mynah_bot always")
	if s := h.waitSent(group.ID, 1); !strings.HasPrefix(s[0].Text, "Activation: always") {
		t.Fatalf("/activation always answered %q", s[0].Text)
	}
	h.emu.SendGroup(group, alice, "nobody mentions the bot here")
	h.waitSent(group.ID, 2)
	h.emu.SendGroup(group, owner, "/stop") // /mute's old name, where no crew works
	if s := h.waitSent(group.ID, 3); !strings.HasPrefix(s[2].Text, "Muted") {
		t.Fatalf("/stop answered %q", s[2].Text)
	}
	h.emu.SendGroup(group, alice, "@mynah_bot hello?")
	h.emu.SendPrivate(owner, "/status")
	if s := h.waitSent(owner.ID, 1); !strings.Contains(s[0].Text, "Mynah is running on openai/test-model") {
		t.Errorf("/status in private = %q", s[0].Text)
	}
	h.emu.SendPrivate(alice, "/status") // not an admin: an ordinary user gets nothing
	h.delivered()
	h.stop()

	// Stopped survives a restart; /activation resumes.
	h.start()
	h.emu.SendGroup(group, alice, "@mynah_bot still stopped?")
	h.emu.SendGroup(group, owner, "/status")
	if s := h.waitSent(group.ID, 4); !strings.Contains(s[3].Text, "trigger always, stopped") {
		t.Errorf("/status after restart = %q", s[3].Text)
	}
	h.emu.SendGroup(group, owner, "/activation mention")
	h.waitSent(group.ID, 5)
	h.emu.SendGroup(group, alice, "chatter again")
	h.emu.SendGroup(group, alice, "@mynah_bot back?")
	h.waitSent(group.ID, 6)
	h.delivered()
	h.stop()
	got := h.texts(group.ID)
	if len(got) != 6 || got[5] != "re: @mynah_bot back?" {
		t.Errorf("group transcript = %q", got)
	}
	if n := len(h.emu.Sent(alice.ID)); n != 0 {
		t.Errorf("a non-admin's /status was answered")
	}
	if n := len(h.llm.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
}

func TestRateLimit(t *testing.T) {
	h := newHarness(t, harnessOptions{Access: "{private: open, rate_limit: {messages: 2, per: 1h}}"})
	h.echo()
	h.start()
	for i, text := range []string{"one", "two", "three"} {
		h.emu.SendPrivate(alice, text)
		h.waitSent(alice.ID, i+1)
	}
	h.emu.SendPrivate(alice, "four")
	h.emu.SendPrivate(alice, "/help") // commands cost no tokens: they have a budget of their own
	h.waitSent(alice.ID, 4)
	h.delivered()
	h.stop()
	got := h.texts(alice.ID)
	if len(got) != 4 || got[0] != "re: one" || got[1] != "re: two" || !strings.Contains(got[2], "faster than") || !strings.Contains(got[3], "/reset") {
		t.Errorf("replies = %q, want two answers, one notice, then only the /help text", got)
	}
	if n := len(h.llm.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
}

func TestAccessEnvOverride(t *testing.T) {
	h := newHarness(t, harnessOptions{Access: "{}"})
	h.echo()
	base := h.env
	h.env = append(base, "MYNAH_ACCESS_PRIVATE=open")
	h.start()
	h.emu.SendPrivate(alice, "open?")
	if s := h.waitSent(alice.ID, 1); s[0].Text != "re: open?" {
		t.Errorf("with MYNAH_ACCESS_PRIVATE=open a stranger got %q", s[0].Text)
	}
	h.stop()

	h.env = append(base, "MYNAH_ACCESS_PRIVATE=allowlist", "MYNAH_ACCESS_ALLOW=@someone,1002")
	h.start()
	h.emu.SendPrivate(alice, "still open?")
	h.emu.SendPrivate(bob, "am I allowed?")
	h.waitSent(bob.ID, 1)
	h.delivered()
	h.stop()
	if n := len(h.emu.Sent(alice.ID)); n != 1 {
		t.Errorf("alice got %d messages, want 1: she is not on MYNAH_ACCESS_ALLOW", n)
	}
	if n := len(h.llm.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
}
