package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/prompt"
)

// Recall is the prompt's recall layer: messages of the chat, beyond the window the prompt
// shows, that bear on the message being answered. It is safe for concurrent use.
type Recall struct {
	searcher *Searcher
	k        int
}

// NewRecall returns a recall source that offers up to k messages (0 means 5).
func NewRecall(s *Searcher, k int) *Recall {
	if k <= 0 {
		k = 5
	}
	return &Recall{searcher: s, k: k}
}

var _ prompt.Source = (*Recall)(nil)

// Items searches the chat with the target's text and the message before it (a short
// "and then?" borrows the words of what it follows), leaving out what the window shows.
// Each item is the message with the turn before it when that turn is not shown either.
func (r *Recall) Items(ctx context.Context, q prompt.Query) ([]prompt.Item, error) {
	if q.WholeChat {
		return nil, nil
	}
	if len(q.Window) > 0 {
		// Nothing is beyond a window that starts with the chat's first message: skip the
		// search (most turns of most chats, and the cost of a full-text query each).
		first, err := r.searcher.store.Around(ctx, q.Agent, q.Chat.ID, q.Window[0].ID, 1, 0)
		if err != nil {
			return nil, err
		}
		if len(first) > 0 && first[0].ID >= q.Window[0].ID {
			return nil, nil
		}
	}
	text := q.Target.Text
	inWindow := make([]mynah.MessageID, 0, len(q.Window))
	for i, m := range q.Window {
		inWindow = append(inWindow, m.ID)
		if m.ID == q.Target.ID && i > 0 {
			// the message before, at most half of what a search looks for: a long answer
			// before a short question leaves the question its own words
			text = tellingWords(q.Window[i-1].Text, r.searcher.stop, maxWords/2) + "\n" + text
		}
	}
	// Commands and the canned replies to them are not memories: ask for more than k so
	// that dropping them still leaves k.
	res, err := r.searcher.Search(ctx, Query{Agent: q.Agent, Chat: q.Chat.ID, Text: text, K: 2 * r.k, Exclude: inWindow, Now: q.Target.Time})
	if err != nil {
		return nil, err
	}
	hits := make(map[mynah.MessageID]bool, len(res))
	for _, res := range res {
		hits[res.Message.ID] = true
	}
	items := make([]prompt.Item, 0, r.k)
	for _, res := range res {
		if len(items) == r.k {
			break
		}
		m := res.Message
		if isCommand(m.Text) {
			continue
		}
		var before *mynah.Message
		if prev, err := r.searcher.store.Around(ctx, q.Agent, m.Chat.ID, m.ID, 1, 0); err == nil && len(prev) == 2 {
			before = &prev[0]
		}
		if before != nil && m.Outgoing && isCommand(before.Text) {
			continue // the agent's fixed answer to /help, /start, …
		}
		var b strings.Builder
		// The turn before a hit gives it context, unless the window shows it, it is a hit of
		// its own (neighbouring hits are not listed twice) or it is a command.
		if before != nil && !containsID(inWindow, before.ID) && !hits[before.ID] && !isCommand(before.Text) {
			writeLine(&b, *before, 200, r.searcher.Location())
		}
		writeLine(&b, *m, 0, r.searcher.Location())
		items = append(items, prompt.Item{ID: fmt.Sprintf("message:%d", m.ID), Text: strings.TrimRight(b.String(), "\n"), Score: res.Score, Time: m.Time})
	}
	return items, nil
}

// isCommand reports whether text is a bot command ("/help", "/start@mynah_bot").
func isCommand(text string) bool {
	text = strings.TrimSpace(text)
	return len(text) > 1 && text[0] == '/' && (text[1] >= 'a' && text[1] <= 'z' || text[1] >= 'A' && text[1] <= 'Z')
}

func containsID(ids []mynah.MessageID, id mynah.MessageID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// writeLine renders a recalled message as "[2024-05-01 18:30 EEST #42] Alice: text", its
// time in loc (the chat's time zone, as the prompt's window shows times: see prompt.Meta),
// its media descriptions and text cut to limit runes when limit > 0.
func writeLine(b *strings.Builder, m mynah.Message, limit int, loc *time.Location) {
	if loc == nil {
		loc = time.UTC
	}
	name := m.Sender.Name()
	if name == "" {
		name = fmt.Sprint(m.Sender.ID)
	}
	text := strings.Join(strings.Fields(prompt.Body(&m)), " ")
	if r := []rune(text); limit > 0 && len(r) > limit {
		text = string(r[:limit]) + "…"
	}
	fmt.Fprintf(b, "[%s #%d] %s: %s\n", m.Time.In(loc).Format("2006-01-02 15:04 MST"), m.ID, name, text)
}
