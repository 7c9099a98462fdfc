package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mynah-ai/mynah"
)

// Transient reports whether err may go away by itself: the network, a 5xx, flood
// control. A refusal of the request or of the bot (401, 404, another 4xx) and a redirect
// (a wrong API URL) are not.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	if _, ok := errors.AsType[*redirectError](err); ok {
		return false
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code >= 500 || e.Code == http.StatusTooManyRequests
	}
	return true
}

// Reach asks Telegram who the bot is (getMe) until it answers, as a service started
// before the network is up needs: a transient failure is logged and tried again with
// backoff (1 s doubling to 30 s) for up to patience; a lasting one, or patience running
// out, is returned.
func (b *Bot) Reach(ctx context.Context, patience time.Duration) (mynah.User, error) {
	deadline := b.now().Add(patience)
	for attempt := 0; ; attempt++ {
		me, err := b.Me(ctx)
		if err == nil {
			if attempt > 0 {
				b.log.Info("telegram reached", "bot", "@"+me.Username, "attempts", attempt+1)
			}
			return me, nil
		}
		if !Transient(err) || ctx.Err() != nil {
			return mynah.User{}, err
		}
		d := min(time.Second<<min(attempt, 5), 30*time.Second)
		if b.now().Add(d).After(deadline) {
			return mynah.User{}, fmt.Errorf("telegram unreachable for %s: %w", patience, err)
		}
		b.log.Warn("telegram unreachable, trying again", "attempt", attempt+1, "retry_in", d, "err", err)
		if err := b.wait(ctx, d); err != nil {
			return mynah.User{}, err
		}
	}
}
