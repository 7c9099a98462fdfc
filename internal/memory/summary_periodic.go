package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

// maxDuePerPass bounds the chats one pass summarizes per kind; the rest wait a poll.
const maxDuePerPass = 20

// maxPeriodBatch bounds the messages a periodic summary reads before fitting them to
// InputTokens (the newest are kept).
const maxPeriodBatch = 2000

const periodInstructions = `Summarize this chat's %s: the messages below, from %s. ` +
	`Say who took part, what was discussed and decided, what was promised or left open, with names, dates and numbers. ` +
	`Write plain prose in the conversation's language, at most a few paragraphs, without preamble.`

// PeriodEnd is the end of the latest period of p due at now: periods end on a fixed grid
// (multiples of p.Every since the zero time), so every process, before and after a
// restart, computes the same periods and the store's idempotent insert keeps one summary
// of each.
func PeriodEnd(p Period, now time.Time) time.Time { return now.Truncate(p.Every) }

// periodic writes the summaries of kind due at now: for each chat with messages since
// its last summary of kind and within the period ending at PeriodEnd.
func (s *Summarizer) periodic(ctx context.Context, kind mynah.SummaryKind, p Period) error {
	end := PeriodEnd(p, s.cfg.Now())
	from := end.Add(-p.Span)
	chats, err := s.store.SummariesDue(ctx, s.cfg.Agent, kind, end, from, maxDuePerPass*2)
	if err != nil {
		return err
	}
	var errs []string
	done := 0
	for _, chat := range chats {
		if done == maxDuePerPass {
			break
		}
		k := periodKey{chat, kind, end}
		s.mu.Lock()
		skip := s.empty[k]
		s.mu.Unlock()
		if skip {
			continue
		}
		wrote, err := s.Period(ctx, chat, kind, from, end)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if wrote {
			done++
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s summaries: %s", kind, strings.Join(errs, "; "))
	}
	return nil
}

// Period writes the kind summary of chat for the period (from, end] and reports whether
// it did; a chat busy with another summary, or without messages in the period, is
// skipped. Writing a period summarized before stores nothing new.
func (s *Summarizer) Period(ctx context.Context, chat mynah.ChatID, kind mynah.SummaryKind, from, end time.Time) (bool, error) {
	if !s.lock(chat) {
		return false, nil
	}
	defer s.unlock(chat)
	msgs, err := s.store.MessagesInPeriod(ctx, s.cfg.Agent, chat, from, end, maxPeriodBatch)
	if err != nil {
		return false, err
	}
	if len(msgs) == 0 {
		// The activity that made the chat due came after end: nothing to say about this
		// period. Remember that, so the chat is not read again every poll.
		s.mu.Lock()
		s.empty[periodKey{chat, kind, end}] = true
		s.mu.Unlock()
		return false, nil
	}
	msgs = s.fitNewest(msgs, s.cfg.InputTokens)
	what := map[mynah.SummaryKind]string{mynah.SummaryWeek: "week", mynah.SummaryMonth: "month"}[kind]
	if what == "" {
		what = string(kind)
	}
	req := llm.Request{
		System: fmt.Sprintf(periodInstructions, "last "+what, span(from, end, s.cfg.Location)),
		Turns:  []llm.Turn{llm.Text(llm.User, s.transcript(msgs))},
	}
	text, err := s.generate(ctx, chat, req)
	if err != nil {
		return false, err
	}
	_, added, err := s.store.AddSummary(ctx, mynah.Summary{Agent: s.cfg.Agent, Chat: chat, Kind: kind,
		First: msgs[0].ID, Last: msgs[len(msgs)-1].ID, From: from, To: end,
		Text: text, Model: s.cfg.ModelName, Created: s.cfg.Now()})
	if err != nil {
		return false, err
	}
	s.cfg.Logger.Info("summaries: periodic", "agent", s.cfg.Agent, "chat", int64(chat), "kind", string(kind),
		"end", end, "messages", len(msgs))
	return added, nil
}
