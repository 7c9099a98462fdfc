package main

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
	"github.com/mynah-ai/mynah/internal/ingest"
	"github.com/mynah-ai/mynah/internal/telegram"
)

// Admin menus cost one setMyCommands call each (one per admin, and one per admin and
// allowed group), and Telegram rate-limits bots: start registers at most maxMenuCalls of
// them, within menuTimeout, and goes on without the rest.
const (
	maxMenuCalls = 50
	menuTimeout  = 30 * time.Second
)

// menuSetter registers command menus (telegram.Bot).
type menuSetter interface {
	SetCommandsFor(ctx context.Context, scope telegram.CommandScope, cmds []telegram.Command) error
}

// registerMenus registers the command menus of agent: commandMenu for everybody, and
// adminMenu for each admin in their private chat and in each group on the allowlist (none
// when every group is allowed: there is no list of groups to name). A menu Telegram
// refuses — an admin who never started the bot, a group the bot is not in — is logged and
// skipped: menus are a convenience, and never keep an agent from starting. Admins removed
// from the configuration keep their menus until Telegram forgets them; their commands are
// refused all the same.
func registerMenus(ctx context.Context, bot menuSetter, agent string, p access.Policy, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, menuTimeout)
	defer cancel()
	if err := bot.SetCommandsFor(ctx, telegram.CommandScope{}, commandMenu()); err != nil {
		log.Warn("could not register the command menu", "agent", agent, "err", err)
	}
	scopes := adminScopes(p)
	if len(scopes) > maxMenuCalls {
		log.Warn("too many admin menus to register at start: admins' private chats first, the rest skipped",
			"agent", agent, "menus", len(scopes), "registered", maxMenuCalls)
		scopes = scopes[:maxMenuCalls]
	}
	menu := adminMenu()
	for _, sc := range scopes {
		err := bot.SetCommandsFor(ctx, sc, menu)
		if err == nil {
			continue
		}
		log.Info("admin command menu not registered", "agent", agent, "chat", sc.Chat, "admin", cmp.Or(sc.User, mynah.UserID(sc.Chat)), "err", err)
		if tg, ok := errors.AsType[*telegram.Error](err); (ok && tg.RetryAfter > 0) || ctx.Err() != nil {
			log.Warn("stopped registering admin command menus", "agent", agent, "err", err)
			return
		}
	}
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
