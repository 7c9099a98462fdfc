package main

import (
	"context"

	"github.com/mynah-ai/mynah/internal/ingest"
	"github.com/mynah-ai/mynah/internal/telegram"
)

// answerCallbacks answers button presses through bot, for ingest.Options.Answer.
func answerCallbacks(bot *telegram.Bot) func(ctx context.Context, id, text string) error {
	return func(ctx context.Context, id, text string) error { return bot.AnswerCallback(ctx, id, text, false) }
}

// callbackFor converts a normalised button press for the ingest stage; nil for none.
func callbackFor(u telegram.Update) *ingest.Callback {
	if c := u.Callback; c != nil {
		return &ingest.Callback{ID: c.ID, From: c.From, Message: c.Message, Data: c.Data}
	}
	return nil
}
