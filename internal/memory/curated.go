package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mynah-ai/mynah/internal/prompt"
)

// maxCuratedFile is the largest curated note read into the memory layer. A note is
// written by hand to be in every prompt; a bigger file is more likely a mistake (a log
// dropped in the folder) than memory, and is skipped with an item saying so.
const maxCuratedFile = 64 << 10

// Curated is the curated part of the memory layer: markdown notes an operator writes by
// hand in an agent's memory folder (<config>/agents/<Name>/memory), included whole, in
// path order: those at the top of the folder in every prompt, those in chats/<chat id>/
// in that chat's prompts, and users/<user id>.md in the prompts of that person's private
// chat (in a group only when the operator puts a copy in the group's folder). mynah never
// writes there, and follows no symbolic link there. A note added, edited or removed shows
// in the next prompt, without a restart: each call lists the folders and rereads only the
// files whose size or modification time changed. It is safe for concurrent use.
type Curated struct {
	dir string

	mu    sync.Mutex
	files map[string]curatedFile // by path in dir, slash-separated
}

type curatedFile struct {
	size    int64
	modTime time.Time
	text    string
}

// NewCurated returns the curated notes of dir; a missing dir has none. It does no I/O.
func NewCurated(dir string) *Curated { return &Curated{dir: dir, files: map[string]curatedFile{}} }

// Items implements prompt.Source: one item per note the chat may see, "curated:<path>".
func (c *Curated) Items(ctx context.Context, q prompt.Query) ([]prompt.Item, error) {
	root, err := os.OpenRoot(c.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("curated memory: %w", err)
	}
	defer root.Close()
	folders := []string{"."}
	if q.Chat.ID != 0 {
		folders = append(folders, chatFolder(q.Chat.ID))
	}
	found := map[string]fs.FileInfo{}
	for _, folder := range folders {
		if err := listCurated(root, folder, found); err != nil {
			return nil, err
		}
	}
	var single string // the person's own note, in their private chat
	if q.Chat.ID > 0 {
		single = usersDir + "/" + strconv.FormatInt(int64(q.Chat.ID), 10) + ".md"
		info, err := lstatInRoot(root, single)
		switch {
		case err == nil && info.Mode().IsRegular():
			found[single] = info
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errLink):
			return nil, fmt.Errorf("curated memory: %w", err)
		}
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	var items []prompt.Item
	for rel, info := range found {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		f, err := c.load(root, rel, info)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(f.text) == "" {
			continue
		}
		items = append(items, prompt.Item{ID: "curated:" + rel, Text: "Note " + rel + ":\n" + f.text, Time: f.modTime})
	}
	// Forget what was cached of notes gone from the folders just listed.
	for rel := range c.files {
		if _, ok := found[rel]; !ok && (rel == single || slices.Contains(folders, path.Dir(rel))) {
			delete(c.files, rel)
		}
	}
	slices.SortFunc(items, func(a, b prompt.Item) int { return strings.Compare(a.ID, b.ID) })
	return items, nil
}

// listCurated adds the notes directly in folder to found: regular *.md files not hidden.
// A folder that is missing, or is a symbolic link, has none.
func listCurated(root *os.Root, folder string, found map[string]fs.FileInfo) error {
	if folder != "." {
		info, err := lstatInRoot(root, folder)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errLink) || err == nil && !info.IsDir() {
			return nil
		}
		if err != nil {
			return fmt.Errorf("curated memory: %w", err)
		}
	}
	entries, err := fs.ReadDir(root.FS(), folder)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("curated memory: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.EqualFold(path.Ext(name), ".md") || strings.HasPrefix(name, ".") {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the listing
		}
		if err != nil {
			return fmt.Errorf("curated memory: %w", err)
		}
		found[path.Join(folder, name)] = info
	}
	return nil
}

// load returns the note rel, reading it again when info says it changed. The caller
// holds c.mu.
func (c *Curated) load(root *os.Root, rel string, info fs.FileInfo) (curatedFile, error) {
	if f, ok := c.files[rel]; ok && f.size == info.Size() && f.modTime.Equal(info.ModTime()) {
		return f, nil
	}
	f := curatedFile{size: info.Size(), modTime: info.ModTime()}
	if info.Size() > maxCuratedFile {
		f.text = fmt.Sprintf("(The note %s is %d KB, more than the %d KB a curated note may have; it is left out.)", rel, info.Size()>>10, maxCuratedFile>>10)
	} else {
		b, err := readInRoot(root, rel, maxCuratedFile)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return curatedFile{}, fmt.Errorf("curated memory: %w", err)
		}
		f.text = strings.TrimSpace(string(b))
	}
	c.files[rel] = f
	return f, nil
}
