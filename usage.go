package mynah

import (
	"context"
	"time"
)

// Usage is the token count of one provider call.
type Usage struct {
	Agent        string
	Chat         ChatID
	Model        string // provider/model
	InputTokens  int
	OutputTokens int
	CachedTokens int
	Time         time.Time
}

// UsageLog records provider usage.
type UsageLog interface {
	// RecordUsage appends u; Agent is required, Chat may be 0, a zero Time means now.
	RecordUsage(ctx context.Context, u Usage) error
}
