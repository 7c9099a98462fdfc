package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/prompt"
)

// FactStore is what the facts layer and the facts tools need of mynah.Facts.
type FactStore interface {
	AddFact(ctx context.Context, f mynah.Fact, max int) (mynah.Fact, bool, error)
	ListFacts(ctx context.Context, agent string, user mynah.UserID, offset, limit int) ([]mynah.Fact, int, error)
	FactsOf(ctx context.Context, agent string, users []mynah.UserID) ([]mynah.Fact, error)
	RemoveFact(ctx context.Context, agent string, user mynah.UserID, id int64, once string) (mynah.Fact, error)
}

// maxFactPeople bounds whose facts one prompt offers in a busy group: the target's author
// and the most recent other speakers of the window.
const maxFactPeople = 20

// Facts is the facts part of the memory layer: what the agent remembers about the people
// taking part. In a private chat that is the user, with all of their facts; in a group,
// the author of the message being answered and the people who spoke in the window, most
// recent first, so that when the layer's budget runs short the facts of those long silent
// go first, with only the facts the group may see: learned in it, or shared
// (mynah.Fact.VisibleIn). Bots, the agent included, have no facts offered. It is safe for
// concurrent use.
type Facts struct {
	store FactStore
}

// NewFacts returns the facts source reading store. It does no I/O.
func NewFacts(store FactStore) *Facts { return &Facts{store: store} }

// Items implements prompt.Source: one item per fact, "fact:<id>", naming whose it is.
func (s *Facts) Items(ctx context.Context, q prompt.Query) ([]prompt.Item, error) {
	people := participants(q)
	if len(people) == 0 {
		return nil, nil
	}
	ids := make([]mynah.UserID, len(people))
	byID := make(map[mynah.UserID]mynah.User, len(people))
	for i, u := range people {
		ids[i], byID[u.ID] = u.ID, u
	}
	facts, err := s.store.FactsOf(ctx, q.Agent, ids)
	if err != nil {
		return nil, fmt.Errorf("reading facts about %d people: %w", len(ids), err)
	}
	facts = slices.DeleteFunc(facts, func(f mynah.Fact) bool { return !f.VisibleIn(q.Chat.ID) })
	items := make([]prompt.Item, len(facts))
	for i, f := range facts {
		items[i] = prompt.Item{
			ID:   fmt.Sprintf("fact:%d", f.ID),
			Text: fmt.Sprintf("About %s: %s (fact %d)", Person(byID[f.User]), f.Text, f.ID),
			Time: f.Created,
		}
	}
	return items, nil
}

// participants returns whose facts a turn is offered: the target's author first, then
// the window's other human senders, most recent first, at most maxFactPeople. A private
// chat has one participant besides the agent, whatever the window holds.
func participants(q prompt.Query) []mynah.User {
	var out []mynah.User
	seen := map[mynah.UserID]bool{}
	add := func(u mynah.User) {
		if u.ID <= 0 || u.IsBot || seen[u.ID] || len(out) >= maxFactPeople {
			return
		}
		seen[u.ID] = true
		out = append(out, u)
	}
	add(q.Target.Sender)
	if !q.Chat.IsGroup() {
		return out
	}
	for i := len(q.Window) - 1; i >= 0; i-- {
		if m := q.Window[i]; !m.Outgoing {
			add(m.Sender)
		}
	}
	return out
}

// Person names a user the way the model can tell who is who in the history's headers:
// name, @username and id.
func Person(u mynah.User) string {
	var parts []string
	if n := u.Name(); n != "" {
		parts = append(parts, n)
	}
	if u.Username != "" {
		parts = append(parts, "@"+u.Username)
	}
	parts = append(parts, fmt.Sprintf("id %d", u.ID))
	if len(parts) == 1 {
		return "user " + parts[0]
	}
	return parts[0] + " (" + strings.Join(parts[1:], ", ") + ")"
}

// LongTerm is the memory layer: curated notes first (stable from turn to turn, good for
// provider prompt caches), then facts about the people taking part. Each source's items
// keep their order; a nil source adds nothing.
type LongTerm []prompt.Source

// Items implements prompt.Source.
func (l LongTerm) Items(ctx context.Context, q prompt.Query) ([]prompt.Item, error) {
	var out []prompt.Item
	for _, src := range l {
		if src == nil {
			continue
		}
		items, err := src.Items(ctx, q)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	return out, nil
}
