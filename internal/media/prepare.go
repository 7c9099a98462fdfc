package media

import (
	"context"
	"errors"
	"sync"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

// focusWorkers bounds the media of the messages being answered worked on at once.
const focusWorkers = 4

// Prepare readies a turn's messages for agent, in place. For every message of history it
// fills the descriptions known without a download (curated, cached); a file that cannot
// be described shows its problem instead ("could not be read"). For the messages of
// focus (the target, its album, its reply chain) it reads what cannot wait: documents
// are extracted and voice notes, audio and video notes transcribed now, their
// descriptions stored; with Agent.Vision, images (photos, image documents, static
// stickers, a frame of video stickers and animations, frames of a video) are returned
// as parts to show, per message, in the order of its media; without it images are
// described now. The focus may overdraw the budget, so a reply is never starved.
//
// Prepare never fails the turn: a problem leaves a placeholder and a log line, and what
// is not done now is done by Run.
func (e *Engine) Prepare(ctx context.Context, agent string, history []mynah.Message, focus []mynah.MessageID) map[mynah.MessageID][]llm.Part {
	a := e.agent(agent)
	if a == nil {
		return nil
	}
	inFocus := make(map[mynah.MessageID]bool, len(focus))
	for _, id := range focus {
		inFocus[id] = true
	}
	type job struct {
		m *mynah.Message
		i int
	}
	var jobs []job
	for k := range history {
		m := &history[k]
		for i := range m.Media {
			md := &m.Media[i]
			if md.FileUniqueID == "" {
				continue
			}
			if md.Description == "" {
				if n, ok := e.known(ctx, a, *md); ok {
					md.Description = shown(n)
				}
			}
			if inFocus[m.ID] {
				jobs = append(jobs, job{m, i})
			}
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	parts := make([][]llm.Part, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, focusWorkers)
	for k, j := range jobs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			parts[k] = e.prepareFocus(ctx, a, j.m, j.i)
		})
	}
	wg.Wait()
	var out map[mynah.MessageID][]llm.Part
	for k, j := range jobs {
		if len(parts[k]) == 0 {
			continue
		}
		if out == nil {
			out = map[mynah.MessageID][]llm.Part{}
		}
		out[j.m.ID] = append(out[j.m.ID], parts[k]...)
	}
	return out
}

// prepareFocus readies media i of m, a message being answered, and returns the image
// parts to show.
func (e *Engine) prepareFocus(ctx context.Context, a *agent, m *mynah.Message, i int) []llm.Part {
	md := m.Media[i]
	if md.FileID == "" {
		return nil
	}
	if a.Vision && visual(md) {
		n, known := e.known(ctx, a, md)
		if known && final(n) && n.Status != mynah.MediaDescribed {
			return nil // a file that cannot be read: its problem is shown already
		}
		images, err := e.images(ctx, a, md)
		var u unsupported
		switch {
		case errors.As(err, &u) && !(known && n.Status == mynah.MediaDescribed):
			note := mynah.MediaNote{UniqueID: md.FileUniqueID, Kind: md.Kind, SetName: md.SetName, Emoji: md.Emoji}
			if n, serr := e.settle(ctx, a, md, note, err, ""); serr == nil {
				m.Media[i].Description = shown(n)
			}
			return nil
		case err != nil:
			if !errors.Is(err, errSkip) && ctx.Err() == nil {
				e.log.Warn("media: showing an image", "agent", a.Name, "kind", md.Kind, "unique_id", md.FileUniqueID, "err", err)
			}
			return nil
		}
		parts := make([]llm.Part, len(images))
		for k := range images {
			parts[k] = llm.Part{Image: &images[k]}
		}
		return parts
	}
	if md.Description != "" {
		return nil
	}
	n, err := e.resolve(ctx, a, md, true)
	switch {
	case errors.Is(err, errSkip), errors.Is(err, errNoBudget):
		return nil
	case err != nil:
		if ctx.Err() == nil {
			e.log.Error("media: describing", "agent", a.Name, "kind", md.Kind, "unique_id", md.FileUniqueID, "err", err)
		}
		return nil
	}
	m.Media[i].Description = shown(n)
	if n.Status == mynah.MediaDescribed {
		if err := e.store.SetMediaDescription(ctx, a.Name, m.Chat.ID, m.ID, md.FileUniqueID, n.Description); err != nil && ctx.Err() == nil {
			e.log.Error("media: storing a description", "agent", a.Name, "chat", m.Chat.ID, "message", m.ID, "err", err)
		}
	}
	return nil
}

// images downloads md (spending budget, overdrawn if need be, unless it was downloaded
// lately) and returns what a vision model is shown: the image, or frames of a video.
func (e *Engine) images(ctx context.Context, a *agent, md mynah.Media) ([]llm.Blob, error) {
	if md.Size > maxDownload {
		return nil, unsupported("over 20 MB, too big to download")
	}
	if _, ok := e.recent.get(md.FileUniqueID, e.now()); !ok {
		e.take(a, true)
	}
	data, err := e.fetch(ctx, a, md)
	if errors.Is(err, mynah.ErrFileTooBig) {
		return nil, unsupported("over 20 MB, too big to download")
	}
	if err != nil {
		return nil, err
	}
	switch route(md, data) {
	case readImage:
		img, err := checkImage(data)
		if err != nil {
			return nil, err
		}
		return []llm.Blob{img}, nil
	case readFrames:
		return e.frames(ctx, md, data)
	}
	return nil, errSkip
}
