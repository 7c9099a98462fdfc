package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/telegram"
	"github.com/mynah-ai/mynah/internal/telegram/tghtml"
)

// telegramSender adapts the Bot API client to the runtime, classifying its errors.
type telegramSender struct {
	bot      *telegram.Bot
	stickers *stickerSets
}

func newSender(bot *telegram.Bot) telegramSender {
	return telegramSender{bot: bot, stickers: &stickerSets{bot: bot, sets: map[string]stickerSet{}}}
}

func (s telegramSender) Send(ctx context.Context, o mynah.Outgoing) (mynah.Message, error) {
	if o.Edit != 0 {
		if err := s.bot.EditText(ctx, o.Chat, o.Edit, o.Text, o.HTML, o.Buttons); err != nil {
			return mynah.Message{}, classify(err)
		}
		text := o.Text
		if o.HTML {
			text = tghtml.Plain(text)
		}
		return mynah.Message{Chat: mynah.Chat{ID: o.Chat}, ID: o.Edit, Text: text, Edited: time.Now()}, nil
	}
	msg, err := s.bot.Send(ctx, telegram.Outgoing{Chat: o.Chat, ThreadID: o.ThreadID, Text: o.Text, HTML: o.HTML,
		ReplyTo: o.ReplyTo, Buttons: o.Buttons})
	return msg, classify(err)
}

// Sticker sends the sticker of set with emoji; a set without one is a rejected task.
func (s telegramSender) Sticker(ctx context.Context, chat mynah.ChatID, thread int64, set, emoji string, replyTo mynah.MessageID) (mynah.Message, error) {
	fileID, err := s.stickers.pick(ctx, set, emoji)
	if err != nil {
		return mynah.Message{}, classify(err)
	}
	msg, err := s.bot.SendSticker(ctx, chat, thread, fileID, replyTo)
	return msg, classify(err)
}

func (s telegramSender) React(ctx context.Context, chat mynah.ChatID, msg mynah.MessageID, emoji string) error {
	return classify(s.bot.React(ctx, chat, msg, emoji))
}

// classify wraps Telegram's refusals in the runtime's terms.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if d, ok := telegram.RetryAfter(err); ok {
		return &mynah.RetryAfterError{After: d}
	}
	switch {
	case telegram.IsParseError(err):
		return fmt.Errorf("%w: %w", mynah.ErrBadMarkup, err)
	case telegram.IsReplyNotFound(err):
		return fmt.Errorf("%w: %w", mynah.ErrReplyMissing, err)
	case telegram.IsBlocked(err):
		return fmt.Errorf("%w: %w", mynah.ErrBlocked, err)
	case telegram.IsRejected(err):
		return fmt.Errorf("%w: %w", mynah.ErrRejected, err)
	}
	return err
}

// stickerSets caches the agent's sticker sets: they change rarely, and a sticker task
// should not cost a getStickerSet call each time. An entry is refreshed after an hour.
type stickerSets struct {
	bot  *telegram.Bot
	mu   sync.Mutex
	sets map[string]stickerSet
}

type stickerSet struct {
	stickers []mynah.Media
	fetched  time.Time
}

// stickerTTL is how long a fetched set is used before it is fetched again.
const stickerTTL = time.Hour

func (c *stickerSets) pick(ctx context.Context, set, emoji string) (string, error) {
	key := strings.ToLower(set)
	c.mu.Lock()
	cached, ok := c.sets[key]
	c.mu.Unlock()
	if !ok || time.Since(cached.fetched) > stickerTTL {
		stickers, err := c.bot.StickerSet(ctx, set)
		if err != nil {
			return "", err
		}
		cached = stickerSet{stickers: stickers, fetched: time.Now()}
		c.mu.Lock()
		c.sets[key] = cached
		c.mu.Unlock()
	}
	if len(cached.stickers) == 0 {
		return "", fmt.Errorf("%w: sticker set %s is empty", mynah.ErrRejected, set)
	}
	want := strings.ReplaceAll(emoji, "\ufe0f", "")
	for _, st := range cached.stickers {
		if strings.ReplaceAll(st.Emoji, "\ufe0f", "") == want {
			return st.FileID, nil
		}
	}
	return "", fmt.Errorf("%w: sticker set %s has no sticker for %s", mynah.ErrRejected, set, emoji)
}
