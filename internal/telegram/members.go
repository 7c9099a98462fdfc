package telegram

import (
	"context"
	"sync"
	"time"

	"github.com/mymmrac/telego"

	"github.com/mynah-ai/mynah"
)

// memberTTL is how long a group's member count is used before it is asked again: it
// changes slowly, and asking on every turn would cost a round trip per answer.
const memberTTL = 10 * time.Minute

// memberCounts remembers each chat's member count and when it was asked.
type memberCounts struct {
	mu   sync.Mutex
	seen map[mynah.ChatID]memberCount
}

type memberCount struct {
	n  int
	at time.Time
}

// Members returns the number of members of chat (getChatMemberCount), 0 when Telegram
// cannot tell. A count is kept for ten minutes; when asking again fails, the last known
// count stands and the failure is logged at debug level.
func (b *Bot) Members(ctx context.Context, chat mynah.Chat) int {
	m := &b.members
	m.mu.Lock()
	c, ok := m.seen[chat.ID]
	m.mu.Unlock()
	if ok && b.now().Sub(c.at) < memberTTL {
		return c.n
	}
	n, err := b.memberCount(ctx, chat.ID)
	if err != nil {
		b.log.Debug("member count unknown", "chat", chat.ID, "err", err)
		return c.n // the last known count, or 0
	}
	m.mu.Lock()
	m.seen[chat.ID] = memberCount{n: n, at: b.now()}
	m.mu.Unlock()
	return n
}

// memberCount asks Telegram for the number of members of chat (getChatMemberCount).
func (b *Bot) memberCount(ctx context.Context, chat mynah.ChatID) (int, error) {
	n, err := b.api.GetChatMemberCount(ctx, &telego.GetChatMemberCountParams{ChatID: telego.ChatID{ID: int64(chat)}})
	if err != nil {
		return 0, b.fail("getChatMemberCount", err)
	}
	return *n, nil
}
