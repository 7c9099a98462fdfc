package media

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
)

const (
	// setTTL is how long a sticker set read from Telegram is used before it is read
	// again; setRetry how long after a failed read.
	setTTL   = time.Hour
	setRetry = 5 * time.Minute
)

// stickerSet is a sticker set as last read from Telegram.
type stickerSet struct {
	stickers []mynah.Media
	read     time.Time // when it was read (or last failed to be)
	ok       bool
}

// Catalogue returns the stickers agent may send, one line each: "Set::emoji — what it
// shows", or "Set::emoji" while its description is not known (such stickers are
// described by Run, within the budget). Sets come from Agent.StickerSets: a set name
// lists the whole set, "Set::emoji" one sticker of it. A sticker name (set and emoji)
// appears once, for the set's first sticker with that emoji. A set Telegram cannot
// read is logged and left out until a later read works.
func (e *Engine) Catalogue(ctx context.Context, agent string) []string {
	a := e.agent(agent)
	if a == nil || len(a.StickerSets) == 0 {
		return nil
	}
	var lines []string
	seen := map[string]bool{}
	for _, entry := range a.StickerSets {
		set, emoji, one := strings.Cut(entry, "::")
		set, emoji = strings.TrimSpace(set), strings.TrimSpace(emoji)
		for _, s := range e.stickerSet(ctx, a, set) {
			if one && s.Emoji != emoji {
				continue
			}
			name := s.SetName + "::" + s.Emoji
			if s.Emoji == "" || seen[name] {
				continue
			}
			seen[name] = true
			n, ok := e.known(ctx, a, s)
			switch {
			case ok && n.Status == mynah.MediaDescribed:
				lines = append(lines, name+" — "+n.Description)
				continue
			case !ok || !final(n):
				e.want(a, s)
			}
			lines = append(lines, name)
		}
	}
	return lines
}

// stickerSet returns the stickers of set, read from Telegram when not read lately.
func (e *Engine) stickerSet(ctx context.Context, a *agent, name string) []mynah.Media {
	if name == "" || a.Files == nil {
		return nil
	}
	now := e.now()
	e.mu.Lock()
	s := a.sets[name]
	fresh := s != nil && ((s.ok && now.Sub(s.read) < setTTL) || (!s.ok && now.Sub(s.read) < setRetry))
	e.mu.Unlock()
	if fresh {
		return s.stickers
	}
	_, _ = e.once(ctx, "set:"+a.Name+":"+name, func(ctx context.Context) (mynah.MediaNote, error) {
		stickers, err := a.Files.StickerSet(ctx, name)
		e.mu.Lock()
		defer e.mu.Unlock()
		old := a.sets[name]
		if err != nil {
			if ctx.Err() == nil {
				e.log.Warn("media: reading a sticker set", "agent", a.Name, "set", name, "err", err)
			}
			kept := &stickerSet{read: now}
			if old != nil {
				kept.stickers = old.stickers // keep what was read before
			}
			a.sets[name] = kept
			return mynah.MediaNote{}, err
		}
		for i := range stickers {
			stickers[i].Kind = mynah.MediaSticker
			if stickers[i].SetName == "" {
				stickers[i].SetName = name
			}
		}
		a.sets[name] = &stickerSet{stickers: stickers, read: now, ok: true}
		return mynah.MediaNote{}, nil
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	if s := a.sets[name]; s != nil {
		return s.stickers
	}
	return nil
}

// want asks Run to describe the catalogue's sticker s.
func (e *Engine) want(a *agent, s mynah.Media) {
	if s.FileUniqueID == "" || s.FileID == "" {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	a.wanted[s.FileUniqueID] = s
}

// describeStickers describes the catalogue stickers Catalogue asked for, within each
// agent's budget; those the budget leaves are described on a later pass.
func (e *Engine) describeStickers(ctx context.Context) {
	e.mu.Lock()
	type job struct {
		a *agent
		s mynah.Media
	}
	var jobs []job
	for _, a := range e.agents {
		for _, s := range a.wanted {
			jobs = append(jobs, job{a, s})
		}
	}
	e.mu.Unlock()
	for _, j := range jobs {
		if ctx.Err() != nil {
			return
		}
		n, err := e.resolve(ctx, j.a, j.s, false)
		if errors.Is(err, errNoBudget) || (err == nil && !final(n)) {
			continue // tried again on a later pass
		}
		if err != nil && !errors.Is(err, errSkip) && ctx.Err() == nil {
			e.log.Error("media: describing a sticker", "agent", j.a.Name, "unique_id", j.s.FileUniqueID, "err", err)
		}
		e.mu.Lock()
		delete(j.a.wanted, j.s.FileUniqueID)
		e.mu.Unlock()
	}
}
