package lane

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mynah-ai/mynah"
)

// minFloodWait is the least a lane waits on flood control, should Telegram ask for less.
const minFloodWait = 100 * time.Millisecond

// sendTimeout bounds one sendMessage together with the commit that records it. Both run
// detached from cancellation (see deliver), so a shutdown past its grace period waits at
// most this long for a send under way.
const sendTimeout = 30 * time.Second

// deliver sends one part and records it as sent. Bad markup falls back to plain text and
// a vanished reply target to a plain message; flood control (*mynah.RetryAfterError) is
// returned for the lane to wait without holding a runner slot (see deliverAll).
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
	out := mynah.Outgoing{Chat: p.Chat, ThreadID: p.ThreadID, Text: p.HTML, HTML: p.HTML != "", ReplyTo: p.ReplyTo,
		Buttons: p.Buttons, Edit: p.Edit}
	if out.Text == "" {
		out.Text = p.Plain
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := r.send(ctx, p, out)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, mynah.ErrBadMarkup) && out.HTML:
			r.log.Warn("telegram rejected the HTML, sending plain text", "chat", p.Chat, "part", p.Key, "err", err)
			out.Text, out.HTML = p.Plain, false
		case errors.Is(err, mynah.ErrReplyMissing) && out.ReplyTo != 0:
			out.ReplyTo = 0
		default:
			return err
		}
	}
}

// send carries out one attempt of p (out is the message, for sends) and, once Telegram
// accepted it, records p as done with what Telegram created, detached from ctx's
// cancellation: the window deliver describes.
func (r *Runner) send(ctx context.Context, p mynah.OutPart, out mynah.Outgoing) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sendTimeout)
	defer cancel()
	var (
		sent mynah.Message
		err  error
	)
	// Fencing: another instance may have taken the chat over while this one was cut off
	// from the store; then it sends the part, and this one must not.
	if err := r.store.Hold(ctx, p.ID); err != nil {
		return err
	}
	switch p.Kind {
	case mynah.TaskSticker:
		sent, err = r.tg.Sticker(ctx, p.Chat, p.ThreadID, p.StickerSet, p.Emoji, out.ReplyTo)
	case mynah.TaskReact:
		if err := r.tg.React(ctx, p.Chat, p.Target, p.Emoji); err != nil {
			return err
		}
		return r.done(ctx, p, nil)
	default:
		sent, err = r.tg.Send(ctx, out)
	}
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

// done records a part that sends no message as carried out.
func (r *Runner) done(ctx context.Context, p mynah.OutPart, then *mynah.Turn) error {
	if err := r.store.MarkDone(ctx, p.ID, then); err != nil {
		return fmt.Errorf("recording part done: %w", err)
	}
	return nil
}

// perform carries out one part of a plan. next is the part after it in the lane, if any:
// a wait before a message shows "typing…" while it waits.
func (r *Runner) perform(ctx context.Context, p mynah.OutPart, next *mynah.OutPart) error {
	switch p.Kind {
	case mynah.TaskWait:
		return r.wait(ctx, p, next)
	case mynah.TaskSchedule:
		r.log.Info("reminder scheduled", "chat", p.Chat, "at", p.At)
		if err := r.done(ctx, p, &mynah.Turn{Chat: p.Chat, ThreadID: p.ThreadID, Static: p.Plain, Due: p.At, Created: r.opts.Now()}); err != nil {
			return err
		}
		r.noteDue(p.At)
		return nil
	}
	return r.deliver(ctx, p)
}

// waiting is returned by a wait task that has not elapsed: the lane yields until then,
// or until a newer message replaces the plan (see lane.replan).
type waiting struct{ until time.Time }

func (w waiting) Error() string { return "waiting until " + w.until.Format(time.RFC3339Nano) }

// typingEvery is how often "typing…" is repeated; Telegram shows it for about 5 s.
const typingEvery = 4 * time.Second

// wait carries out a wait task without holding the lane: the first call starts the wait
// and the lane yields, coming back every typingEvery to show "typing…" again when a
// message follows. The start is kept in memory only: after a restart the wait begins
// again, which shortens nothing and lengthens a pause at most once.
func (r *Runner) wait(ctx context.Context, p mynah.OutPart, next *mynah.OutPart) error {
	now := r.opts.Now()
	r.waitsMu.Lock()
	until, ok := r.waits[p.ID]
	if !ok {
		until = now.Add(p.Wait)
		r.waits[p.ID] = until
	}
	r.waitsMu.Unlock()
	if now.Before(until) {
		if next != nil && (next.Kind == "" || next.Kind == mynah.TaskSend || next.Kind == mynah.TaskSticker) {
			r.sendTyping(ctx, p.Chat, p.ThreadID)
		}
		if again := now.Add(typingEvery); again.Before(until) {
			return waiting{until: again}
		}
		return waiting{until: until}
	}
	r.endWait(p.ID)
	return r.done(ctx, p, nil)
}

// endWait forgets a wait that is over or was dropped.
func (r *Runner) endWait(partID int64) {
	r.waitsMu.Lock()
	delete(r.waits, partID)
	r.waitsMu.Unlock()
}

// dropBlocked marks the chat blocked and gives up its pending parts: sending to a user who
// blocked the bot can never succeed.
func (r *Runner) dropBlocked(ctx context.Context, parts []mynah.OutPart, res *laneResult) {
	if len(parts) == 0 {
		return
	}
	r.log.Info("user blocked the bot; dropping pending replies", "chat", parts[0].Chat, "parts", len(parts))
	r.unblocked.Delete(parts[0].Chat)
	if err := r.store.SetBlocked(ctx, r.agent.Name, parts[0].Chat, true); err != nil {
		r.log.Error("marking chat blocked", "err", err)
	}
	for _, p := range parts {
		r.giveUp(ctx, p, "bot was blocked by the user", res)
	}
}

// unblock clears chat's blocked mark, which a new message from its user means: they
// unblocked the bot. The chats known to be unblocked are remembered, so that a message
// costs a read of the mark only the first time its chat is answered by this process
// (only the lanes set the mark, in dropBlocked).
func (r *Runner) unblock(ctx context.Context, chat mynah.ChatID) error {
	if _, ok := r.unblocked.Load(chat); ok {
		return nil
	}
	blocked, err := r.store.Blocked(ctx, r.agent.Name, chat)
	if err != nil {
		return nil // the mark only informs operators; the answer matters more
	}
	if blocked {
		if err := r.store.SetBlocked(ctx, r.agent.Name, chat, false); err != nil {
			return err
		}
	}
	r.unblocked.Store(chat, struct{}{})
	return nil
}
