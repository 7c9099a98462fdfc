package telegramtest

import (
	"context"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"
)

// CallbackAnswer is an answerCallbackQuery the emulator accepted, with the press it
// answered.
type CallbackAnswer struct {
	BotID     int64
	QueryID   string
	From      int64 // the user who pressed the button
	ChatID    int64
	MessageID int
	Data      string
	Text      string
	ShowAlert bool
	Time      time.Time
}

// pressed is a callback query delivered to a bot and not yet answered.
type pressed struct {
	botID     int64
	from      int64
	chatID    int64
	messageID int
	data      string
}

// msgQueryInvalid is the server's error for an unknown, expired or answered query.
const msgQueryInvalid = "query is too old and response timeout expired or query ID is invalid"

// maxCallbackAnswer is the longest answerCallbackQuery text, in characters.
const maxCallbackAnswer = 200

// answerCallbackQuery answers a press once; a second answer, or an answer by another
// bot, is refused like an expired query. The official server also refuses answers after
// its timeout; the emulator does not expire queries.
func (s *Server) answerCallbackQuery(_ context.Context, b *bot, p params) (any, string, *Error) {
	id := p.str("callback_query_id")
	text := p.str("text")
	if utf8.RuneCountInString(text) > maxCallbackAnswer {
		return nil, "", badRequest("MESSAGE_TOO_LONG")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, ok := s.presses[id]
	if !ok || q.botID != b.user.ID {
		return nil, "", badRequest(msgQueryInvalid)
	}
	delete(s.presses, id)
	s.answers = append(s.answers, CallbackAnswer{
		BotID: b.user.ID, QueryID: id, From: q.from, ChatID: q.chatID, MessageID: q.messageID, Data: q.data,
		Text: text, ShowAlert: p.bool("show_alert"), Time: s.now(),
	})
	s.changed.Broadcast()
	return true, "", nil
}

// CallbackAnswers returns the answers bots gave to button presses, oldest first.
func (s *Server) CallbackAnswers() []CallbackAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.answers)
}

// WaitCallbackAnswers blocks until at least n button presses have been answered and
// returns the answers, or fails when ctx is done or the server closes.
func (s *Server) WaitCallbackAnswers(ctx context.Context, n int) ([]CallbackAnswer, error) {
	var out []CallbackAnswer
	err := s.waitFor(ctx, func() bool {
		out = slices.Clone(s.answers)
		return len(out) >= n
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for %d callback answers, got %d: %w", n, len(out), err)
	}
	return out, nil
}
