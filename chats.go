package mynah

import (
	"context"
	"time"
)

// Session is the current conversation of an agent in a chat, or in one forum topic of a
// chat: the prompt includes only messages after Start. Old sessions' messages stay stored.
type Session struct {
	Agent   string
	Chat    ChatID
	Thread  int64     // forum topic; 0 for a chat without topics (and a forum's General)
	Start   MessageID // the prompt includes messages with id > Start
	Started time.Time
}

// Sessions reads the current session of a chat or forum topic.
type Sessions interface {
	// Session returns the current session of chat's topic thread (0: outside topics).
	// Each topic has its own: a reset in one topic leaves the others as they were. A topic
	// without a reset has Start 0.
	Session(ctx context.Context, agent string, chat ChatID, thread int64) (Session, error)
}

// Chats reads chats as last seen and records per-chat delivery state.
type Chats interface {
	// Chat returns the chat as agent last saw it, or an error wrapping ErrNotFound.
	Chat(ctx context.Context, agent string, id ChatID) (Chat, error)
	// SetBlocked marks that the chat's user blocked the agent's bot (or unblocked it).
	SetBlocked(ctx context.Context, agent string, id ChatID, blocked bool) error
	// Blocked reports whether the chat's user blocked the agent's bot; false when never
	// set.
	Blocked(ctx context.Context, agent string, id ChatID) (bool, error)
}
