package mynah

import "context"

// Messages reads stored messages.
type Messages interface {
	// Message returns one message or ErrNotFound.
	Message(ctx context.Context, agent string, chat ChatID, id MessageID) (Message, error)
	// History returns the newest messages of chat with id > after (and, when thread is
	// non-zero, in that forum topic), at most limit of them, in chronological order. It
	// costs O(limit), whatever the size of the chat; a limit ≤ 0 returns nothing.
	// A message's Chat is the chat as last seen.
	History(ctx context.Context, agent string, chat ChatID, thread int64, after MessageID, limit int) ([]Message, error)
}

// HistoryImport stores past messages (a chat export, another bot's log) as history.
type HistoryImport interface {
	// ImportMessages stores msgs as agent's messages in chat, exactly as messages that
	// arrived live are stored (so they are history, recall and summaries like any other),
	// and reports how many it added. A message whose (agent, chat, id) is stored already is
	// skipped, never overwritten, so importing the same file twice adds nothing the second
	// time. The chat and the senders are recorded when the store does not know them yet; a
	// chat or user already known keeps what live traffic told (it is newer than an
	// archive). Every message must have an id > 0 and a Chat.ID of 0 or chat.ID; Agent is
	// ignored in favour of agent. One call is one transaction: all of msgs or none.
	ImportMessages(ctx context.Context, agent string, chat Chat, msgs []Message) (added int, err error)
}
