package memory

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/mynah-ai/mynah"
)

// Sources of notes as results show them: a curated note's path is under memory/ (as in
// the agent's config folder), an episodic one's under notes/.
const (
	curatedPrefix  = "memory/"
	episodicPrefix = "notes/"
)

// NoteSource is what a Searcher asks for notes: the best chunks for q, as
// mynah.NoteIndex.SearchNotes returns them.
type NoteSource interface {
	SearchNotes(ctx context.Context, q mynah.NoteQuery) ([]mynah.NoteHit, error)
}

// SearchNotes syncs the notes first, so that a note written a moment ago is found, then
// searches the index. A failed sync (a folder that cannot be read) is not the search's
// failure: what is indexed is still searched, and serve's periodic sync reports it.
func (n *Notes) SearchNotes(ctx context.Context, q mynah.NoteQuery) ([]mynah.NoteHit, error) {
	if q.Agent == n.agent {
		_, _ = n.Sync(ctx)
	}
	return n.index.SearchNotes(ctx, q)
}

// WithNotes returns a copy of s that searches notes too: each search then fuses the best
// message results with the best note chunks (see Search).
func (s *Searcher) WithNotes(notes NoteSource) *Searcher {
	c := *s
	c.notes = notes
	return &c
}

// NoteSourceName is how results and memory_get name a note's lines: "memory/birds.md:12-30".
func NoteSourceName(f mynah.NoteFile, c mynah.NoteChunk) string {
	prefix := curatedPrefix
	if f.Kind == mynah.NoteEpisodic {
		prefix = episodicPrefix
	}
	return fmt.Sprintf("%s%s:%d-%d", prefix, f.Path, c.StartLine, c.EndLine)
}

// addNotes fuses msgs, the message results of q, with the best k note chunks for terms
// that q.Chat may see (every note with q.AllNotes), and returns the best k of both. Each
// kind's scores are normalised by its own best (Fuse does that per list), so neither kind
// drowns the other: BM25 over short messages and over 400-token chunks are on different
// scales. Searches of one person's words (q.Sender) are about messages only.
func (s *Searcher) addNotes(ctx context.Context, q Query, terms []string, msgs []Result, k int) ([]Result, error) {
	if s.notes == nil || q.Sender != 0 {
		return msgs, nil
	}
	hits, err := s.notes.SearchNotes(ctx, mynah.NoteQuery{Agent: q.Agent, Terms: terms, Limit: k, Chat: q.Chat, All: q.AllNotes})
	if err != nil {
		return nil, fmt.Errorf("memory: searching notes: %w", err)
	}
	if len(hits) == 0 {
		return msgs, nil
	}
	byKey := make(map[string]Result, len(msgs)+len(hits))
	ms := make([]Scored, len(msgs))
	for i, r := range msgs {
		key := messageKey(r.Chat, r.MessageID)
		byKey[key] = r
		ms[i] = Scored{Key: key, Score: r.Score}
	}
	ns := make([]Scored, len(hits))
	for i, h := range hits {
		src := NoteSourceName(h.File, h.Chunk)
		key := "note:" + src
		byKey[key] = Result{Kind: KindNote, Time: h.File.ModTime, Snippet: Snippet(h.Chunk.Text, terms, 240), Source: src}
		ns[i] = Scored{Key: key, Score: h.Score}
	}
	// Fuse's second list is meant for vectors; here it is the notes, weighed like messages.
	fused := Fuse(ms, ns, Weights{Keyword: 1, Vector: 1})
	out := make([]Result, 0, min(k, len(fused)))
	for _, f := range fused[:min(k, len(fused))] {
		r := byKey[f.Key]
		r.Score = f.Score
		out = append(out, r)
	}
	return out, nil
}

// maxNoteLines bounds what memory_get returns of a note at once.
const maxNoteLines = 200

// NoteLines returns lines from..to (1-based, inclusive; to 0 means from+40) of the note
// named as results name it ("memory/birds.md", "notes/chats/7/garden.md"), each prefixed
// with its number, when chat may see it (mynah.NoteFile.VisibleIn). A name outside the
// agent's note folders, or reached through a symbolic link, is refused.
func (n *Notes) NoteLines(chat mynah.ChatID, name string, from, to int) (string, error) {
	var root, rel string
	var kind mynah.NoteKind
	switch {
	case strings.HasPrefix(name, curatedPrefix):
		root, rel, kind = n.curated, strings.TrimPrefix(name, curatedPrefix), mynah.NoteCurated
	case strings.HasPrefix(name, episodicPrefix):
		root, rel, kind = n.episodic, strings.TrimPrefix(name, episodicPrefix), mynah.NoteEpisodic
	default:
		return "", fmt.Errorf("%q is not a note: a note's path starts with %s or %s", name, curatedPrefix, episodicPrefix)
	}
	if root == "" || strings.Contains(rel, `\`) || !filepath.IsLocal(filepath.FromSlash(rel)) || path.Clean(rel) != rel ||
		!strings.EqualFold(path.Ext(rel), ".md") {
		return "", fmt.Errorf("%q is not a note", name)
	}
	scope, c, u := NoteScopeOf(kind, rel)
	if !(mynah.NoteFile{Scope: scope, Chat: c, User: u}).VisibleIn(chat) {
		return "", fmt.Errorf("note %q is not among the notes of this chat", name)
	}
	from = max(from, 1)
	if to <= 0 {
		to = from + 40
	}
	if to < from {
		return "", fmt.Errorf("lines %d-%d: the range is empty", from, to)
	}
	to = min(to, from+maxNoteLines-1)
	f, err := openNote(root, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("note %q does not exist", name)
	}
	if err != nil {
		return "", fmt.Errorf("note %q cannot be read", name)
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, maxNoteFile)
	for line := 1; sc.Scan() && line <= to; line++ {
		if line >= from {
			fmt.Fprintf(&b, "%d: %s\n", line, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("note %q cannot be read", name)
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("note %q has no line %d", name, from)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}
