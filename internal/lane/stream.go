package lane

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
)

// Drafter is implemented by a Telegram that can show a reply while it is being written,
// as a draft in a private chat (sendMessageDraft). Drafts are previews: the reply itself
// is still delivered through the outbox, exactly once.
type Drafter interface {
	Draft(ctx context.Context, chat mynah.ChatID, thread int64, draftID int, text string, html bool) error
}

// previewLimit is Telegram's length limit of a draft's or a message's text. A preview
// stops growing there; the answer itself is split into messages when it is delivered.
const previewLimit = 4096

// minEditInterval is the least time between two edits of a preview message: Telegram
// allows about one edit per second per chat before it answers 429.
const minEditInterval = time.Second

// generate calls model. When the agent streams, the answer is shown while it grows:
// in a private chat as a draft, elsewhere as a message posted once and edited in place,
// at most one update per Options.DraftInterval (edits at most once a second). The
// preview message's id is returned (0 when none was posted); the answer's first message
// replaces it.
func (r *Runner) generate(ctx context.Context, model llm.Model, req llm.Request, t *mynah.Turn) (*llm.Response, error) {
	var show func(ctx context.Context, text string) time.Duration
	interval := r.opts.DraftInterval
	if r.agent.Stream {
		if d, ok := r.tg.(Drafter); ok && t.Chat > 0 { // positive chat ids are private chats
			draftID := int(t.ID%(1<<31-1)) + 1 // non-zero, the same for every update of this reply
			show = func(ctx context.Context, s string) time.Duration {
				if err := d.Draft(ctx, t.Chat, t.ThreadID, draftID, s, false); err != nil && ctx.Err() == nil {
					r.log.Debug("draft not shown", "chat", t.Chat, "err", err)
				}
				return 0
			}
		} else if t.Chat < 0 && memberTurn(ctx) == nil { // a crew member's pass must never show
			show = r.previewer(t)
			interval = max(interval, minEditInterval)
		}
	}
	if show == nil {
		return model.Generate(ctx, req)
	}
	var (
		mu    sync.Mutex
		text  strings.Builder
		dirty bool
	)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		var pause time.Time
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if r.opts.Now().Before(pause) {
				continue
			}
			mu.Lock()
			s, send := text.String(), dirty
			dirty = false
			mu.Unlock()
			if !send {
				continue
			}
			if s = previewText(s); s == "" {
				continue
			}
			if !shown(ctx) { // the first preview makes the answer visible: it stays
				continue
			}
			if wait := show(ctx, s); wait > 0 {
				pause = r.opts.Now().Add(wait)
			}
		}
	}()
	resp, err := model.Stream(ctx, req, func(fragment string) {
		mu.Lock()
		text.WriteString(fragment)
		dirty = true
		mu.Unlock()
	})
	close(stop)
	<-done
	return resp, err
}

// previewer returns the show function of a group answer: the first update posts a
// message replying to what the turn answers, later ones edit it. The message is recorded
// with the turn at once, so a turn retried after a crash edits it rather than leaving it
// and posting another. A flood-control answer pauses updates as long as Telegram asks;
// other failures only skip an update: the preview is a courtesy, the answer is delivered
// through the outbox whatever happens here.
func (r *Runner) previewer(t *mynah.Turn) func(ctx context.Context, text string) time.Duration {
	full := false
	return func(ctx context.Context, s string) time.Duration {
		if full {
			return 0
		}
		full = utf8.RuneCountInString(s) >= previewLimit
		out := mynah.Outgoing{Chat: t.Chat, ThreadID: t.ThreadID, Text: s, ReplyTo: t.ReplyTo, Edit: t.Preview}
		msg, err := r.tg.Send(ctx, out)
		var flood *mynah.RetryAfterError
		switch {
		case errors.As(err, &flood):
			return flood.After
		case err != nil:
			if ctx.Err() == nil {
				r.log.Debug("preview not updated", "chat", t.Chat, "err", err)
			}
			return 0
		case t.Preview == 0:
			t.Preview = msg.ID
			if err := r.store.SetPreview(ctx, t.ID, msg.ID); err != nil {
				r.log.Error("recording the preview message", "chat", t.Chat, "turn", t.ID, "err", err)
			}
		}
		return 0
	}
}

// previewText is what a preview shows of the answer so far: plain text without echoed
// headers, cut to Telegram's limit (the reply itself is split properly when sent).
func previewText(s string) string {
	s = strings.TrimSpace(prompt.StripMeta(s))
	if utf8.RuneCountInString(s) <= previewLimit {
		return s
	}
	r := []rune(s)
	return string(r[:previewLimit-1]) + "…"
}
