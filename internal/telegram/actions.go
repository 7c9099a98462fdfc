package telegram

import (
	"context"
	"errors"

	"github.com/mymmrac/telego"

	"github.com/mynah-ai/mynah"
)

// React sets the bot's reaction on message id of chat to emoji (setMessageReaction).
func (b *Bot) React(ctx context.Context, chat mynah.ChatID, id mynah.MessageID, emoji string) error {
	err := b.api.SetMessageReaction(ctx, &telego.SetMessageReactionParams{
		ChatID:    telego.ChatID{ID: int64(chat)},
		MessageID: int(id),
		Reaction:  []telego.ReactionType{&telego.ReactionTypeEmoji{Type: telego.ReactionEmoji, Emoji: emoji}},
	})
	if err != nil {
		return b.fail("setMessageReaction", err)
	}
	return nil
}

// StickerSet returns the stickers of the set called name (getStickerSet), in the set's
// order, each as media with its file ids, emoji, set name, format (MimeType: image/webp,
// video/webm or application/x-tgsticker), size in pixels and in bytes.
func (b *Bot) StickerSet(ctx context.Context, name string) ([]mynah.Media, error) {
	set, err := b.api.GetStickerSet(ctx, &telego.GetStickerSetParams{Name: name})
	if err != nil {
		return nil, b.fail("getStickerSet", err)
	}
	if set == nil {
		return nil, errors.New("telegram getStickerSet: empty result")
	}
	out := make([]mynah.Media, 0, len(set.Stickers))
	for i := range set.Stickers {
		st := sticker(&set.Stickers[i])
		st.SetName = set.Name
		out = append(out, st)
	}
	return out, nil
}

// SendSticker sends the sticker fileID to chat (sendSticker), replying to replyTo when it
// is not 0, and returns the message Telegram created.
func (b *Bot) SendSticker(ctx context.Context, chat mynah.ChatID, thread int64, fileID string, replyTo mynah.MessageID) (mynah.Message, error) {
	p := &telego.SendStickerParams{
		ChatID:          telego.ChatID{ID: int64(chat)},
		MessageThreadID: int(thread),
		Sticker:         telego.InputFile{FileID: fileID},
	}
	if replyTo != 0 {
		p.ReplyParameters = &telego.ReplyParameters{MessageID: int(replyTo), ChatID: p.ChatID}
	}
	sent, err := b.api.SendSticker(ctx, p)
	if err != nil {
		return mynah.Message{}, b.fail("sendSticker", err)
	}
	if sent == nil {
		return mynah.Message{}, errors.New("telegram sendSticker: empty result")
	}
	m := message(sent)
	m.Outgoing = true
	if me, ok := b.cachedMe(); ok {
		m.Sender = me
	}
	return m, nil
}
