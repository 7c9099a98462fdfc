package mynah

import (
	"context"
	"strings"
	"time"
	"unicode"
)

// Fact is something an agent remembers about one person ("works night shifts", "has a cat
// called Miso"). Facts are derived data: unlike messages, they are deleted when their
// owner asks the agent to forget them, or when the oldest make room under the per-user
// cap. Where a fact may be shown is its Scope (see VisibleIn).
type Fact struct {
	ID    int64 // assigned by the store
	Agent string
	User  UserID // whom the fact is about: its owner, the only one who may remove it
	Text  string
	// Chat and Message are where the fact was learned; both 0 when an operator added it.
	Chat    ChatID
	Message MessageID
	// Scope says in which chats the fact may be shown; the zero value is FactPrivate.
	Scope   FactScope
	Created time.Time
}

// FactScope says in which chats a fact may be shown. Whatever its scope, a fact is shown
// in its owner's private chat with the agent: it is theirs.
type FactScope string

// Fact scopes, from the narrowest.
const (
	// FactPrivate facts are shown only in the owner's private chat: what they said there,
	// facts an operator added, and every fact stored before facts had scopes.
	FactPrivate FactScope = "private"
	// FactChat facts are shown in the chat they were learned in (Fact.Chat), a group,
	// and in the owner's private chat.
	FactChat FactScope = "chat"
	// FactShared facts are shown in any chat the owner is in: they asked for that.
	FactShared FactScope = "shared"
)

// VisibleIn reports whether f may be shown in chat: always in its owner's private chat
// (a private chat's id is its user's id, and only private chats have positive ids),
// elsewhere only when shared or learned in that chat.
func (f Fact) VisibleIn(chat ChatID) bool {
	switch {
	case chat == ChatID(f.User):
		return true
	case f.Scope == FactShared:
		return true
	case f.Scope == FactChat:
		return chat != 0 && chat == f.Chat
	}
	return false
}

// DefaultMaxFacts is how many facts an agent keeps per user unless configured otherwise.
const DefaultMaxFacts = 100

// MaxFactLength is the longest fact text, in characters: a fact is a sentence, not a
// document, and every fact of the people in a chat goes into each prompt.
const MaxFactLength = 500

// Facts is the store of facts about people.
type Facts interface {
	// AddFact stores f (Agent, User and Text are required; a zero Created means now, a
	// zero Scope FactPrivate; Scope FactChat requires Chat) and returns it with its ID and
	// true. When f.User already has a fact whose text is the same under
	// NormalizeFactText, that fact comes back with false, unchanged but for one thing: f
	// with Scope FactShared makes it shared (its owner said it again, to be shared).
	// When the user would have more than max facts (max ≤ 0: DefaultMaxFacts), the oldest
	// are deleted, in the same transaction.
	AddFact(ctx context.Context, f Fact, max int) (Fact, bool, error)
	// ListFacts returns up to limit of user's facts, oldest first, skipping the first
	// offset, and how many the user has in all. The position in this order (1-based) is
	// the number /memories shows and /forget takes.
	ListFacts(ctx context.Context, agent string, user UserID, offset, limit int) ([]Fact, int, error)
	// FactsOf returns the facts of users, grouped by user in the order given, each user's
	// oldest first. Unknown users and repeated ids add nothing.
	FactsOf(ctx context.Context, agent string, users []UserID) ([]Fact, error)
	// RemoveFact deletes fact id of user and returns it. A fact of another user, or of
	// another agent, is not found: an error wrapping ErrNotFound, and nothing changes.
	//
	// once, when not empty, makes the removal happen at most once per agent: a second
	// call with the same once (a Telegram update delivered again after a crash) deletes
	// nothing and returns the first call's fact with only its ID and User set, since the
	// text of a forgotten fact is not kept.
	RemoveFact(ctx context.Context, agent string, user UserID, id int64, once string) (Fact, error)
	// RemoveAllFacts deletes every fact of user and returns how many there were. once is
	// as for RemoveFact: a repeated call returns the first call's count.
	RemoveAllFacts(ctx context.Context, agent string, user UserID, once string) (int, error)
}

// NormalizeFactText is the form in which two facts are the same: case folded, runs of
// white space made one space, and the punctuation that ends a sentence dropped from the
// end, so "Likes tea." and "likes  tea" are one fact (but "writes C#" keeps its '#').
func NormalizeFactText(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(sentenceEnd, r) })
}

// sentenceEnd is the punctuation that may end a sentence, in the scripts users write.
const sentenceEnd = ".,;:!?…。！？"
