package telegram

import (
	"context"
	"time"
)

// NoWait makes b's retries immediate, for tests outside the package.
func NoWait(b *Bot) {
	b.wait = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
}
