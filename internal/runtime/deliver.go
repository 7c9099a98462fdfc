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

// sendTimeout bounds one sendMessage together with the commit that records it. Both run
// detached from cancellation (see deliver), so a shutdown past its grace period waits at
// most this long for a send under way.
const sendTimeout = 30 * time.Second

// deliver sends one part and records it as sent. Bad markup falls back to plain text, a
// vanished reply target to a plain message, and flood control waits as Telegram asks.
//
// Delivery is at least once. The Bot API has no idempotent send, so one window remains:
// from the moment Telegram accepts the sendMessage request until MarkSent commits the part
// as sent together with its Telegram message id. If the process dies inside it, the user
// has the part but the store still holds it as pending, and it is sent again on restart —
// a duplicate. A send that fails without an answer (a connection lost mid-request, a
// timeout) is just as ambiguous and is retried the same way. Nothing else happens inside
// the window: MarkSent directly follows Send, and both run detached from ctx's
// cancellation (bounded by sendTimeout), so a shutdown that gives up on running turns
// neither abandons a request Telegram may already have accepted nor cuts between it and
// its commit; a cancelled ctx only keeps the next send from starting. What remains is the
// answer's way back from Telegram and one write transaction, which may queue behind the
// store's other writers.
func (r *Runner) deliver(ctx context.Context, p mynah.OutPart) error {
	out := Outgoing{Chat: p.Chat, ThreadID: p.ThreadID, Text: p.HTML, HTML: p.HTML != "", ReplyTo: p.ReplyTo}
	if out.Text == "" {
		out.Text = p.Plain
	}
	for waits := 0; ; {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := r.send(ctx, p, out)
		var flood *RetryAfterError
		switch {
		case err == nil:
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

// send sends out and, once Telegram accepted it, records p as sent with the message
// Telegram created, detached from ctx's cancellation: the window deliver describes.
func (r *Runner) send(ctx context.Context, p mynah.OutPart, out Outgoing) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sendTimeout)
	defer cancel()
	sent, err := r.tg.Send(ctx, out)
	if err != nil {
		return err
	}
	sent.Agent = r.agent.Name
	sent.Outgoing = true
	if err := r.store.MarkSent(ctx, p.ID, sent); err != nil {
		return fmt.Errorf("recording sent part: %w", err)
	}
	return nil
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
