package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mynah-ai/mynah"
)

// Handler processes one update. It must return nil only once the update's effect is
// durable: the update is then confirmed to Telegram and never delivered again. It receives
// every update, including kinds with a nil Message, so it can record them as handled.
type Handler func(ctx context.Context, u mynah.Update) error

const (
	pollTimeout = 50 * time.Second // getUpdates long-poll timeout, Telegram's maximum
	pollLimit   = 100              // updates per getUpdates, Telegram's maximum
	// pollSlack bounds a getUpdates request beyond its long-poll timeout, so a dead
	// connection is noticed.
	pollSlack    = 15 * time.Second
	minBackoff   = 500 * time.Millisecond
	maxBackoff   = 30 * time.Second
	confirmLimit = 5 * time.Second // for the final confirmation when Poll stops
)

// getUpdatesParams are the parameters Poll sends; offset 0 means "from the earliest
// unconfirmed update".
type getUpdatesParams struct {
	Offset         int64    `json:"offset,omitempty"`
	Limit          int      `json:"limit"`
	Timeout        int      `json:"timeout"`
	AllowedUpdates []string `json:"allowed_updates,omitempty"`
}

// AllowedUpdates are the update kinds mynah asks Telegram for (getUpdates and
// setWebhook): messages and posts with their edits, button presses, changes of the bot's
// own membership, members joining and leaving (chat_member) and reactions, which Telegram
// sends only when asked by name. Other kinds are not delivered at all.
func AllowedUpdates() []string {
	return []string{"message", "edited_message", "channel_post", "edited_channel_post", "callback_query",
		"my_chat_member", "chat_member", "message_reaction"}
}

// Poll receives updates by long polling (getUpdates) and passes each to h, in order, until
// ctx is cancelled; then it returns nil. It must not run twice at once for a bot, nor while
// a webhook is set.
//
// An update is confirmed (the next getUpdates offset passes it) only after h returned nil
// for it. When h fails, Poll logs the error, waits with bounded exponential backoff and
// asks Telegram again from the same offset, so the update is redelivered, never skipped.
// An update whose JSON does not decode is logged and skipped, without holding up the
// others. Network errors, 5xx, 409 conflicts (another poller, a webhook) are logged and
// retried with backoff, 429 after its retry_after. Poll returns an error only when
// Telegram rejects the bot itself (401, 404): retrying cannot help.
func (b *Bot) Poll(ctx context.Context, h Handler) error {
	var (
		offset, confirmed int64
		apiFails, hFails  int
	)
	defer func() { b.confirm(ctx, offset, confirmed) }()
	b.receiving.Store(true)
	defer b.receiving.Store(false)
	for {
		batch, err := b.getUpdates(ctx, offset, pollTimeout)
		if ctx.Err() != nil {
			return nil
		}
		b.receiving.Store(err == nil)
		if err != nil {
			if e, ok := apiError(err, http.StatusUnauthorized); ok {
				return fmt.Errorf("telegram: polling stopped: %w", e)
			}
			if e, ok := apiError(err, http.StatusNotFound); ok {
				return fmt.Errorf("telegram: polling stopped (wrong API URL or token?): %w", e)
			}
			d := backoff(apiFails)
			if flood, ok := errors.AsType[*mynah.RetryAfterError](err); ok && flood.After > 0 {
				d = flood.After
			}
			apiFails++
			b.log.Warn("telegram: getUpdates failed", "err", err, "retry_in", d)
			if b.wait(ctx, d) != nil {
				return nil
			}
			continue
		}
		apiFails = 0
		confirmed = offset // the request carried offset, so Telegram forgot everything before it

		start := offset
		failed := false
		for _, raw := range batch {
			u, err := decodeUpdate(raw)
			if err != nil {
				b.log.Error("telegram: skipping malformed update", "update_id", u.ID, "err", err, "raw", string(raw))
				if u.ID > 0 {
					offset = max(offset, u.ID+1)
				}
				continue
			}
			if u.ID < offset {
				continue // handled already
			}
			if err := h(ctx, u); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				d := backoff(hFails)
				hFails++
				b.log.Error("telegram: update not handled, will retry", "update_id", u.ID, "kind", u.Kind,
					"err", err, "retry_in", d)
				if b.wait(ctx, d) != nil {
					return nil
				}
				failed = true
				break // ask again from offset: Telegram redelivers the update
			}
			hFails = 0
			offset = u.ID + 1
		}
		if !failed && len(batch) > 0 && offset == start {
			// Nothing could be confirmed (updates without a readable id): do not spin.
			d := backoff(apiFails)
			apiFails++
			if b.wait(ctx, d) != nil {
				return nil
			}
		}
	}
}

// getUpdates fetches the raw updates from offset on. Each is decoded separately so that
// one malformed update cannot block the others.
func (b *Bot) getUpdates(ctx context.Context, offset int64, timeout time.Duration) ([]json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout+pollSlack)
	defer cancel()
	res, err := b.call(ctx, "getUpdates", getUpdatesParams{Offset: offset, Limit: pollLimit, Timeout: int(timeout / time.Second), AllowedUpdates: AllowedUpdates()})
	if err != nil {
		return nil, err
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(res, &batch); err != nil {
		return nil, fmt.Errorf("telegram getUpdates: result is not an array: %w", err)
	}
	return batch, nil
}

// confirm tells Telegram, when Poll stops, that the updates before offset were handled,
// so a restart does not receive them again (they would be deduplicated, but needlessly).
// The updates this short poll returns are not confirmed by it.
func (b *Bot) confirm(ctx context.Context, offset, confirmed int64) {
	if offset <= confirmed {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), confirmLimit)
	defer cancel()
	if _, err := b.call(ctx, "getUpdates", getUpdatesParams{Offset: offset, Limit: 1}); err != nil {
		b.log.Warn("telegram: confirming handled updates failed; they will be delivered again",
			"offset", offset, "err", err)
	}
}

// backoff is the wait before retry n+1: exponential from minBackoff, capped at maxBackoff.
func backoff(n int) time.Duration {
	d := minBackoff
	for range n {
		d *= 2
		if d >= maxBackoff {
			return maxBackoff
		}
	}
	return d
}
