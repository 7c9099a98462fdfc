package telegram

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
)

// clock is a fake clock for a Bot's caches.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fakeClock sets b's clock to a fake one.
func fakeClock(b *Bot) *clock {
	c := &clock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	b.now = c.Now
	return c
}

const ribbitSet = `{"ok":true,"result":{"name":"MrRibbit","title":"Mr Ribbit","sticker_type":"regular","stickers":[
	{"file_id":"grin","file_unique_id":"g","type":"regular","width":512,"height":512,"is_animated":false,"is_video":false,"emoji":"😀"},
	{"file_id":"heart","file_unique_id":"h","type":"regular","width":512,"height":512,"is_animated":false,"is_video":false,"emoji":"❤️"}]}}`

// TestStickerSetsAreCached: a sticker set is fetched once an hour whatever the case of its
// name, emoji match without variation selectors, and a sticker the set lacks, an empty set
// or a set Telegram does not know is rejected for good.
func TestStickerSetsAreCached(t *testing.T) {
	f := newFakeAPI(t)
	f.on("getStickerSet", reply{200, ribbitSet}, reply{200, ribbitSet},
		reply{200, `{"ok":true,"result":{"name":"Empty","title":"Empty","sticker_type":"regular","stickers":[]}}`},
		errReply(http.StatusBadRequest, "Bad Request: STICKERSET_INVALID", 0))
	b, _ := f.bot(t)
	clk := fakeClock(b)
	ctx := t.Context()

	pick := func(set, emoji, want string) {
		t.Helper()
		got, err := b.pickSticker(ctx, set, emoji)
		if err != nil || got != want {
			t.Errorf("pickSticker(%s, %s) = %q, %v; want %q", set, emoji, got, err, want)
		}
	}
	fetches := func(want int) {
		t.Helper()
		if n := len(f.recorded("getStickerSet")); n != want {
			t.Errorf("getStickerSet called %d times, want %d", n, want)
		}
	}
	pick("MrRibbit", "❤", "heart")
	pick("mrribbit", "😀", "grin")
	fetches(1)
	clk.advance(stickerTTL)
	pick("MrRibbit", "😀", "grin")
	fetches(1)
	clk.advance(time.Second)
	pick("MrRibbit", "😀", "grin")
	fetches(2)

	if _, err := b.pickSticker(ctx, "MrRibbit", "🐸"); !errors.Is(err, mynah.ErrRejected) {
		t.Errorf("a sticker the set lacks: %v, want mynah.ErrRejected", err)
	}
	if _, err := b.pickSticker(ctx, "Empty", "😀"); !errors.Is(err, mynah.ErrRejected) {
		t.Errorf("an empty set: %v, want mynah.ErrRejected", err)
	}
	if _, err := b.Sticker(ctx, 5551234, 0, "Nope", "😀", 0); !errors.Is(err, mynah.ErrRejected) {
		t.Errorf("an unknown set: %v, want mynah.ErrRejected", err)
	}
	fetches(4)
	if n := len(f.recorded("sendSticker")); n != 0 {
		t.Errorf("sendSticker called %d times for stickers that cannot be sent", n)
	}
}

// TestMemberCountsAreCached: a chat's member count is asked at most every ten minutes;
// when asking fails, the last known count stands (0 when there is none).
func TestMemberCountsAreCached(t *testing.T) {
	f := newFakeAPI(t)
	f.on("getChatMemberCount", reply{200, `{"ok":true,"result":42}`}, errReply(http.StatusBadGateway, "Bad Gateway", 0),
		reply{200, `{"ok":true,"result":43}`}, errReply(http.StatusBadRequest, "Bad Request: chat not found", 0))
	b, rec := f.bot(t)
	clk := fakeClock(b)
	ctx := t.Context()
	group := mynah.Chat{ID: -100777, Type: mynah.ChatSupergroup}

	count := func(chat mynah.Chat, want, asked int) {
		t.Helper()
		if got := b.Members(ctx, chat); got != want {
			t.Errorf("Members(%d) = %d, want %d", chat.ID, got, want)
		}
		if n := len(f.recorded("getChatMemberCount")); n != asked {
			t.Errorf("getChatMemberCount called %d times, want %d", n, asked)
		}
	}
	count(group, 42, 1)
	clk.advance(memberTTL - time.Second)
	count(group, 42, 1)
	clk.advance(time.Second)
	count(group, 42, 2) // the 502: the last known count
	count(group, 43, 3)
	count(mynah.Chat{ID: -100888, Type: mynah.ChatGroup}, 0, 4)
	if !strings.Contains(rec.Logs(), "member count unknown") {
		t.Errorf("failures not logged:\n%s", rec.Logs())
	}
}
