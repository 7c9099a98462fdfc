package telegram

import (
	"context"

	"github.com/mymmrac/telego"

	"github.com/mynah-ai/mynah"
)

// Command is one entry of the bot's command menu.
type Command struct {
	Name        string // without '/': 1-32 lowercase letters, digits and underscores
	Description string // 1-256 characters
}

// SetCommands replaces the bot's command menu for all chats (setMyCommands, default scope).
func (b *Bot) SetCommands(ctx context.Context, cmds []Command) error {
	return b.SetCommandsFor(ctx, CommandScope{}, cmds)
}

// CommandScope says who sees a command menu (a BotCommandScope). The zero value is
// everybody, in every chat without a narrower menu (the default scope). Chat alone is one
// chat: a user's private chat with the bot when Chat is the user's id. Chat and User
// together are one member of a group.
type CommandScope struct {
	Chat mynah.ChatID
	User mynah.UserID
}

// SetCommandsFor replaces the command menu that scope sees (setMyCommands). A chat the
// bot cannot see (a user who never started it, a group it is not in) is an error from
// Telegram: "chat not found".
func (b *Bot) SetCommandsFor(ctx context.Context, scope CommandScope, cmds []Command) error {
	list := make([]telego.BotCommand, len(cmds))
	for i, c := range cmds {
		list[i] = telego.BotCommand{Command: c.Name, Description: c.Description}
	}
	params := &telego.SetMyCommandsParams{Commands: list}
	chat := telego.ChatID{ID: int64(scope.Chat)}
	switch {
	case scope.Chat == 0:
	case scope.User == 0:
		params.Scope = &telego.BotCommandScopeChat{Type: telego.ScopeTypeChat, ChatID: chat}
	default:
		params.Scope = &telego.BotCommandScopeChatMember{Type: telego.ScopeTypeChatMember, ChatID: chat, UserID: int64(scope.User)}
	}
	if err := b.api.SetMyCommands(ctx, params); err != nil {
		return b.fail("setMyCommands", err)
	}
	return nil
}
