package main

import (
	"context"
	"fmt"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
)

// modelTurns reads back the model turns queued since a time (sqlite.DB).
type modelTurns interface {
	ModelTurnsSince(ctx context.Context, agent string, since time.Time, fn func(user mynah.UserID, at time.Time)) error
}

// restoreLimits rebuilds agent's rate-limit state at now from the model turns of the last
// period, so that a restart does not reset anybody's limit. It is nil (no limit) when the
// limit is off. The state is derived, not stored: every message the limit let through
// queued a model turn, and turns are kept, so restoring costs one read at start and
// nothing per message.
func restoreLimits(ctx context.Context, db modelTurns, agent string, limit access.RateLimit, now time.Time) (*access.Limiter, error) {
	l := access.NewLimiter(limit)
	if l == nil {
		return nil, nil
	}
	err := db.ModelTurnsSince(ctx, agent, now.Add(-limit.Per), func(u mynah.UserID, at time.Time) { l.Restore(u, at, now) })
	if err != nil {
		return nil, fmt.Errorf("agent %s: restoring rate limits: %w", agent, err)
	}
	return l, nil
}
