package mynah

import (
	"context"
	"time"
)

// NoteKind is where a markdown note comes from.
type NoteKind string

// Note kinds: curated notes are written by hand in the agent's configuration
// (agents/<Name>/memory/), episodic ones by the agent itself (its note tool, in the data
// dir). mynah never writes a curated note.
const (
	NoteCurated  NoteKind = "curated"
	NoteEpisodic NoteKind = "episodic"
)

// NoteScope says in which chats a note may be shown. The memory package derives it from
// where the file is (see its package documentation); the index records it so that a
// search sees only the notes of the chat it is made for.
type NoteScope string

// Note scopes. A zero NoteScope is NoteUnscoped: a note nobody placed is shown nowhere.
const (
	// NoteGlobal notes are shown in every chat of the agent.
	NoteGlobal NoteScope = "global"
	// NoteChat notes are shown only in the chat NoteFile.Chat.
	NoteChat NoteScope = "chat"
	// NoteUser notes are shown only in the private chat of NoteFile.User.
	NoteUser NoteScope = "user"
	// NoteUnscoped notes are shown in no chat: only an operator's search finds them.
	NoteUnscoped NoteScope = "unscoped"
)

// NoteFile is one indexed note file of an agent, as last seen on disk.
type NoteFile struct {
	Agent string
	Kind  NoteKind
	// Path is the file's path relative to its kind's root, with forward slashes.
	Path    string
	Hash    string // of the content, hex
	Size    int64
	ModTime time.Time
	// Scope is where the note may be shown; Chat is set for NoteChat, User for NoteUser.
	Scope NoteScope
	Chat  ChatID
	User  UserID
}

// VisibleIn reports whether the note may be shown in chat (a private chat's id is its
// user's id).
func (f NoteFile) VisibleIn(chat ChatID) bool {
	switch f.Scope {
	case NoteGlobal:
		return true
	case NoteChat:
		return chat != 0 && chat == f.Chat
	case NoteUser:
		return chat != 0 && chat == ChatID(f.User)
	}
	return false
}

// NoteChunk is a searchable piece of a note: whole lines StartLine..EndLine (1-based,
// inclusive) of the file. Chunks of a file may overlap.
type NoteChunk struct {
	StartLine, EndLine int
	Text               string
	Hash               string // of Text, hex
}

// NoteQuery asks for keyword candidates among an agent's notes.
type NoteQuery struct {
	Agent string
	// Terms are OR-ed words, as in SearchQuery: lower-cased and stripped of stop words by
	// the caller; the backend stems them and escapes its syntax.
	Terms []string
	Limit int
	// Chat limits the search to the notes that may be shown in that chat
	// (NoteFile.VisibleIn); 0 finds only global notes. All finds every note instead,
	// unscoped ones included: the operator's search, never a chat's.
	Chat ChatID
	All  bool
}

// NoteHit is one chunk matching a NoteQuery, with its file and BM25 score (> 0, higher
// is better, comparable within one answer only).
type NoteHit struct {
	File  NoteFile
	Chunk NoteChunk
	Score float64
}

// NoteIndex is the notes index: the note files of each agent, their chunks and a keyword
// index over the chunks. It is derived from the files, so it may be rebuilt at any time;
// it holds nothing else.
type NoteIndex interface {
	// NoteFiles returns every indexed file of agent, in no particular order.
	NoteFiles(ctx context.Context, agent string) ([]NoteFile, error)
	// PutNote records f with its chunks, replacing what was indexed for the same (Agent,
	// Kind, Path), all at once: a search sees the old chunks or the new ones, never a mix.
	// When the stored file has the same Hash, its chunks are kept and only Size and
	// ModTime (and Scope) change, so chunks may then be nil. Kind must be NoteCurated or
	// NoteEpisodic, Path non-empty, Scope empty (stored as NoteUnscoped) or a NoteScope
	// with its Chat or User set.
	PutNote(ctx context.Context, f NoteFile, chunks []NoteChunk) error
	// RemoveNote forgets a file and its chunks; forgetting an unknown file is no error.
	RemoveNote(ctx context.Context, agent string, kind NoteKind, path string) error
	// SearchNotes returns up to q.Limit chunks of q.Agent's notes matching any of q.Terms,
	// best first, among the notes q.Chat may see (all with q.All). No terms match nothing.
	SearchNotes(ctx context.Context, q NoteQuery) ([]NoteHit, error)
}
