package prompt

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

// Agent is what prompt assembly needs to know about an agent.
type Agent struct {
	Name        string
	Bot         mynah.User
	System      SystemParts
	Budget      int // tokens for the whole prompt: context window minus reply reserve
	Shares      Shares
	Policy      Policy
	Format      string
	MaxMessages int
	Count       func(string) int // nil = Estimate
	Location    *time.Location
	Freshness   Freshness
}

// Freshness decides when a chat's conversation starts anew without a /new: the prompt
// then shows only the new session. Nothing is deleted; older messages stay stored.
type Freshness struct {
	Kind string        // "never" (or empty), "idle" or "daily"
	Idle time.Duration // idle: a gap this long without messages starts a new session
	Hour int           // daily: the hour, in Agent.Location, a new session starts
}

// fresh drops from history (chronological) what belongs to an earlier session under the
// freshness policy. The target is never dropped.
func (f Freshness) fresh(history []mynah.Message, target mynah.MessageID, now time.Time, loc *time.Location) []mynah.Message {
	start := 0
	switch f.Kind {
	case "idle":
		if f.Idle <= 0 {
			return history
		}
		for i := len(history) - 1; i > 0; i-- {
			if history[i].Time.Sub(history[i-1].Time) >= f.Idle {
				start = i
				break
			}
		}
	case "daily":
		local := now.In(loc)
		boundary := time.Date(local.Year(), local.Month(), local.Day(), f.Hour, 0, 0, 0, loc)
		if boundary.After(local) {
			boundary = boundary.AddDate(0, 0, -1)
		}
		for start < len(history) && history[start].Time.Before(boundary) {
			start++
		}
	}
	for i := 0; i < start; i++ {
		if history[i].ID == target {
			return append([]mynah.Message{history[i]}, history[start:]...)
		}
	}
	return history[start:]
}

// Query is what a layer source is asked for.
type Query struct {
	Agent  string
	Chat   mynah.Chat
	Target mynah.Message
	// Window is the history the prompt may show; recall sources look beyond it.
	Window []mynah.Message
	// WholeChat reports that Window holds every message of the chat: there is nothing
	// beyond it to recall, which a young chat's turns know without asking the store.
	WholeChat bool
}

// Source supplies the items of one layer for a turn. The memory engine implements it for
// the memory, summaries and recall layers.
type Source interface {
	Items(ctx context.Context, q Query) ([]Item, error)
}

// Sources plug the optional layers in; a nil source is an empty layer.
type Sources struct {
	Tools, Memory, Summaries, Recall Source
	// Members, if set, reports how many members a group has, for the tail and
	// {membercount}; it returns 0 when it does not know.
	Members func(ctx context.Context, chat mynah.Chat) int
	// Media, if set, readies the attachments of the turn's messages.
	Media Attacher
}

// Attacher readies attachments for a prompt (the media package implements it): it fills, in
// place, the descriptions it knows for msgs, and returns the images (or audio) to show
// with the focus messages — the target, its album and its reply chain. It never fails a
// turn: what it cannot describe keeps its placeholder.
type Attacher interface {
	Prepare(ctx context.Context, agent string, msgs []mynah.Message, focus []mynah.MessageID) map[mynah.MessageID][]llm.Part
}

// Store is what assembly reads.
type Store interface {
	Session(ctx context.Context, agent string, chat mynah.ChatID, thread int64) (mynah.Session, error)
	History(ctx context.Context, agent string, chat mynah.ChatID, thread int64, after mynah.MessageID, limit int) ([]mynah.Message, error)
	Message(ctx context.Context, agent string, chat mynah.ChatID, id mynah.MessageID) (mynah.Message, error)
}

// Assembler loads what a turn's prompt is built from and builds it. It is safe for
// concurrent use.
type Assembler struct {
	agent   Agent
	store   Store
	sources Sources
	now     func() time.Time
}

// NewAssembler returns an Assembler; it does no I/O. now defaults to time.Now.
func NewAssembler(agent Agent, store Store, sources Sources, now func() time.Time) *Assembler {
	if now == nil {
		now = time.Now
	}
	if agent.Location == nil {
		agent.Location = time.UTC
	}
	if agent.MaxMessages <= 0 {
		agent.MaxMessages = DefaultMaxMessages
	}
	return &Assembler{agent: agent, store: store, sources: sources, now: now}
}

// Turn names the message a prompt answers.
type Turn struct {
	Chat   mynah.ChatID
	Thread int64
	Target mynah.MessageID
	// Policy, when set, replaces the agent's history policy for this turn (a crew
	// member's own policy in its crew's chat).
	Policy *Policy
	// Layer, when set, ends the system instruction: what the turn adds to the agent's
	// own instructions (a crew's members and rules).
	Layer string
}

// Assemble builds the prompt for t from the current session: it costs O(window) reads,
// whatever the size of the chat's history.
func (a *Assembler) Assemble(ctx context.Context, t Turn) (llm.Request, Composition, error) {
	in, err := a.Input(ctx, t)
	if err != nil {
		return llm.Request{}, Composition{}, err
	}
	req, comp := Build(in)
	return req, comp, nil
}

// Input loads everything Build needs for t.
func (a *Assembler) Input(ctx context.Context, t Turn) (Input, error) {
	sess, err := a.store.Session(ctx, a.agent.Name, t.Chat, t.Thread)
	if err != nil {
		return Input{}, fmt.Errorf("reading session: %w", err)
	}
	history, err := a.store.History(ctx, a.agent.Name, t.Chat, t.Thread, sess.Start, a.agent.MaxMessages)
	if err != nil {
		return Input{}, fmt.Errorf("reading history: %w", err)
	}
	// Read from the chat's first message on, fewer than asked: the chat has no others.
	whole := sess.Start == 0 && t.Thread == 0 && len(history) < a.agent.MaxMessages
	fetched := len(history)
	var target mynah.Message
	for i := range history {
		if history[i].ID == t.Target {
			target = history[i]
		}
	}
	if target.ID == 0 {
		whole = false
		// The target is older than the window (or the session): show it anyway.
		if target, err = a.store.Message(ctx, a.agent.Name, t.Chat, t.Target); err != nil {
			return Input{}, fmt.Errorf("reading target message %d: %w", t.Target, err)
		}
		history = append([]mynah.Message{target}, history...)
	}
	now := a.now()
	history = a.agent.Freshness.fresh(history, t.Target, now, a.agent.Location)
	whole = whole && len(history) == fetched
	quoted, err := a.replyChain(ctx, target)
	if err != nil {
		return Input{}, err
	}
	var attachments map[mynah.MessageID][]llm.Part
	if a.sources.Media != nil {
		msgs := append(append(make([]mynah.Message, 0, len(history)+len(quoted)), history...), quoted...)
		attachments = a.sources.Media.Prepare(ctx, a.agent.Name, msgs, focus(history, target, quoted))
		copy(history, msgs)
		copy(quoted, msgs[len(history):])
		for _, m := range history {
			if m.ID == target.ID {
				target = m
			}
		}
	}
	members := 0
	if a.sources.Members != nil && target.Chat.IsGroup() {
		members = a.sources.Members(ctx, target.Chat)
	}
	in := Input{
		Session:     fmt.Sprintf("%s/%d/%d/%d", a.agent.Name, t.Chat, t.Thread, sess.Start),
		Chat:        target.Chat,
		Members:     members,
		Bot:         a.agent.Bot,
		History:     history,
		Quoted:      quoted,
		Target:      t.Target,
		Attachments: attachments,
		Budget:      a.agent.Budget,
		Shares:      a.agent.Shares,
		Policy:      a.agent.Policy,
		Format:      a.agent.Format,
		MaxMessages: a.agent.MaxMessages,
		Count:       a.agent.Count,
		Now:         now,
		Location:    a.agent.Location,
	}
	q := Query{Agent: a.agent.Name, Chat: target.Chat, Target: target, Window: history, WholeChat: whole}
	for _, l := range []struct {
		src Source
		dst *[]Item
	}{{a.sources.Tools, &in.Tools}, {a.sources.Memory, &in.Memory}, {a.sources.Summaries, &in.Summaries}, {a.sources.Recall, &in.Recall}} {
		if l.src == nil {
			continue
		}
		if *l.dst, err = l.src.Items(ctx, q); err != nil {
			return Input{}, err
		}
	}
	vars := Vars(VarsInput{Chat: target.Chat, Bot: a.agent.Bot, User: target.Sender, Members: members, Now: now.In(a.agent.Location)})
	if named, ok := a.sources.Tools.(interface{ Names() []string }); ok {
		vars["tools"] = strings.Join(named.Names(), ", ")
	}
	in.System = System(a.agent.System, vars)
	if t.Layer != "" {
		in.System = joinNonEmpty(in.System, t.Layer)
	}
	if t.Policy != nil {
		in.Policy = *t.Policy
	}
	return in, nil
}

// replyChain follows what the target replies to, up to maxQuoted messages, nearest
// first. A replied-to message the store does not have (sent before the agent joined) is
// taken from what Telegram told us about it.
func (a *Assembler) replyChain(ctx context.Context, m mynah.Message) ([]mynah.Message, error) {
	var chain []mynah.Message
	for ref := m.ReplyTo; ref != nil && ref.ID != 0 && len(chain) < maxQuoted; {
		prev, err := a.store.Message(ctx, a.agent.Name, m.Chat.ID, ref.ID)
		switch {
		case errors.Is(err, mynah.ErrNotFound):
			prev = mynah.Message{Chat: m.Chat, ID: ref.ID, Sender: ref.Sender, Text: ref.Text}
		case err != nil:
			return nil, fmt.Errorf("reading replied-to message %d: %w", ref.ID, err)
		}
		chain = append(chain, prev)
		ref = prev.ReplyTo
	}
	return chain, nil
}

// focus is what a turn shows as media rather than descriptions: the target, the rest of
// its album (the items around it from the same sender at the same second with media:
// Telegram delivers an album as separate messages sharing their date), its reply chain,
// and the words of the burst it ends (see heard).
func focus(history []mynah.Message, target mynah.Message, quoted []mynah.Message) []mynah.MessageID {
	ids := []mynah.MessageID{target.ID}
	add := func(id mynah.MessageID) {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	at := -1
	for i := range history {
		if history[i].ID == target.ID {
			at = i
		}
	}
	if len(target.Media) > 0 {
		album := func(m *mynah.Message) bool {
			return len(m.Media) > 0 && m.Sender.ID == target.Sender.ID && m.Time.Unix() == target.Time.Unix()
		}
		for i := at - 1; at >= 0 && i >= 0 && album(&history[i]); i-- {
			add(history[i].ID)
		}
		for i := at + 1; at >= 0 && i < len(history) && album(&history[i]); i++ {
			add(history[i].ID)
		}
	}
	for _, q := range quoted {
		add(q.ID)
	}
	for _, id := range heard(history, at) {
		add(id)
	}
	return ids
}

// burstHeard bounds the messages before a target whose words heard reads now.
const burstHeard = 5

// heard returns the messages of the burst history[at] ends — the ones just before it from
// the same sender, none of anyone else's between, each within mynah.ContextGap of the
// next — that carry words to read or hear (a voice note, audio, a video note, a document
// that is no image), at most burstHeard of them. A turn answers its whole burst (a newer
// message replaces a queued turn), so a voice note sent just before a sticker is heard
// now, not described later in the background; images of the burst stay descriptions, so
// fifty photos and a question cost one image.
func heard(history []mynah.Message, at int) []mynah.MessageID {
	if at < 0 {
		return nil
	}
	target := history[at]
	var ids []mynah.MessageID
	for i := at - 1; i >= 0 && len(ids) < burstHeard; i-- {
		m, next := history[i], history[i+1]
		if m.Sender.ID != target.Sender.ID || next.Time.Sub(m.Time) > mynah.ContextGap {
			break
		}
		if slices.ContainsFunc(m.Media, words) {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// words reports whether md carries words to read or hear rather than a picture.
func words(md mynah.Media) bool {
	switch md.Kind {
	case mynah.MediaVoice, mynah.MediaAudio, mynah.MediaVideoNote:
		return true
	case mynah.MediaDocument:
		return !strings.HasPrefix(md.MimeType, "image/")
	}
	return false
}
