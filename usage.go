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
	RecordUsage(ctx context.Context, u Usage) error
}
