package media

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
)

// queueBatch is how many queued messages one pass reads.
const queueBatch = 32

// Run works the store's media queue until ctx is done: every second it describes the
// media of the messages due, within each agent's budget (an agent out of budget waits
// for the next minute; other agents go on), retries failures with backoff up to
// maxAttempts before caching the failure, describes the catalogue's stickers, and every
// few seconds rereads the curated files that changed. It returns nil once every
// goroutine it started has stopped. Failures are logged and retried: media is an aid to
// the conversation, never a reason to stop the agent.
func (e *Engine) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { tick(ctx, e.curatedEvery, e.reloadCurated) })
	wg.Go(func() {
		tick(ctx, e.every, func() {
			// A full batch means more is due (cache hits are cheap): go on, a while.
			for range 10 {
				if e.work(ctx) < queueBatch || ctx.Err() != nil {
					break
				}
			}
			e.describeStickers(ctx)
		})
	})
	wg.Wait()
	return nil
}

// tick calls fn at once and then every interval until ctx is done.
func tick(ctx context.Context, interval time.Duration, fn func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		fn()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// reloadCurated rereads the curated directories whose files changed.
func (e *Engine) reloadCurated() {
	e.mu.Lock()
	dirs := make([]*curatedDir, 0, len(e.curated))
	for _, c := range e.curated {
		dirs = append(dirs, c)
	}
	e.mu.Unlock()
	for _, c := range dirs {
		c.reload(e.log)
	}
}

// work makes one pass over the queued messages due now, up to queueBatch of them,
// e.workers at a time, and returns how many it read.
func (e *Engine) work(ctx context.Context) int {
	ws, err := e.store.PendingMedia(ctx, e.now(), queueBatch)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Error("media: reading the queue", "err", err)
		}
		return 0
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, e.workers)
	for _, w := range ws {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			e.process(ctx, w)
		})
	}
	wg.Wait()
	return len(ws)
}

// process describes the media of one queued message that wait for a description, and
// takes it off the queue when none is left to try, or defers it: to the next minute when
// the agent's budget is spent, after a backoff when an attempt failed.
func (e *Engine) process(ctx context.Context, w mynah.MediaWork) {
	a := e.agent(w.Agent)
	if a == nil { // an agent removed from the configuration: look again in an hour
		e.postpone(ctx, w, e.now().Add(time.Hour))
		return
	}
	m, err := e.store.Message(ctx, w.Agent, w.Chat, w.Message)
	switch {
	case errors.Is(err, mynah.ErrNotFound):
		e.done(ctx, w)
		return
	case err != nil:
		if ctx.Err() == nil {
			e.log.Error("media: reading a queued message", "agent", w.Agent, "chat", w.Chat, "message", w.Message, "err", err)
		}
		return
	}
	var retry time.Time // zero: nothing left to try
	later := func(t time.Time) {
		if retry.IsZero() || t.Before(retry) {
			retry = t
		}
	}
	for _, md := range m.Media {
		if md.FileUniqueID == "" || md.Description != "" {
			continue
		}
		n, err := e.resolve(ctx, a, md, false)
		switch {
		case errors.Is(err, errSkip):
			continue
		case errors.Is(err, errNoBudget):
			later(e.nextBudget(a))
			continue
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			e.log.Error("media: describing", "agent", a.Name, "kind", md.Kind, "unique_id", md.FileUniqueID, "err", err)
			later(e.now().Add(time.Minute))
			continue
		case !final(n):
			later(e.now().Add(backoff(n.Attempts)))
			continue
		case n.Status != mynah.MediaDescribed:
			continue
		}
		if err := e.store.SetMediaDescription(ctx, w.Agent, w.Chat, w.Message, md.FileUniqueID, n.Description); err != nil {
			if ctx.Err() != nil {
				return
			}
			e.log.Error("media: storing a description", "agent", w.Agent, "chat", w.Chat, "message", w.Message, "err", err)
			later(e.now().Add(time.Minute))
		}
	}
	if retry.IsZero() {
		e.done(ctx, w)
	} else {
		e.postpone(ctx, w, retry)
	}
}

func (e *Engine) done(ctx context.Context, w mynah.MediaWork) {
	if err := e.store.DoneMedia(ctx, w.Agent, w.Chat, w.Message); err != nil && ctx.Err() == nil {
		e.log.Error("media: leaving the queue", "agent", w.Agent, "chat", w.Chat, "message", w.Message, "err", err)
	}
}

func (e *Engine) postpone(ctx context.Context, w mynah.MediaWork, due time.Time) {
	if err := e.store.DeferMedia(ctx, w.Agent, w.Chat, w.Message, due); err != nil && ctx.Err() == nil {
		e.log.Error("media: deferring", "agent", w.Agent, "chat", w.Chat, "message", w.Message, "err", err)
	}
}
