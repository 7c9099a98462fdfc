package mynah

import (
	"context"
	"time"
)

// PromptRecord is what the prompt of one turn contained, kept so that an operator can ask
// why a reply said what it said (`mynah context explain`). Composition is the prompt
// package's JSON record (layers, tokens per layer, message ids, what was trimmed).
type PromptRecord struct {
	Agent       string
	Chat        ChatID
	Turn        int64 // the turn whose reply this prompt produced
	Model       string
	Composition []byte
	Usage       Usage
	Time        time.Time
}

// PromptLog stores prompt records.
type PromptLog interface {
	// RecordPrompt stores rec; recording a turn again replaces its record (a retried turn
	// keeps the prompt that produced the reply).
	RecordPrompt(ctx context.Context, rec PromptRecord) error
	// PromptForReply returns the record of the turn whose reply was delivered as Telegram
	// message reply in chat (chat 0: any chat of agent; the newest match wins), or an
	// error wrapping ErrNotFound.
	PromptForReply(ctx context.Context, agent string, chat ChatID, reply MessageID) (PromptRecord, error)
}
