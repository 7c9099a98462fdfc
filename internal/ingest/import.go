package ingest

// Importing past messages: a chat's history read from a file (see JSONL) is checked
// whole, then stored through the store's import, the path live messages take.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/mynah-ai/mynah"
)

// Source yields the messages of an import in order, each with where it came from
// ("line 12") and what is wrong with it, if anything; yield returns false to stop early.
// A Source can be run more than once: Check reads it, and Store reads it again. Its own
// error is a failure to read, never a bad message.
type Source func(yield func(pos string, m mynah.Message, err error) bool) error

// Stats counts an import's messages: the valid ones, the invalid ones (a repeated id
// included), and how many of the valid ones the store did not hold yet.
type Stats struct{ Valid, Bad, Added int }

// Problems says what is wrong with each invalid message of an import, as "pos: problem",
// in the order of the source.
type Problems []string

// String shows the first 20 problems one per line, every line after the first indented
// by two spaces, and how many more there are.
func (ps Problems) String() string {
	const shown = 20
	if len(ps) <= shown {
		return strings.Join(ps, "\n  ")
	}
	return strings.Join(ps[:shown], "\n  ") + fmt.Sprintf("\n  … and %d more", len(ps)-shown)
}

// importBatch is how many messages one transaction stores: large enough that commits
// do not dominate, small enough that progress moves and memory stays flat.
const importBatch = 1000

// Plan is an import whose messages were all read and checked; Store stores it.
type Plan struct {
	// Problems are the invalid messages Store skips; empty unless Check was told to
	// skip them.
	Problems Problems

	src   Source
	stats Stats
	first map[mynah.MessageID]string // where each valid id first appears
}

// Check reads every message of src, collecting what is wrong with each invalid one (an
// id seen before included). Unless skipBad, one invalid message fails the import before
// anything is stored: the error lists every problem. It returns src's error, or ctx's
// when ctx ends before src does.
func Check(ctx context.Context, src Source, skipBad bool) (*Plan, error) {
	p := &Plan{src: src, first: map[mynah.MessageID]string{}}
	err := src(func(pos string, m mynah.Message, err error) bool {
		if err == nil {
			if first, dup := p.first[m.ID]; dup {
				err = fmt.Errorf("id %d repeats the message of %s", m.ID, first)
			}
		}
		if err != nil {
			p.stats.Bad++
			p.Problems = append(p.Problems, pos+": "+err.Error())
			return true
		}
		p.first[m.ID] = pos
		p.stats.Valid++
		return ctx.Err() == nil
	})
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	if len(p.Problems) > 0 && !skipBad {
		return nil, fmt.Errorf("nothing imported: %d invalid messages (--skip-bad imports the rest):\n  %s", len(p.Problems), p.Problems)
	}
	return p, nil
}

// Store stores the plan's valid messages in chat as agent's, in batches, through st's
// import (the path live messages take), and returns the plan's counts with how many
// messages were new. A message whose sender is the agent's own bot (self, 0 when not
// known) is stored as the agent's own, outgoing. progress, when not nil, is called with
// 0 of the valid total before the first batch and with the running count after each.
// Store stops at the first error of the source or the store; the batches stored before
// it stay stored.
func (p *Plan) Store(ctx context.Context, st mynah.HistoryImport, agent string, self mynah.UserID, chat mynah.Chat, progress func(done, total int)) (Stats, error) {
	stats := p.stats
	if progress == nil {
		progress = func(int, int) {}
	}
	done := 0
	progress(done, stats.Valid)
	batch := make([]mynah.Message, 0, importBatch)
	flush := func() error {
		n, err := st.ImportMessages(ctx, agent, chat, batch)
		stats.Added += n
		done += len(batch)
		progress(done, stats.Valid)
		batch = batch[:0]
		return err
	}
	pending := maps.Clone(p.first)
	var storeErr error
	err := p.src(func(_ string, m mynah.Message, err error) bool {
		if err != nil || pending[m.ID] == "" {
			return true
		}
		delete(pending, m.ID) // a repeat of this id later on was reported and is skipped
		m.Outgoing = self != 0 && m.Sender.ID == self
		batch = append(batch, m)
		if len(batch) == importBatch {
			storeErr = flush()
		}
		return storeErr == nil
	})
	if err == nil && storeErr == nil && len(batch) > 0 {
		storeErr = flush()
	}
	return stats, errors.Join(err, storeErr)
}
