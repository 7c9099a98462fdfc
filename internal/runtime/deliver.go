package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mynah-ai/mynah"
)

// maxFloodWaits bounds how many flood-control waits one part sits through in one lane
// before the lane yields (it is retried later, never dropped).
const maxFloodWaits = 5

// deliver sends one part and records it as sent. Bad markup falls back to plain text, a
// vanished reply target to a plain message, and flood control waits as Telegram asks.
func (r *Runner) deliver(ctx context.Context, p mynah.OutPart) error {
	out := Outgoing{Chat: p.Chat, ThreadID: p.ThreadID, Text: p.HTML, HTML: p.HTML != "", ReplyTo: p.ReplyTo}
	if out.Text == "" {
		out.Text = p.Plain
	}
	for waits := 0; ; {
		sent, err := r.tg.Send(ctx, out)
		var flood *RetryAfterError
		switch {
		case err == nil:
			sent.Agent = r.agent.Name
			sent.Outgoing = true
			if err := r.store.MarkSent(ctx, p.ID, sent); err != nil {
				return fmt.Errorf("recording sent part: %w", err)
			}
			return nil
		case errors.Is(err, ErrBadMarkup) && out.HTML:
			r.log.Warn("telegram rejected the HTML, sending plain text", "chat", p.Chat, "part", p.Key, "err", err)
			out.Text, out.HTML = p.Plain, false
		case errors.Is(err, ErrReplyMissing) && out.ReplyTo != 0:
			out.ReplyTo = 0
		case errors.As(err, &flood) && waits < maxFloodWaits:
			waits++
			r.log.Info("flood control", "chat", p.Chat, "retry_after", flood.After)
			if err := sleep(ctx, flood.After); err != nil {
				return err
			}
		default:
			return err
		}
	}
}

// dropBlocked marks the chat blocked and gives up its pending parts: sending to a user who
// blocked the bot can never succeed.
func (r *Runner) dropBlocked(ctx context.Context, parts []mynah.OutPart) {
	if len(parts) == 0 {
		return
	}
	r.log.Info("user blocked the bot; dropping pending replies", "chat", parts[0].Chat, "parts", len(parts))
	if err := r.store.SetBlocked(ctx, r.agent.Name, parts[0].Chat, true); err != nil {
		r.log.Error("marking chat blocked", "err", err)
	}
	for _, p := range parts {
		if err := r.store.MarkFailed(ctx, p.ID, "bot was blocked by the user"); err != nil {
			r.log.Error("marking part failed", "part", p.Key, "err", err)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
