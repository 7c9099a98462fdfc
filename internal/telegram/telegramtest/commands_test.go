package telegramtest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScopedCommands: command lists are kept per scope, a user sees the narrowest one
// that applies, and scopes Telegram refuses are refused with its errors.
func TestScopedCommands(t *testing.T) {
	srv := Start(t, Options{})
	tok := DefaultToken
	group := Supergroup(-100300, "Team")
	srv.SendGroup(group, alice, "hi") // the group and its member become known
	srv.SendPrivate(alice, "/start")  // alice started the bot
	srv.AddUser(bob)                  // bob never did
	channel := Chat{ID: -100400, Type: ChatChannel, Title: "News"}
	srv.AddChat(channel)

	everyone := []BotCommand{{Command: "start", Description: "Say hello"}}
	admin := []BotCommand{{Command: "start", Description: "Say hello"}, {Command: "status", Description: "Status"}}
	set := func(scope any, cmds []BotCommand) apiResponse {
		p := map[string]any{"commands": cmds}
		if scope != nil {
			p["scope"] = scope
		}
		return call(t, srv, tok, "setMyCommands", p)
	}
	for _, r := range []apiResponse{
		set(nil, everyone),
		set(map[string]any{"type": "chat", "chat_id": alice.ID}, admin),
		set(map[string]any{"type": "chat_member", "chat_id": group.ID, "user_id": alice.ID}, admin),
	} {
		if !r.OK {
			t.Fatalf("setMyCommands: %s", r.Description)
		}
	}

	for _, c := range []struct {
		name       string
		chat, user int64
		want       []BotCommand
	}{
		{"alice in her private chat", alice.ID, alice.ID, admin},
		{"bob in his private chat", bob.ID, bob.ID, everyone},
		{"alice in the group", group.ID, alice.ID, admin},
		{"bob in the group", group.ID, bob.ID, everyone},
	} {
		if diff := cmp.Diff(srv.Menu(tok, c.chat, c.user), c.want); diff != "" {
			t.Errorf("%s sees (-got +want):\n%s", c.name, diff)
		}
	}
	if diff := cmp.Diff(srv.CommandsFor(tok, CommandScope{Type: "chat_member", ChatID: group.ID, UserID: alice.ID}), admin); diff != "" {
		t.Errorf("CommandsFor chat_member (-got +want):\n%s", diff)
	}
	if got := srv.CommandsFor(tok, CommandScope{Type: "chat", ChatID: group.ID}); got != nil {
		t.Errorf("CommandsFor an unset scope = %v, want nil", got)
	}
	var got []BotCommand
	call(t, srv, tok, "getMyCommands", map[string]any{"scope": map[string]any{"type": "chat", "chat_id": alice.ID}}).decode(t, &got)
	if diff := cmp.Diff(got, admin); diff != "" {
		t.Errorf("getMyCommands of alice's chat (-got +want):\n%s", diff)
	}

	// Malformed scopes (no type, an unknown one, a missing field) are spec violations,
	// which the server reports to the test; these are well-formed but refused.
	for _, c := range []struct {
		name  string
		scope any
		lang  string
		want  string
	}{
		{"a user who never started the bot", map[string]any{"type": "chat", "chat_id": bob.ID}, "", "Bad Request: chat not found"},
		{"a group the bot never saw", map[string]any{"type": "chat_member", "chat_id": -100999, "user_id": alice.ID}, "", "Bad Request: chat not found"},
		{"chat_member of an unknown user", map[string]any{"type": "chat_member", "chat_id": group.ID, "user_id": 999999}, "", "Bad Request: user not found"},
		{"chat_member in a private chat", map[string]any{"type": "chat_member", "chat_id": alice.ID, "user_id": alice.ID}, "", "Bad Request: can't use specified scope in private chats"},
		{"a channel", map[string]any{"type": "chat", "chat_id": channel.ID}, "", "Bad Request: can't change commands in channel chats"},
		{"bad language", nil, "english", "Bad Request: invalid language code specified"},
	} {
		p := map[string]any{"commands": everyone}
		if c.scope != nil {
			p["scope"] = c.scope
		}
		if c.lang != "" {
			p["language_code"] = c.lang
		}
		r := call(t, srv, tok, "setMyCommands", p)
		if r.OK || r.Description != c.want {
			t.Errorf("%s: ok %t, %q; want %q", c.name, r.OK, r.Description, c.want)
		}
	}
	// A scope by the group's @username works like its id.
	public := Supergroup(-100301, "Public")
	public.Username = "public_team"
	srv.SendGroup(public, alice, "hi")
	if r := set(map[string]any{"type": "chat", "chat_id": "@public_team"}, admin); !r.OK {
		t.Errorf("scope by @username: %s", r.Description)
	}
	if got := srv.Menu(tok, public.ID, bob.ID); len(got) != 2 || !strings.EqualFold(got[1].Command, "status") {
		t.Errorf("the group's menu set by @username = %v", got)
	}
}
