package telegramtest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// SentMessage is a message a bot sent, with its later edits and deletion.
type SentMessage struct {
	BotID     int64
	ChatID    int64
	MessageID int
	ThreadID  int
	// Method is the method that sent it: "sendMessage", "sendPhoto", ...
	Method string
	// Text is the text, or the caption of media, after entity parsing.
	Text string
	// Raw is the text or caption parameter as the bot sent it.
	Raw         string
	ParseMode   string
	Entities    []MessageEntity
	ReplyTo     int // id of the replied message, 0 if none
	ReplyMarkup json.RawMessage
	FileID      string // media messages only
	// Edits lists every successful edit, oldest first; Text, Raw,
	// ParseMode and Entities above hold the latest version.
	Edits   []Edit
	Deleted bool
	// Message is the message as Telegram currently stores it.
	Message Message
}

// Edit is one successful editMessageText.
type Edit struct {
	Text      string
	Raw       string
	ParseMode string
	Entities  []MessageEntity
	Date      time.Time
}

func (m *SentMessage) clone() SentMessage {
	c := *m
	c.Entities = slices.Clone(m.Entities)
	c.ReplyMarkup = slices.Clone(m.ReplyMarkup)
	c.Edits = slices.Clone(m.Edits)
	c.Message = m.Message.clone()
	return c
}

// Action is a sendChatAction call.
type Action struct {
	BotID    int64
	ChatID   int64
	ThreadID int
	Action   string // as sent, aliases not resolved
	Time     time.Time
}

// Draft is the latest state of a sendMessageDraft stream.
type Draft struct {
	BotID     int64
	ChatID    int64
	ThreadID  int
	DraftID   int64
	Text      string // after entity parsing
	ParseMode string
	Entities  []MessageEntity
	Updates   int // sendMessageDraft calls for this draft so far
	Time      time.Time
}

// draftTTL is how long a draft preview lives without updates (Bot API 10.0).
const draftTTL = 30 * time.Second

// Reaction is a setMessageReaction call.
type Reaction struct {
	BotID     int64
	ChatID    int64
	MessageID int
	Reaction  []ReactionType
	IsBig     bool
}

// Call is one Bot API request a bot made.
type Call struct {
	// Token identifies the bot.
	Token string
	// Method is the spec name ("sendMessage") whatever case the bot used;
	// unknown methods keep the name as requested.
	Method string
	// Params are JSON values decoded (numbers as json.Number), form values
	// as strings and uploads as InputFile.
	Params map[string]any
	Time   time.Time
}

// Param returns a parameter as text, whichever encoding the bot used.
func (c Call) Param(name string) string {
	switch v := c.Params[name].(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return v.String()
	case InputFile:
		return v.Name
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

func (s *Server) record(b *bot, method string, p params) {
	s.mu.Lock()
	s.calls = append(s.calls, Call{Token: b.token, Method: method, Params: p.export(), Time: s.now()})
	s.changed.Broadcast()
	s.mu.Unlock()
}

// Calls returns every Bot API call made so far, oldest first.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// CallsTo returns the calls of method (case-insensitive), oldest first.
func (s *Server) CallsTo(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.callsToLocked(method)
}

func (s *Server) callsToLocked(method string) []Call {
	var out []Call
	for _, c := range s.calls {
		if strings.EqualFold(c.Method, method) {
			out = append(out, c)
		}
	}
	return out
}

// WaitCalls blocks until method has been called at least n times and
// returns those calls, or fails when ctx is done or the server closes.
func (s *Server) WaitCalls(ctx context.Context, method string, n int) ([]Call, error) {
	var out []Call
	err := s.waitFor(ctx, func() bool {
		out = s.callsToLocked(method)
		return len(out) >= n
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for %d %s calls, got %d: %w", n, method, len(out), err)
	}
	return out, nil
}

// Violations returns the spec violations recorded so far.
func (s *Server) Violations() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.violations)
}

// Warnings returns non-fatal spec findings: legacy parameters the bot used
// and, with SelfCheck, unknown fields in emulator output.
func (s *Server) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.warnings)
}

// Sent returns the messages bots sent to chatID (in private chats, to that
// user), oldest first.
func (s *Server) Sent(chatID int64) []SentMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sentLocked(chatID)
}

func (s *Server) sentLocked(chatID int64) []SentMessage {
	var out []SentMessage
	for _, m := range s.sent {
		if m.ChatID == chatID {
			out = append(out, m.clone())
		}
	}
	return out
}

// WaitSent blocks until at least n messages have been sent to chatID and
// returns them all, or fails when ctx is done or the server closes.
func (s *Server) WaitSent(ctx context.Context, chatID int64, n int) ([]SentMessage, error) {
	var out []SentMessage
	err := s.waitFor(ctx, func() bool {
		out = s.sentLocked(chatID)
		return len(out) >= n
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for %d messages in chat %d, got %d: %w", n, chatID, len(out), err)
	}
	return out, nil
}

// Actions returns the chat actions sent to chatID, oldest first.
func (s *Server) Actions(chatID int64) []Action {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Action
	for _, a := range s.actions {
		if a.ChatID == chatID {
			out = append(out, a)
		}
	}
	return out
}

// Drafts returns the live drafts in chatID: updated within the last 30
// seconds and not yet replaced by a sent message.
func (s *Server) Drafts(chatID int64) []Draft {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Draft
	for _, d := range s.drafts {
		if d.ChatID == chatID && s.now().Sub(d.Time) < draftTTL {
			d.Entities = slices.Clone(d.Entities)
			out = append(out, d)
		}
	}
	return out
}

// Reactions returns the reactions bots set in chatID, oldest first.
func (s *Server) Reactions(chatID int64) []Reaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Reaction
	for _, r := range s.reactions {
		if r.ChatID == chatID {
			r.Reaction = slices.Clone(r.Reaction)
			out = append(out, r)
		}
	}
	return out
}

// Commands returns the default-scope, all-language commands the bot with
// token set through setMyCommands.
func (s *Server) Commands(token string) []BotCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bots[token]
	if b == nil {
		return nil
	}
	return slices.Clone(b.commands[commandsKey("default", "")])
}

// Pending returns the updates queued for the bot with token and not yet
// confirmed (polling) or delivered (webhook).
func (s *Server) Pending(token string) []Update {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.bots[token]; b != nil {
		return slices.Clone(b.queue)
	}
	return nil
}

// WaitDelivered blocks until the bot with token has no pending updates.
func (s *Server) WaitDelivered(ctx context.Context, token string) error {
	return s.waitFor(ctx, func() bool {
		b := s.bots[token]
		return b == nil || len(b.queue) == 0
	})
}
