package telegram

import (
	"context"
	"unicode/utf8"

	"github.com/mymmrac/telego"

	"github.com/mynah-ai/mynah"
)

// callback maps a callback query; the chat of its message goes into the Update.
func callback(q *telego.CallbackQuery) *mynah.Callback {
	c := &mynah.Callback{ID: q.ID, From: user(&q.From), Data: q.Data}
	if q.Message != nil && q.Message.IsAccessible() {
		c.Message = mynah.MessageID(q.Message.GetMessageID())
		if m := q.Message.Message(); m != nil {
			c.ReplyTo = replyRef(m)
		}
	}
	return c
}

// maxCallbackAnswer is the longest text answerCallbackQuery shows (Bot API: 0-200
// characters); a longer one is cut rather than refused, since the button must stop
// spinning either way.
const maxCallbackAnswer = 200

// AnswerCallback answers the callback query id (answerCallbackQuery): the button stops
// spinning and, when text is not empty, the user sees it as a short notification. A query
// can be answered once; Telegram refuses answers to queries older than about 15 seconds.
func (b *Bot) AnswerCallback(ctx context.Context, id, text string) error {
	if utf8.RuneCountInString(text) > maxCallbackAnswer {
		text = string([]rune(text)[:maxCallbackAnswer-1]) + "…"
	}
	err := b.api.AnswerCallbackQuery(ctx, &telego.AnswerCallbackQueryParams{CallbackQueryID: id, Text: text})
	if err != nil {
		return b.fail("answerCallbackQuery", err)
	}
	return nil
}
