package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/telegram"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// TestAdminCommandMenus: everybody's menu has the everyday commands; the admins' menus,
// in their private chats and the allowed groups, add the admin commands. Menus Telegram
// refuses (an admin who never started the bot, a group the bot is not in) do not keep
// mynah from starting.
func TestAdminCommandMenus(t *testing.T) {
	h := newHarness(t, harnessOptions{Access: `{private: open, admins: ["1", "2"], groups: {allow: ["-100777", "-100888"]}}`})
	h.echo()
	team := telegramtest.Supergroup(-100777, "Team") // the bot is in it; -100888 it never saw
	h.emu.AddChat(team)
	h.emu.AddChat(telegramtest.PrivateChat(owner)) // admin 1 started the bot
	h.emu.AddUser(telegramtest.User{ID: 2, FirstName: "Second"})
	h.emu.AddUser(alice)
	h.start()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	// The default menu, then two private chats and two groups for two admins.
	if _, err := h.emu.WaitCalls(ctx, "setMyCommands", 7); err != nil {
		t.Fatalf("setMyCommands calls: %v", err)
	}

	names := func(chat, user int64) string {
		var out []string
		for _, c := range h.emu.Menu(telegramtest.DefaultToken, chat, user) {
			out = append(out, c.Command)
		}
		return strings.Join(out, ",")
	}
	everyone := strings.Join(commandNames(commandMenu()), ",")
	admins := strings.Join(commandNames(adminMenu()), ",")
	// The emulator logs a call before it applies it: let the last one land.
	for names(team.ID, 2) != admins && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.HasPrefix(everyone, "start,help,reset,new") || strings.Contains(everyone, "status") {
		t.Errorf("everybody's menu = %s, want the everyday commands only", everyone)
	}
	if admins != everyone+",status,mute,stop,activation" {
		t.Errorf("the admins' menu = %s, want everybody's and status,mute,stop,activation", admins)
	}
	for _, c := range []struct {
		name       string
		chat, user int64
		want       string
	}{
		{"the admin in their private chat", owner.ID, owner.ID, admins},
		{"the admin in the group", team.ID, owner.ID, admins},
		{"the second admin in the group", team.ID, 2, admins},
		{"a user in their private chat", alice.ID, alice.ID, everyone},
		{"a user in the group", team.ID, alice.ID, everyone},
	} {
		if got := names(c.chat, c.user); got != c.want {
			t.Errorf("%s sees %s, want %s", c.name, got, c.want)
		}
	}

	// mynah runs: the admin's command works.
	h.emu.SendPrivate(owner, "/status")
	if s := h.waitSent(owner.ID, 1); !strings.Contains(s[0].Text, "running") {
		t.Errorf("/status answered %q", s[0].Text)
	}
	h.stop()
	if n := strings.Count(h.logs.String(), "admin command menu not registered"); n != 3 {
		t.Errorf("%d refused menus logged, want 3 (admin 2's private chat, both admins in -100888)\n%s", n, h.logs.String())
	}
}

func commandNames(cmds []telegram.Command) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, c.Name)
	}
	return out
}

// TestDefaultHelp: the default /help lists the everyday commands of ingest's table, the
// line about /help last.
func TestDefaultHelp(t *testing.T) {
	got := defaultHelp("Mynah")
	want := "I'm Mynah. Write to me and I'll answer; in groups, mention me, reply to my messages or call me by name.\n\n" +
		"/reset (or /new) starts a new conversation: I keep the old messages but stop looking at them.\n" +
		"/memories shows what I remember about you; /forget N (or /forget all) makes me forget it.\n/help shows this message."
	if got != want {
		t.Errorf("defaultHelp:\n%s\nwant:\n%s", got, want)
	}
}
