package mynah

import "errors"

// ErrNotFound is returned by stores when the requested record does not exist.
var ErrNotFound = errors.New("not found")

// Store is every contract a storage backend implements: internal/sqlite today, and each
// backend after it, which proves it with the conformance suite in internal/storetest.
// Each contract is declared in the file of the nouns it stores (named below), so its
// documentation sits beside the fields it refers to.
//
// Only wiring (cmd/mynah) and the conformance suite hold a Store. Every other package
// declares the few methods it calls as its own interface, and a Store satisfies them all.
type Store interface {
	Inbox     // inbox.go: Telegram updates, each applied once
	Turns     // turns.go: the queue of work for the agent
	Outbox    // outbox.go: the parts of answers waiting for delivery
	Messages  // messages.go: stored history, read back
	Sessions  // chats.go: where each chat's or topic's conversation starts
	Chats     // chats.go: chats as last seen, and who blocked the bot
	UsageLog  // usage.go: tokens spent per provider call
	PromptLog // prompts.go: what each turn's prompt contained

	Pairings       // access.go: pairing codes and the users they admitted
	ChatModes      // access.go: /stop and /activation per chat
	GroupApprovals // access.go: groups approved at runtime, and who added the bot

	Facts         // facts.go: what the agent remembers about people
	NoteIndex     // notes.go: the keyword index of markdown notes
	HistorySearch // search.go: keyword search over stored history
	HistoryImport // messages.go: past messages imported as history
	Summaries     // summaries.go: rolling, weekly and monthly summaries
	VectorStore   // vectors.go: embeddings of messages and notes
	MediaNotes    // media.go: descriptions of media files, by file_unique_id
	MediaQueue    // media.go: stored messages whose media wait for descriptions

	Crews         // crew.go: crews' cycles, and their members' views of each other
	ModelSessions // crew.go: sessions of command-line agents used as models

	// Close releases the backend. It is safe to call twice; no method may be called
	// after it.
	Close() error
}
