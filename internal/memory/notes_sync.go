package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mynah-ai/mynah"
)

// maxNoteFile is the largest note file indexed; a bigger one in a notes folder is more
// likely a log or an export dropped there than a note, and is skipped.
const maxNoteFile = 4 << 20

// Notes keeps an agent's notes index in step with its note files: the curated notes an
// operator writes under <config>/agents/<Name>/memory/ (any depth) and the episodic notes
// the agent's note tool writes in <data>/notes/<Name>/. Only *.md files are notes, and
// only regular files: a symbolic link is not followed. Each is indexed with its scope
// (NoteScopeOf). Sync finds what changed by stat (size, modification time and scope) and
// reads and hashes only those files, so calling it often (serve does, and every search
// first) is cheap and a note edited by hand is found without a restart. It is safe for
// concurrent use.
type Notes struct {
	agent    string
	curated  string
	episodic string
	index    mynah.NoteIndex

	mu sync.Mutex // one sync at a time
}

// NewNotes returns the notes of agent in the two folders (either may be missing) over
// index. It does no I/O.
func NewNotes(agent, curatedDir, episodicDir string, index mynah.NoteIndex) *Notes {
	return &Notes{agent: agent, curated: curatedDir, episodic: episodicDir, index: index}
}

// SyncStats is what one Sync did.
type SyncStats struct {
	Hashed  int // files read and hashed: new, or with another size or time
	Indexed int // files (re-)chunked and indexed: new, or with new content
	Removed int // files gone from disk, removed from the index
	Skipped int // files too big to be notes
}

type noteKey struct {
	kind mynah.NoteKind
	path string
}

// Sync brings the index in line with the folders. A folder that cannot be read (other
// than missing) is an error and leaves its notes indexed as they were.
func (n *Notes) Sync(ctx context.Context) (SyncStats, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var st SyncStats
	known, err := n.index.NoteFiles(ctx, n.agent)
	if err != nil {
		return st, fmt.Errorf("notes of %s: %w", n.agent, err)
	}
	indexed := make(map[noteKey]mynah.NoteFile, len(known))
	for _, f := range known {
		indexed[noteKey{f.Kind, f.Path}] = f
	}
	seen := map[noteKey]bool{}
	for _, root := range []struct {
		kind mynah.NoteKind
		dir  string
	}{{mynah.NoteCurated, n.curated}, {mynah.NoteEpisodic, n.episodic}} {
		if root.dir == "" {
			continue
		}
		err := filepath.WalkDir(root.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() || !strings.EqualFold(filepath.Ext(p), ".md") {
				return nil
			}
			rel, err := filepath.Rel(root.dir, p)
			if err != nil {
				return err
			}
			key := noteKey{root.kind, filepath.ToSlash(rel)}
			seen[key] = true
			return n.syncFile(ctx, key, root.dir, indexed, &st)
		})
		if errors.Is(err, fs.ErrNotExist) && !dirExists(root.dir) {
			err = nil // no folder: no notes of this kind
		}
		if err != nil {
			// Keep what was indexed from this folder: a folder that failed to read is
			// not a folder emptied.
			for k := range indexed {
				if k.kind == root.kind {
					seen[k] = true
				}
			}
			return st, fmt.Errorf("notes of %s: %w", n.agent, err)
		}
	}
	for k := range indexed {
		if seen[k] {
			continue
		}
		if err := n.index.RemoveNote(ctx, n.agent, k.kind, k.path); err != nil {
			return st, fmt.Errorf("notes of %s: %w", n.agent, err)
		}
		st.Removed++
	}
	return st, nil
}

func dirExists(dir string) bool {
	_, err := os.Stat(dir)
	return err == nil
}

// syncFile indexes the file key.path under dir when its size, time, scope or content
// changed.
func (n *Notes) syncFile(ctx context.Context, key noteKey, dir string, indexed map[noteKey]mynah.NoteFile, st *SyncStats) error {
	info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(key.path)))
	if errors.Is(err, fs.ErrNotExist) || err == nil && !info.Mode().IsRegular() {
		delete(indexed, key) // removed (or replaced by a link) while we walked: the next sync removes it
		return nil
	}
	if err != nil {
		return err
	}
	scope, chat, user := NoteScopeOf(key.kind, key.path)
	old, ok := indexed[key]
	if ok && old.Size == info.Size() && old.ModTime.Equal(info.ModTime()) {
		if old.Scope == scope && old.Chat == chat && old.User == user {
			return nil
		}
		// Indexed before notes had scopes (or under other rules): record the scope, keep
		// the chunks.
		old.Scope, old.Chat, old.User = scope, chat, user
		return n.index.PutNote(ctx, old, nil)
	}
	if info.Size() > maxNoteFile {
		st.Skipped++
		if ok {
			delete(indexed, key) // no longer a note: let it be removed
			return n.index.RemoveNote(ctx, n.agent, key.kind, key.path)
		}
		return nil
	}
	data, err := readNote(dir, key.path, maxNoteFile)
	if err != nil {
		return err
	}
	st.Hashed++
	sum := sha256.Sum256(data)
	f := mynah.NoteFile{Agent: n.agent, Kind: key.kind, Path: key.path, Hash: hex.EncodeToString(sum[:]),
		Size: info.Size(), ModTime: info.ModTime(), Scope: scope, Chat: chat, User: user}
	var chunks []mynah.NoteChunk
	if !ok || old.Hash != f.Hash {
		chunks = ChunkNote(string(data), ChunkTokens, ChunkOverlap)
		st.Indexed++
	}
	return n.index.PutNote(ctx, f, chunks)
}
