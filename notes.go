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

// NoteFile is one indexed note file of an agent, as last seen on disk.
type NoteFile struct {
	Agent string
	Kind  NoteKind
	// Path is the file's path relative to its kind's root, with forward slashes.
	Path    string
	Hash    string // of the content, hex
	Size    int64
	ModTime time.Time
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
	// ModTime change, so chunks may then be nil. Kind must be NoteCurated or NoteEpisodic
	// and Path non-empty.
	PutNote(ctx context.Context, f NoteFile, chunks []NoteChunk) error
	// RemoveNote forgets a file and its chunks; forgetting an unknown file is no error.
	RemoveNote(ctx context.Context, agent string, kind NoteKind, path string) error
	// SearchNotes returns up to q.Limit chunks of q.Agent's notes matching any of q.Terms,
	// best first. No terms match nothing.
	SearchNotes(ctx context.Context, q NoteQuery) ([]NoteHit, error)
}
