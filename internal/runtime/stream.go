package runtime

import (
	"context"
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

// draftLimit is Telegram's length limit of a draft's text.
const draftLimit = 4096

// generate calls the model. In a private chat, when the agent streams and Telegram can
// show drafts, the answer is streamed and shown as a draft while it grows, at most one
// update per Options.DraftInterval.
func (r *Runner) generate(ctx context.Context, req llm.Request, t mynah.Turn) (*llm.Response, error) {
	d, ok := r.tg.(Drafter)
	if !ok || !r.agent.Stream || t.Chat <= 0 { // positive chat ids are private chats
		return r.agent.Model.Generate(ctx, req)
	}
	var (
		mu    sync.Mutex
		text  strings.Builder
		dirty bool
	)
	draftID := int(t.ID%(1<<31-1)) + 1 // non-zero, the same for every update of this reply
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(r.opts.DraftInterval)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			mu.Lock()
			s, send := text.String(), dirty
			dirty = false
			mu.Unlock()
			if !send {
				continue
			}
			if s = draftText(s); s == "" {
				continue
			}
			if err := d.Draft(ctx, t.Chat, t.ThreadID, draftID, s, false); err != nil && ctx.Err() == nil {
				r.log.Debug("draft not shown", "chat", t.Chat, "err", err)
			}
		}
	}()
	resp, err := r.agent.Model.Stream(ctx, req, func(fragment string) {
		mu.Lock()
		text.WriteString(fragment)
		dirty = true
		mu.Unlock()
	})
	close(stop)
	<-done
	return resp, err
}

// draftText is what a draft shows of the answer so far: plain text without echoed
// headers, cut to Telegram's limit (the reply itself is split properly when sent).
func draftText(s string) string {
	s = prompt.StripMeta(s)
	if utf8.RuneCountInString(s) <= draftLimit {
		return s
	}
	r := []rune(s)
	return string(r[:draftLimit-1]) + "…"
}
