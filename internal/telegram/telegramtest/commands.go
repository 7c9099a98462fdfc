package telegramtest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

const maxCommands = 100

// CommandScope names one of a bot's command lists (BotCommandScope): Type is a scope type
// ("default", "all_private_chats", "chat", "chat_member", ...); ChatID is set for the
// chat scopes and UserID for "chat_member".
type CommandScope struct {
	Type   string
	ChatID int64
	UserID int64
}

// key is the scope's key in bot.commands (with the language code appended).
func (sc CommandScope) key() string {
	switch {
	case sc.UserID != 0:
		return fmt.Sprintf("%s:%d:%d", sc.Type, sc.ChatID, sc.UserID)
	case sc.ChatID != 0:
		return fmt.Sprintf("%s:%d", sc.Type, sc.ChatID)
	}
	return sc.Type
}

// commandsKey identifies a command list by scope and language.
func commandsKey(scope, lang string) string { return scope + "|" + lang }

// Errors of a bad scope, as TDLib words them (BotCommandScope::get_bot_command_scope).
const (
	msgScopeType      = "can't parse BotCommandScope: Unsupported type specified"
	msgScopeUserID    = "can't parse BotCommandScope: Invalid user_id specified"
	msgScopePrivate   = "can't use specified scope in private chats"
	msgScopeChannel   = "can't change commands in channel chats"
	msgScopeLanguage  = "invalid language code specified"
	msgScopeNoUser    = "user not found"
	msgScopeBadObject = "can't parse BotCommandScope JSON object"
)

// scopeOf reads and checks the scope and language_code parameters of a call by b, as
// Telegram does: the type must be one of the seven; the chat scopes need a chat the bot
// can see (a private chat only with a user who started the bot, and only the "chat"
// scope there; no channels); "chat_member" needs a known user. s.mu must be held.
func (s *Server) scopeOf(b *bot, p params) (string, *Error) {
	lang := p.str("language_code")
	if lang != "" && !(len(lang) == 2 && lang[0] >= 'a' && lang[0] <= 'z' && lang[1] >= 'a' && lang[1] <= 'z') {
		return "", badRequest(msgScopeLanguage)
	}
	if !p.has("scope") {
		return commandsKey("default", lang), nil
	}
	var raw struct {
		Type   string          `json:"type"`
		ChatID json.RawMessage `json:"chat_id"`
		UserID int64           `json:"user_id"`
	}
	if err := p.decode("scope", &raw); err != nil || raw.Type == "" {
		return "", badRequest(msgScopeBadObject)
	}
	sc := CommandScope{Type: raw.Type}
	switch raw.Type {
	case "default", "all_private_chats", "all_group_chats", "all_chat_administrators":
		return commandsKey(sc.key(), lang), nil
	case "chat", "chat_administrators", "chat_member":
	default:
		return "", badRequest(msgScopeType)
	}
	if raw.Type == "chat_member" && raw.UserID <= 0 {
		return "", badRequest(msgScopeUserID)
	}
	cs, e := s.scopeChat(b, raw.ChatID)
	if e != nil {
		return "", e
	}
	switch {
	case cs.chat.Type == ChatPrivate && raw.Type != "chat":
		return "", badRequest(msgScopePrivate)
	case cs.chat.Type == ChatChannel:
		return "", badRequest(msgScopeChannel)
	}
	if raw.Type == "chat_member" {
		if _, ok := s.users[raw.UserID]; !ok {
			return "", badRequest(msgScopeNoUser)
		}
		sc.UserID = raw.UserID
	}
	sc.ChatID = cs.chat.ID
	return commandsKey(sc.key(), lang), nil
}

// scopeChat resolves a scope's chat_id (an integer, or "@username" of a public group) to a
// chat the bot can see.
func (s *Server) scopeChat(b *bot, raw json.RawMessage) (*chatState, *Error) {
	var id string
	if err := json.Unmarshal(raw, &id); err != nil {
		id = strings.TrimSpace(string(raw))
	}
	if id == "" || id == "null" {
		return nil, badRequest(msgChatIDEmpty)
	}
	if name, ok := strings.CutPrefix(id, "@"); ok {
		for key, cs := range s.chats {
			if key.botID == 0 && cs.chat.Username != "" && strings.EqualFold(cs.chat.Username, name) {
				return cs, nil
			}
		}
		return nil, badRequest(msgChatNotFound)
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n == 0 {
		return nil, badRequest(msgChatNotFound)
	}
	key := chatKey{id: n}
	if n > 0 {
		key.botID = b.user.ID
	}
	if cs := s.chats[key]; cs != nil {
		return cs, nil
	}
	return nil, badRequest(msgChatNotFound)
}

func validCommand(c BotCommand) *Error {
	if n := utf8.RuneCountInString(c.Command); n < 1 || n > 32 {
		return badRequest(msgBadCommand)
	}
	for _, r := range c.Command {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return badRequest(msgBadCommand)
		}
	}
	if n := utf8.RuneCountInString(c.Description); n < 1 || n > 256 {
		return badRequest(msgBadCommandDesc)
	}
	return nil
}

func (s *Server) setMyCommands(_ context.Context, b *bot, p params) (any, string, *Error) {
	var cmds []BotCommand
	if err := p.decode("commands", &cmds); err != nil {
		return nil, "", badRequest("can't parse commands JSON object")
	}
	if len(cmds) > maxCommands {
		return nil, "", badRequest(msgTooManyCommands)
	}
	for _, c := range cmds {
		if e := validCommand(c); e != nil {
			return nil, "", e
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key, e := s.scopeOf(b, p)
	if e != nil {
		return nil, "", e
	}
	b.commands[key] = cmds
	return true, "", nil
}

func (s *Server) getMyCommands(_ context.Context, b *bot, p params) (any, string, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key, e := s.scopeOf(b, p)
	if e != nil {
		return nil, "", e
	}
	cmds := slices.Clone(b.commands[key])
	if cmds == nil {
		cmds = []BotCommand{}
	}
	return cmds, "", nil
}

func (s *Server) deleteMyCommands(_ context.Context, b *bot, p params) (any, string, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key, e := s.scopeOf(b, p)
	if e != nil {
		return nil, "", e
	}
	delete(b.commands, key)
	return true, "", nil
}

// CommandsFor returns the all-language commands the bot with token set for scope exactly,
// nil when it set none there.
func (s *Server) CommandsFor(token string, scope CommandScope) []BotCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bots[token]
	if b == nil {
		return nil
	}
	return slices.Clone(b.commands[commandsKey(scope.key(), "")])
}

// Menu returns the commands that user sees in chat (a private chat when chatID is the
// user's id): the narrowest scope with a list wins, as in Telegram's apps. In a group that
// is chat_member, then chat, then all_group_chats, then default; in a private chat, chat,
// then all_private_chats, then default. The emulator keeps no chat administrators, so
// the administrator scopes are not consulted.
func (s *Server) Menu(token string, chatID, userID int64) []BotCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bots[token]
	if b == nil {
		return nil
	}
	scopes := []CommandScope{{Type: "chat", ChatID: chatID}, {Type: "all_private_chats"}, {Type: "default"}}
	if chatID < 0 {
		scopes = []CommandScope{{Type: "chat_member", ChatID: chatID, UserID: userID}, {Type: "chat", ChatID: chatID},
			{Type: "all_group_chats"}, {Type: "default"}}
	}
	for _, sc := range scopes {
		if cmds, ok := b.commands[commandsKey(sc.key(), "")]; ok {
			return slices.Clone(cmds)
		}
	}
	return nil
}
