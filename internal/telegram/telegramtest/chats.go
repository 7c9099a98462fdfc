package telegramtest

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
)

// chatKey identifies a chat's message history. Private chats are per bot
// (each bot has its own private chat with a user); groups are shared, with
// botID 0.
type chatKey struct{ id, botID int64 }

// chatState is a chat and its messages, guarded by Server.mu.
type chatState struct {
	chat   Chat
	lastID int
	msgs   map[int]*storedMsg
}

// storedMsg is a message as Telegram keeps it.
type storedMsg struct {
	msg     Message
	botID   int64 // sending bot, 0 for users
	deleted bool
	sent    *SentMessage // set for messages sent by a bot
}

func (cs *chatState) nextID() int {
	cs.lastID++
	return cs.lastID
}

// get returns a message that exists and is not deleted, or nil.
func (cs *chatState) get(id int) *storedMsg {
	m := cs.msgs[id]
	if m == nil || m.deleted {
		return nil
	}
	return m
}

// chatLocked returns the state of chat as seen by the bot with botID,
// registering it on first use. Private chats are keyed per bot.
func (s *Server) chatLocked(chat Chat, botID int64) *chatState {
	key := chatKey{id: chat.ID}
	if chat.Type == ChatPrivate {
		key.botID = botID
	}
	cs := s.chats[key]
	if cs == nil {
		cs = &chatState{chat: chat, msgs: map[int]*storedMsg{}}
		s.chats[key] = cs
	}
	return cs
}

// chatFor resolves the chat_id parameter of a call by b.
func (s *Server) chatFor(b *bot, p params) (*chatState, *Error) {
	raw := strings.TrimSpace(p.str("chat_id"))
	if raw == "" {
		return nil, badRequest(msgChatIDEmpty)
	}
	if name, ok := strings.CutPrefix(raw, "@"); ok {
		for key, cs := range s.chats {
			if key.botID == 0 && cs.chat.Username != "" && strings.EqualFold(cs.chat.Username, name) {
				return cs, nil
			}
		}
		return nil, badRequest(msgChatNotFound)
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id == 0 {
		return nil, badRequest(msgChatNotFound)
	}
	if id > 0 {
		if cs := s.chats[chatKey{id: id, botID: b.user.ID}]; cs != nil {
			return cs, nil
		}
		if u, ok := s.users[id]; ok {
			if u.IsBot {
				return nil, forbidden("bot can't send messages to bots")
			}
			return nil, forbidden(msgCantInitiate)
		}
		return nil, badRequest(msgChatNotFound)
	}
	if cs := s.chats[chatKey{id: id}]; cs != nil {
		return cs, nil
	}
	return nil, badRequest(msgChatNotFound)
}

// checkBlocked fails sends to a private chat whose user blocked the bots.
func (s *Server) checkBlocked(cs *chatState) *Error {
	if cs.chat.Type == ChatPrivate && s.blocked[cs.chat.ID] {
		return forbidden(msgBlocked)
	}
	return nil
}

// replyParams are the reply_parameters of a send, or the legacy
// reply_to_message_id and allow_sending_without_reply.
type replyParams struct {
	MessageID                int  `json:"message_id"`
	ChatID                   any  `json:"chat_id,omitempty"`
	AllowSendingWithoutReply bool `json:"allow_sending_without_reply,omitempty"`
}

// replyTarget returns a copy of the message a send replies to, nil if none.
func (s *Server) replyTarget(cs *chatState, p params) (*Message, *Error) {
	var rp replyParams
	switch {
	case p.has("reply_parameters"):
		if err := p.decode("reply_parameters", &rp); err != nil {
			return nil, badRequest("can't parse reply parameters JSON object")
		}
	case p.has("reply_to_message_id"):
		id, _ := p.int("reply_to_message_id")
		rp = replyParams{MessageID: int(id), AllowSendingWithoutReply: p.bool("allow_sending_without_reply")}
	default:
		return nil, nil
	}
	if rp.MessageID == 0 {
		return nil, nil
	}
	target := cs.get(rp.MessageID)
	if target == nil {
		if rp.AllowSendingWithoutReply {
			return nil, nil
		}
		return nil, badRequest(msgReplyNotFound)
	}
	m := target.msg.clone()
	m.ReplyToMessage = nil // Telegram does not nest replies further
	return &m, nil
}

// threadFor returns the message_thread_id of a new message: the parameter,
// or the thread of the replied message; only forums and private chats have
// threads.
func threadFor(cs *chatState, p params, reply *Message) int {
	id, _ := p.int("message_thread_id")
	thread := int(id)
	if thread == 0 && reply != nil {
		thread = reply.MessageThreadID
	}
	if cs.chat.IsForum || cs.chat.Type == ChatPrivate {
		return thread
	}
	return 0
}

// inlineMarkup returns reply_markup when it is an inline keyboard, the only
// kind Telegram echoes in the sent Message, in canonical JSON.
func inlineMarkup(p params) json.RawMessage {
	if !p.has("reply_markup") {
		return nil
	}
	var m map[string]any
	if p.decode("reply_markup", &m) != nil || m["inline_keyboard"] == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return b
}

// getChatMemberCount answers with the number of distinct people who wrote in the chat,
// plus every registered bot for groups (bots are members of the groups they serve); a
// private chat has two members. SetMemberCount overrides it.
func (s *Server) getChatMemberCount(_ context.Context, b *bot, p params) (any, string, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs, e := s.chatFor(b, p)
	if e != nil {
		return nil, "", e
	}
	if cs.chat.Type == ChatPrivate {
		return 2, "", nil
	}
	if n, ok := s.memberCounts[cs.chat.ID]; ok {
		return n, "", nil
	}
	seen := map[int64]bool{}
	for _, m := range cs.msgs {
		if m.botID == 0 && m.msg.From != nil {
			seen[m.msg.From.ID] = true
		}
	}
	return len(seen) + len(s.bots), "", nil
}

// SetMemberCount makes getChatMemberCount answer n for chatID.
func (s *Server) SetMemberCount(chatID int64, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.memberCounts[chatID] = n
}
