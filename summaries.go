package mynah

import (
	"context"
	"time"
)

// SummaryKind says what a summary condenses.
type SummaryKind string

// Summary kinds. A rolling summary condenses what scrolled out of a session's prompt
// window; week and month summaries condense a chat's last 7 and 30 days.
const (
	SummaryRolling SummaryKind = "rolling"
	SummaryWeek    SummaryKind = "week"
	SummaryMonth   SummaryKind = "month"
)

// Summary is what the model wrote about a stretch of a chat. Summaries are derived: the
// messages they cover stay stored, and a newer rolling summary supersedes (never deletes)
// the previous one by covering everything it covered.
type Summary struct {
	ID     int64 // assigned by the store
	Agent  string
	Chat   ChatID
	Thread int64 // forum topic of a rolling summary; 0 for the whole chat
	Kind   SummaryKind
	// First and Last are the oldest and newest message the summary covers.
	First, Last MessageID
	// From and To are the period covered: for week and month summaries the period
	// (From, To]; for a rolling summary the times of its first and last message.
	From, To time.Time
	Text     string
	Model    string // provider/model that wrote it
	Created  time.Time
}

// PromptRef is one recorded prompt as the summarizer reads it: which chat and topic it
// was for, and its composition (see PromptRecord).
type PromptRef struct {
	Turn        int64
	Chat        ChatID
	Thread      int64
	Composition []byte
}

// Summaries stores summaries and answers what the summarizer needs to find its work.
type Summaries interface {
	// AddSummary stores s (Agent, Chat, Kind, Last and Text are required; a zero Created
	// means now) and returns it with its ID and true. It is idempotent: a rolling summary
	// with the same agent, chat, thread and Last, or a periodic one with the same agent,
	// chat, thread, kind and To, is stored once; the stored one comes back with false.
	AddSummary(ctx context.Context, s Summary) (Summary, bool, error)
	// HasSummaries reports whether agent has any summary of chat: most chats have none,
	// and one look saves a prompt the lookups of each kind.
	HasSummaries(ctx context.Context, agent string, chat ChatID) (bool, error)
	// LatestSummary returns the newest summary of kind of chat's thread (rolling: the
	// highest Last; periodic: the latest To), or an error wrapping ErrNotFound.
	LatestSummary(ctx context.Context, agent string, chat ChatID, thread int64, kind SummaryKind) (Summary, error)
	// ClaimFlush records that the memory flush before compacting the messages of chat's
	// thread from first on ran at now; it reports false when it was recorded before, so
	// a flush runs at most once per compaction, across crashes and restarts.
	ClaimFlush(ctx context.Context, agent string, chat ChatID, thread int64, first MessageID, now time.Time) (bool, error)
	// SummariesDue returns up to limit chats of agent (whole chats, thread 0) whose latest
	// summary of kind ends before end (or that have none) and whose newest message is
	// later than both that summary's end and since: the chats with activity that lack
	// the summary of the period ending at end. Its cost grows with the agent's chats,
	// never with their messages.
	SummariesDue(ctx context.Context, agent string, kind SummaryKind, end, since time.Time, limit int) ([]ChatID, error)
	// MessagesBetween returns up to limit messages of chat's thread (0: the whole chat)
	// with after < id < before, oldest first. Its cost is O(limit).
	MessagesBetween(ctx context.Context, agent string, chat ChatID, thread int64, after, before MessageID, limit int) ([]Message, error)
	// MessagesInPeriod returns up to limit of the newest messages of chat with
	// from < Time ≤ to, oldest first. It walks the chat back from its newest message, so
	// its cost grows with the messages since from, not with the chat's history.
	MessagesInPeriod(ctx context.Context, agent string, chat ChatID, from, to time.Time, limit int) ([]Message, error)
	// PromptsAfter returns up to limit of agent's prompt records of turns with an id
	// greater than turn, in turn order, with the topic each turn was in.
	PromptsAfter(ctx context.Context, agent string, turn int64, limit int) ([]PromptRef, error)
	// LastTurn returns the id of agent's newest recorded prompt's turn, 0 when none.
	LastTurn(ctx context.Context, agent string) (int64, error)
}
