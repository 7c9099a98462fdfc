package main

import (
	"maps"
	"slices"
	"strings"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
	"github.com/mynah-ai/mynah/internal/ingest"
	"github.com/mynah-ai/mynah/internal/telegram"
)

// agentMenus are the command menus of an agent with policy p: commandMenu for everybody,
// and adminMenu for each admin in their private chat and in each group on the allowlist
// (none when every group is allowed: there is no list of groups to name). Admins removed
// from the configuration keep their menus until Telegram forgets them; their commands are
// refused all the same.
func agentMenus(p access.Policy) telegram.Menus {
	return telegram.Menus{Everyone: commandMenu(), Admin: adminMenu(), AdminScopes: adminScopes(p)}
}

// adminScopes lists where the admins see adminMenu: each admin's private chat, then each
// allowed group for each admin, in id order.
func adminScopes(p access.Policy) []telegram.CommandScope {
	var admins []mynah.UserID
	for id, ok := range p.Admins {
		if ok {
			admins = append(admins, id)
		}
	}
	slices.Sort(admins)
	var scopes []telegram.CommandScope
	for _, a := range admins {
		scopes = append(scopes, telegram.CommandScope{Chat: mynah.ChatID(a)})
	}
	for _, g := range slices.Sorted(maps.Keys(p.Groups)) {
		if !p.Groups[g] {
			continue
		}
		for _, a := range admins {
			scopes = append(scopes, telegram.CommandScope{Chat: g, User: a})
		}
	}
	return scopes
}

// commandMenu is the menu everybody sees (setMyCommands, default scope).
func commandMenu() []telegram.Command { return menuOf(false) }

// adminMenu is what the agent's admins see in their private chats and in the allowed
// groups (registerMenus): everybody's menu and the admin commands.
func adminMenu() []telegram.Command { return append(commandMenu(), menuOf(true)...) }

// menuOf lists the commands of ingest's table that are admin commands or not, as admin
// says.
func menuOf(admin bool) []telegram.Command {
	var menu []telegram.Command
	for _, c := range ingest.Commands() {
		if c.Admin == admin {
			menu = append(menu, telegram.Command{Name: c.Name, Description: c.Description})
		}
	}
	return menu
}

// defaultHelp is the reply to /help of an agent whose file sets none: the help lines of
// the commands, the one about /help itself last.
func defaultHelp(name string) string {
	var lines []string
	var self string
	for _, c := range ingest.Commands() {
		switch {
		case c.Name == "help":
			self = c.Help
		case c.Help != "":
			lines = append(lines, c.Help)
		}
	}
	return "I'm " + name + ". Write to me and I'll answer; in groups, mention me, reply to my messages or call me by name.\n\n" +
		strings.Join(append(lines, self), "\n")
}
