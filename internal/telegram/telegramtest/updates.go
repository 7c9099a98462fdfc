package telegramtest

import (
	"context"
	"slices"
	"time"
)

// Long-poll limits of the official server (Client.h LONG_POLL_MAX_TIMEOUT).
const (
	maxPollTimeout = 50
	maxPollLimit   = 100
)

// bot is the per-bot state. All fields are guarded by Server.mu.
type bot struct {
	token        string
	user         BotUser
	nextUpdateID int
	queue        []Update // unconfirmed (polling) or undelivered (webhook) updates
	allowed      []string // allowed_updates; empty means the default set
	wake         chan struct{}
	poll         *poller
	hook         *webhook
	commands     map[string][]BotCommand // by scope and language
}

// poller is a getUpdates call waiting for updates; a conflicting call sends
// the error that ends it.
type poller struct {
	done chan *Error // buffered, receives at most one value
}

func (b *bot) asUser() User {
	return User{ID: b.user.ID, IsBot: true, FirstName: b.user.FirstName, Username: b.user.Username}
}

// wakeUp wakes everything waiting on the bot's queue.
func (b *bot) wakeUp() {
	close(b.wake)
	b.wake = make(chan struct{})
}

// terminatePoll ends the waiting long poll, if any, with a 409 error.
func (b *bot) terminatePoll(msg string) {
	if b.poll != nil {
		b.poll.done <- conflict(msg)
		b.poll = nil
	}
}

// wants reports whether updates of kind pass the bot's allowed_updates; the
// default excludes chat_member, message_reaction and message_reaction_count.
func (b *bot) wants(kind string) bool {
	if len(b.allowed) == 0 {
		switch kind {
		case "chat_member", "message_reaction", "message_reaction_count":
			return false
		}
		return true
	}
	return slices.Contains(b.allowed, kind)
}

// enqueue assigns the next update_id and queues u for b unless b's
// allowed_updates filter it out, in which case UpdateID stays 0. The caller
// holds s.mu and passes an update no one else references.
func (s *Server) enqueue(b *bot, u Update) Update {
	if !b.wants(u.Kind()) {
		u.UpdateID = 0
		return u
	}
	u.UpdateID = b.nextUpdateID
	b.nextUpdateID++
	b.queue = append(b.queue, u)
	b.wakeUp()
	s.changed.Broadcast()
	return u
}

// confirm forgets updates as getUpdates' offset prescribes.
func (b *bot) confirm(offset int64) {
	switch {
	case offset > 0:
		i := 0
		for i < len(b.queue) && int64(b.queue[i].UpdateID) < offset {
			i++
		}
		b.queue = b.queue[i:]
	case offset < 0:
		if k := int(-offset); len(b.queue) > k {
			b.queue = b.queue[len(b.queue)-k:]
		}
	}
}

func (b *bot) batch(limit int) []Update {
	return append([]Update{}, b.queue[:min(limit, len(b.queue))]...)
}

func clamp(v, lo, hi int64) int64 { return max(lo, min(v, hi)) }

func (s *Server) getUpdates(ctx context.Context, b *bot, p params) (any, string, *Error) {
	offset, _ := p.int("offset")
	limit := maxPollLimit
	if v, ok := p.int("limit"); ok {
		limit = int(clamp(v, 1, maxPollLimit))
	}
	var timeout time.Duration
	if v, ok := p.int("timeout"); ok {
		timeout = time.Duration(clamp(v, 0, maxPollTimeout)) * time.Second
	}
	var allowed []string
	if p.has("allowed_updates") {
		if err := p.decode("allowed_updates", &allowed); err != nil {
			return nil, "", badRequest("can't parse allowed_updates JSON object")
		}
	}

	s.mu.Lock()
	if b.hook != nil {
		s.mu.Unlock()
		return nil, "", conflict(msgConflictWebhook)
	}
	if p.has("allowed_updates") {
		b.allowed = allowed
	}
	b.confirm(offset)
	b.terminatePoll(msgConflictPoll)
	deadline := time.Now().Add(timeout)
	for {
		batch := b.batch(limit)
		remaining := time.Until(deadline)
		if len(batch) > 0 || remaining <= 0 {
			s.mu.Unlock()
			return batch, "", nil
		}
		me := &poller{done: make(chan *Error, 1)}
		b.poll = me
		wake := b.wake
		s.changed.Broadcast()
		s.mu.Unlock()

		timer := time.NewTimer(remaining)
		select {
		case e := <-me.done:
			timer.Stop()
			return nil, "", e
		case <-ctx.Done():
		case <-s.closed:
		case <-wake:
		case <-timer.C:
		}
		timer.Stop()
		s.mu.Lock()
		select {
		case e := <-me.done:
			s.mu.Unlock()
			return nil, "", e
		default:
		}
		if b.poll == me {
			b.poll = nil
		}
		if ctx.Err() != nil || s.isClosed() {
			s.mu.Unlock()
			return []Update{}, "", nil
		}
	}
}

func (s *Server) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// WaitPoll blocks until a getUpdates long poll of the bot with token is
// waiting for updates, or ctx is done.
func (s *Server) WaitPoll(ctx context.Context, token string) error {
	return s.waitFor(ctx, func() bool {
		b := s.bots[token]
		return b != nil && b.poll != nil
	})
}

// waitFor blocks until cond, evaluated under s.mu, holds or ctx is done.
func (s *Server) waitFor(ctx context.Context, cond func() bool) error {
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.changed.Broadcast()
		s.mu.Unlock()
	})
	defer stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for !cond() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.isClosed() {
			return ErrClosed
		}
		s.changed.Wait()
	}
	return nil
}
