package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/prompt"
)

// summaryReader is what the summaries layer reads.
type summaryReader interface {
	HasSummaries(ctx context.Context, agent string, chat mynah.ChatID) (bool, error)
	LatestSummary(ctx context.Context, agent string, chat mynah.ChatID, thread int64, kind mynah.SummaryKind) (mynah.Summary, error)
	Session(ctx context.Context, agent string, chat mynah.ChatID, thread int64) (mynah.Session, error)
}

// SummaryLayer is the summaries layer of the prompt: the chat's latest month and week
// summaries and the rolling summary of what scrolled out of this session's window, oldest
// first, each saying what it covers.
type SummaryLayer struct {
	store summaryReader
	loc   *time.Location
}

var _ prompt.Source = (*SummaryLayer)(nil)

// NewSummaryLayer returns the layer reading store; dates are shown in loc (nil: UTC).
func NewSummaryLayer(store summaryReader, loc *time.Location) *SummaryLayer {
	if loc == nil {
		loc = time.UTC
	}
	return &SummaryLayer{store: store, loc: loc}
}

// Items implements prompt.Source.
func (l *SummaryLayer) Items(ctx context.Context, q prompt.Query) ([]prompt.Item, error) {
	if has, err := l.store.HasSummaries(ctx, q.Agent, q.Chat.ID); err != nil || !has {
		return nil, err
	}
	var items []prompt.Item
	for _, k := range []struct {
		kind  mynah.SummaryKind
		label string
	}{{mynah.SummaryMonth, "Last month"}, {mynah.SummaryWeek, "Last week"}} {
		s, err := l.latest(ctx, q, 0, k.kind)
		if err != nil {
			return nil, err
		}
		if s.ID != 0 {
			items = append(items, l.item(s, k.label+": summary of"))
		}
	}
	thread := q.Target.ThreadID
	s, err := l.latest(ctx, q, thread, mynah.SummaryRolling)
	if err != nil || s.ID == 0 {
		return items, err
	}
	// A rolling summary belongs to one session: after a reset it is not shown.
	sess, err := l.store.Session(ctx, q.Agent, q.Chat.ID, thread)
	if err != nil {
		return nil, fmt.Errorf("summaries layer: %w", err)
	}
	if s.First > sess.Start {
		items = append(items, l.item(s, "Earlier in this conversation: summary of"))
	}
	return items, nil
}

func (l *SummaryLayer) latest(ctx context.Context, q prompt.Query, thread int64, kind mynah.SummaryKind) (mynah.Summary, error) {
	s, err := l.store.LatestSummary(ctx, q.Agent, q.Chat.ID, thread, kind)
	if errors.Is(err, mynah.ErrNotFound) {
		return mynah.Summary{}, nil
	}
	if err != nil {
		return mynah.Summary{}, fmt.Errorf("summaries layer: %w", err)
	}
	return s, nil
}

func (l *SummaryLayer) item(s mynah.Summary, lead string) prompt.Item {
	return prompt.Item{
		ID:   fmt.Sprintf("summary:%d", s.ID),
		Text: fmt.Sprintf("%s messages %d–%d, %s: %s", lead, s.First, s.Last, span(s.From, s.To, l.loc), s.Text),
		Time: s.To,
	}
}
