package telegramtest

import (
	"context"
	"fmt"
	"slices"
	"unicode/utf8"
)

const maxCommands = 100

// commandsKey identifies a command list by scope and language.
func commandsKey(scope, lang string) string { return scope + "|" + lang }

// scopeKey reads the scope parameter: its type plus chat and user ids.
func scopeKey(p params) (string, *Error) {
	if !p.has("scope") {
		return "default", nil
	}
	var sc struct {
		Type   string `json:"type"`
		ChatID any    `json:"chat_id"`
		UserID int64  `json:"user_id"`
	}
	if err := p.decode("scope", &sc); err != nil || sc.Type == "" {
		return "", badRequest("can't parse BotCommandScope JSON object")
	}
	if sc.ChatID == nil && sc.UserID == 0 {
		return sc.Type, nil
	}
	return fmt.Sprintf("%s:%v:%d", sc.Type, sc.ChatID, sc.UserID), nil
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
	scope, e := scopeKey(p)
	if e != nil {
		return nil, "", e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b.commands[commandsKey(scope, p.str("language_code"))] = cmds
	return true, "", nil
}

func (s *Server) getMyCommands(_ context.Context, b *bot, p params) (any, string, *Error) {
	scope, e := scopeKey(p)
	if e != nil {
		return nil, "", e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cmds := slices.Clone(b.commands[commandsKey(scope, p.str("language_code"))])
	if cmds == nil {
		cmds = []BotCommand{}
	}
	return cmds, "", nil
}

func (s *Server) deleteMyCommands(_ context.Context, b *bot, p params) (any, string, *Error) {
	scope, e := scopeKey(p)
	if e != nil {
		return nil, "", e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(b.commands, commandsKey(scope, p.str("language_code")))
	return true, "", nil
}
