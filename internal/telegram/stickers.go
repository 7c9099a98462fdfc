package telegram

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
)

// stickerTTL is how long a fetched sticker set is used before it is fetched again: sets
// change rarely, and a sticker should not cost a getStickerSet call each time.
const stickerTTL = time.Hour

// stickerSets caches sticker sets by their name in lower case.
type stickerSets struct {
	mu   sync.Mutex
	sets map[string]stickerSet
}

type stickerSet struct {
	stickers []mynah.Media
	fetched  time.Time
}

// Sticker sends the sticker of set whose emoji is emoji to chat (sendSticker), in forum
// topic thread when it is not 0 and replying to replyTo when it is not 0, and returns the
// message Telegram created. The set is fetched (getStickerSet) at most once an hour. A set
// that is empty or has no sticker for emoji is an error matching mynah.ErrRejected, as is
// a set Telegram does not know.
func (b *Bot) Sticker(ctx context.Context, chat mynah.ChatID, thread int64, set, emoji string, replyTo mynah.MessageID) (mynah.Message, error) {
	fileID, err := b.pickSticker(ctx, set, emoji)
	if err != nil {
		return mynah.Message{}, err
	}
	return b.SendSticker(ctx, chat, thread, fileID, replyTo)
}

// pickSticker returns the file id of the sticker of set with emoji, ignoring variation
// selectors.
func (b *Bot) pickSticker(ctx context.Context, set, emoji string) (string, error) {
	c := &b.stickers
	key := strings.ToLower(set)
	c.mu.Lock()
	cached, ok := c.sets[key]
	c.mu.Unlock()
	if !ok || b.now().Sub(cached.fetched) > stickerTTL {
		stickers, err := b.StickerSet(ctx, set)
		if err != nil {
			return "", err
		}
		cached = stickerSet{stickers: stickers, fetched: b.now()}
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
