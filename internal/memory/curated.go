package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
// hand in an agent's memory folder (<config>/agents/<Name>/memory/*.md), included whole
// in every prompt, in file name order. mynah never writes there. A note added, edited or
// removed shows in the next prompt, without a restart: each call lists the folder and
// rereads only the files whose size or modification time changed. It is safe for
// concurrent use.
type Curated struct {
	dir string

	mu    sync.Mutex
	files map[string]curatedFile // by file name
}

type curatedFile struct {
	size    int64
	modTime time.Time
	text    string
}

// NewCurated returns the curated notes of dir; a missing dir has none. It does no I/O.
func NewCurated(dir string) *Curated { return &Curated{dir: dir, files: map[string]curatedFile{}} }

// Items implements prompt.Source: one item per note, "curated:<file name>".
func (c *Curated) Items(ctx context.Context, _ prompt.Query) ([]prompt.Item, error) {
	entries, err := os.ReadDir(c.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("curated memory: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var items []prompt.Item
	present := map[string]bool{}
	for _, e := range entries {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		name := e.Name()
		if e.IsDir() || !strings.EqualFold(filepath.Ext(name), ".md") || strings.HasPrefix(name, ".") {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the listing
		}
		if err != nil {
			return nil, fmt.Errorf("curated memory: %w", err)
		}
		present[name] = true
		f, err := c.load(name, info)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(f.text) == "" {
			continue
		}
		items = append(items, prompt.Item{ID: "curated:" + name, Text: "Note " + name + ":\n" + f.text, Time: f.modTime})
	}
	for name := range c.files {
		if !present[name] {
			delete(c.files, name)
		}
	}
	slices.SortFunc(items, func(a, b prompt.Item) int { return strings.Compare(a.ID, b.ID) })
	return items, nil
}

// load returns the note name, reading it again when info says it changed. The caller
// holds c.mu.
func (c *Curated) load(name string, info fs.FileInfo) (curatedFile, error) {
	if f, ok := c.files[name]; ok && f.size == info.Size() && f.modTime.Equal(info.ModTime()) {
		return f, nil
	}
	f := curatedFile{size: info.Size(), modTime: info.ModTime()}
	if info.Size() > maxCuratedFile {
		f.text = fmt.Sprintf("(The note %s is %d KB, more than the %d KB a curated note may have; it is left out.)", name, info.Size()>>10, maxCuratedFile>>10)
	} else {
		b, err := os.ReadFile(filepath.Join(c.dir, name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return curatedFile{}, fmt.Errorf("curated memory: %w", err)
		}
		f.text = strings.TrimSpace(string(b))
	}
	c.files[name] = f
	return f, nil
}
