package telegram

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/mynah-ai/mynah"
)

// Admin menus cost one setMyCommands call each (one per admin, and one per admin and
// allowed group), and Telegram rate-limits bots: RegisterMenus makes at most maxMenuCalls
// of them, within menuTimeout, and goes on without the rest.
const (
	maxMenuCalls = 50
	menuTimeout  = 30 * time.Second
)

// Menus are the command menus of a bot: Everyone's in the default scope, Admin's in each
// of AdminScopes (admins' private chats first, then admins in groups).
type Menus struct {
	Everyone, Admin []Command
	AdminScopes     []CommandScope
}

// RegisterMenus registers m. A menu Telegram refuses — an admin who never started the
// bot, a group the bot is not in — is logged and skipped: menus are a convenience and
// never keep an agent from starting, so RegisterMenus returns nil when it is done, gave
// up, or ctx ended.
func (b *Bot) RegisterMenus(ctx context.Context, m Menus) error {
	return registerMenus(ctx, b, m, b.log)
}

// menuSetter registers one command menu (Bot).
type menuSetter interface {
	SetCommandsFor(ctx context.Context, scope CommandScope, cmds []Command) error
}

func registerMenus(ctx context.Context, bot menuSetter, m Menus, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, menuTimeout)
	defer cancel()
	if err := bot.SetCommandsFor(ctx, CommandScope{}, m.Everyone); err != nil {
		log.Warn("could not register the command menu", "err", err)
	}
	scopes := m.AdminScopes
	if len(scopes) > maxMenuCalls {
		log.Warn("too many admin menus to register at start: admins' private chats first, the rest skipped",
			"menus", len(scopes), "registered", maxMenuCalls)
		scopes = scopes[:maxMenuCalls]
	}
	for _, sc := range scopes {
		err := bot.SetCommandsFor(ctx, sc, m.Admin)
		if err == nil {
			continue
		}
		admin := sc.User
		if admin == 0 {
			admin = mynah.UserID(sc.Chat)
		}
		log.Info("admin command menu not registered", "chat", sc.Chat, "admin", admin, "err", err)
		if tg, ok := errors.AsType[*Error](err); (ok && tg.RetryAfter > 0) || ctx.Err() != nil {
			log.Warn("stopped registering admin command menus", "err", err)
			return nil
		}
	}
	return nil
}
