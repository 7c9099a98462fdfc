package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
)

// lane is the work of one chat (or forum topic) taken from one scan: undelivered parts
// first, then turns in order. Only one lane per key runs at a time, which keeps each chat
// strictly ordered.
type lane struct {
	r     *Runner
	key   laneKey
	parts []mynah.OutPart
	turns []mynah.Turn
}

// backoff is how long a lane waits after a transient failure.
const backoff = 2 * time.Second

// run delivers the pending parts, drops the model turns a newer one makes moot, then
// handles the first turn left and delivers what it enqueued. The runner rescans after
// each lane, so later turns get a fresh view.
func (l *lane) run(ctx context.Context) laneResult {
	res := laneResult{key: l.key}
	if !l.deliverAll(ctx, l.parts, &res) {
		return res
	}
	// Replanning: the newest model turn sees the whole history, so the older ones of the
	// lane are finished without a model call — a burst of messages gets one answer.
	last := -1
	for i, t := range l.turns {
		if t.Static == "" {
			last = i
		}
	}
	var turns []mynah.Turn
	for i, t := range l.turns {
		if t.Static != "" || i == last {
			turns = append(turns, t)
			continue
		}
		if _, err := l.r.store.FinishTurn(ctx, t.ID, nil); err != nil {
			l.r.log.Error("finishing superseded turn", "chat", l.key.chat, "err", err)
			res.retry = l.r.opts.Now().Add(backoff)
			return res
		}
	}
	if len(turns) == 0 {
		return res
	}
	turn := turns[0]
	if l.r.opts.Now().Before(turn.NotBefore) {
		res.retry, res.held = turn.NotBefore, turn.ID // the rest of a split message may still come
		return res
	}
	parts, err := l.r.handle(ctx, turn)
	if err != nil {
		l.r.log.Error("turn failed, will retry", "chat", l.key.chat, "turn", turn.ID, "err", err)
		res.retry = l.r.opts.Now().Add(backoff)
		return res
	}
	l.deliverAll(ctx, parts, &res)
	return res
}

// deliverAll sends parts in order. It stops at the first failure, setting res.retry for
// transient ones, and reports whether everything was delivered.
func (l *lane) deliverAll(ctx context.Context, parts []mynah.OutPart, res *laneResult) bool {
	for i, p := range parts {
		err := l.r.deliver(ctx, p)
		if errors.Is(err, ErrBlocked) {
			l.r.dropBlocked(ctx, parts[i:])
			return false
		}
		if err != nil {
			l.r.log.Warn("delivery failed, will retry", "chat", l.key.chat, "part", p.Key, "err", err)
			res.retry = l.r.opts.Now().Add(backoff)
			return false
		}
	}
	return true
}

// handle answers one turn and enqueues its reply parts, atomically with finishing it,
// returning the parts to deliver.
func (r *Runner) handle(ctx context.Context, t mynah.Turn) ([]mynah.OutPart, error) {
	text := t.Static
	if text == "" {
		var err error
		if text, err = r.answer(ctx, t); err != nil {
			return nil, err
		}
	}
	var parts []mynah.OutPart
	for i, p := range r.opts.Format(text) {
		part := mynah.OutPart{
			Agent: r.agent.Name, Chat: t.Chat, ThreadID: t.ThreadID,
			Key:  fmt.Sprintf("turn/%d/%d", t.ID, i),
			HTML: p.HTML, Plain: p.Plain, Created: r.opts.Now(),
		}
		if i == 0 {
			part.ReplyTo = t.ReplyTo
		}
		parts = append(parts, part)
	}
	return r.store.FinishTurn(ctx, t.ID, parts)
}

// answer asks the model about t. A provider failure becomes the apology (logged); only
// store errors are returned, so the turn is retried rather than lost.
func (r *Runner) answer(ctx context.Context, t mynah.Turn) (string, error) {
	if blocked, err := r.store.Blocked(ctx, r.agent.Name, t.Chat); err == nil && blocked {
		// A new message from the user means they unblocked the bot.
		if err := r.store.SetBlocked(ctx, r.agent.Name, t.Chat, false); err != nil {
			return "", err
		}
	}
	req, comp, err := r.request(ctx, t)
	if err != nil {
		return "", err
	}
	stopTyping := r.typing(ctx, t.Chat, t.ThreadID)
	resp, err := r.generate(ctx, req, t)
	stopTyping()
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		r.log.Error("model call failed", "chat", t.Chat, "turn", t.ID, "model", r.agent.ModelName, "err", err)
		r.recordPrompt(ctx, t, comp, mynah.Usage{})
		return r.agent.Apology, nil
	}
	u := mynah.Usage{
		Agent: r.agent.Name, Chat: t.Chat, Model: r.agent.ModelName,
		InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens,
		CachedTokens: resp.Usage.CachedTokens, Time: r.opts.Now(),
	}
	if err := r.store.RecordUsage(ctx, u); err != nil {
		r.log.Error("recording usage", "err", err)
	}
	r.recordPrompt(ctx, t, comp, u)
	text := prompt.StripMeta(resp.Text)
	if text == "" {
		r.log.Warn("model returned an empty answer", "chat", t.Chat, "turn", t.ID, "stop", resp.StopReason)
	}
	return text, nil
}

// request builds the model request for t.
func (r *Runner) request(ctx context.Context, t mynah.Turn) (llm.Request, prompt.Composition, error) {
	req, comp, err := r.agent.Prompt.Assemble(ctx, prompt.Turn{Chat: t.Chat, Thread: t.ThreadID, Target: t.Target})
	if err != nil {
		return llm.Request{}, comp, err
	}
	req.Model = r.agent.ModelID
	req.MaxTokens = r.agent.ReplyTokens
	req.CacheSystem = true
	return req, comp, nil
}

// typing shows "typing…" in the chat until the returned stop function is called; Telegram
// shows it for about five seconds, so it is repeated every four.
func (r *Runner) typing(ctx context.Context, chat mynah.ChatID, thread int64) (stop func()) {
	loop, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// The first indication is not cut short by stop: a fast answer must not overtake
		// it, or Telegram would show "typing…" after the reply.
		first, cancelFirst := context.WithTimeout(ctx, typingTimeout)
		r.sendTyping(first, chat, thread)
		cancelFirst()
		tick := time.NewTicker(4 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-loop.Done():
				return
			case <-tick.C:
				r.sendTyping(loop, chat, thread)
			}
		}
	}()
	return func() { cancel(); <-done }
}

// typingTimeout bounds how long a reply may wait for its first typing indication.
const typingTimeout = 2 * time.Second

func (r *Runner) sendTyping(ctx context.Context, chat mynah.ChatID, thread int64) {
	if err := r.tg.Typing(ctx, chat, thread); err != nil && ctx.Err() == nil {
		r.log.Debug("typing indicator", "chat", chat, "err", err)
	}
}

// recordPrompt keeps what the turn's prompt contained, for `mynah context explain`. A
// failure to record is logged, never fatal: the reply matters more than its explanation.
func (r *Runner) recordPrompt(ctx context.Context, t mynah.Turn, comp prompt.Composition, u mynah.Usage) {
	data, err := json.Marshal(comp)
	if err == nil {
		err = r.store.RecordPrompt(ctx, mynah.PromptRecord{
			Agent: r.agent.Name, Chat: t.Chat, Turn: t.ID, Model: r.agent.ModelName,
			Composition: data, Usage: u, Time: r.opts.Now(),
		})
	}
	if err != nil {
		r.log.Error("recording the prompt's composition", "chat", t.Chat, "turn", t.ID, "err", err)
	}
}
