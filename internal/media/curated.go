package media

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mynah-ai/mynah"
)

// maxCuratedFile is the largest curated JSON file read: descriptions written by hand.
const maxCuratedFile = 8 << 20

// curatedEntry is one curated description, in the JSON shape of the seed's media
// directories.
type curatedEntry struct {
	UniqueID    string `json:"unique_id"`
	Kind        string `json:"kind"`
	SetName     string `json:"sticker_set_name"`
	StickerName string `json:"sticker_name"` // the sticker's emoji
	Description string `json:"description"`
}

// curatedDir holds the curated descriptions of one directory's *.json files: by unique
// id, and for a sticker entry without one, by set (any case) and emoji. It reads the directory when first
// asked and again, whole, when Run's poll sees a file added, removed or changed. A file
// that cannot be read is logged once (until it changes) and skipped. It is safe for
// concurrent use.
type curatedDir struct {
	dir string

	mu        sync.Mutex
	loaded    bool
	stamp     string
	byID      map[string]mynah.MediaNote
	bySticker map[string]mynah.MediaNote
	logged    map[string]string // bad file → its stamp when logged
}

func stickerKey(set, emoji string) string { return strings.ToLower(set) + "\x00" + emoji }

// lookup returns the curated note of md, reading the directory first if it never was.
func (c *curatedDir) lookup(log *slog.Logger, md mynah.Media) (mynah.MediaNote, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded {
		c.reloadLocked(log)
	}
	if md.FileUniqueID != "" {
		if n, ok := c.byID[md.FileUniqueID]; ok {
			n.Kind = md.Kind
			return n, true
		}
	}
	if md.Kind == mynah.MediaSticker && md.SetName != "" && md.Emoji != "" {
		if n, ok := c.bySticker[stickerKey(md.SetName, md.Emoji)]; ok {
			n.UniqueID = md.FileUniqueID
			return n, true
		}
	}
	return mynah.MediaNote{}, false
}

// reload rereads the directory when its files changed.
func (c *curatedDir) reload(log *slog.Logger) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reloadLocked(log)
}

func (c *curatedDir) reloadLocked(log *slog.Logger) {
	c.loaded = true
	files, stamp, err := listJSON(c.dir)
	if err != nil {
		if c.logged["."] != err.Error() {
			log.Warn("media: reading curated descriptions", "dir", c.dir, "err", err)
			c.logged = map[string]string{".": err.Error()}
		}
		return
	}
	if stamp == c.stamp && c.byID != nil {
		return
	}
	byID, bySticker := map[string]mynah.MediaNote{}, map[string]mynah.MediaNote{}
	logged := map[string]string{}
	for _, f := range files {
		entries, err := readCurated(filepath.Join(c.dir, f.name))
		if err != nil {
			if c.logged[f.name] != f.stamp {
				log.Warn("media: skipping a curated file", "file", filepath.Join(c.dir, f.name), "err", err)
			}
			logged[f.name] = f.stamp
			continue
		}
		for _, e := range entries {
			desc := strings.TrimSpace(e.Description)
			if desc == "" {
				continue
			}
			n := mynah.MediaNote{UniqueID: e.UniqueID, Kind: mynah.MediaKind(e.Kind), SetName: e.SetName,
				Emoji: e.StickerName, Status: mynah.MediaDescribed, Description: desc, Source: "curated:" + f.name}
			if e.UniqueID != "" {
				if _, dup := byID[e.UniqueID]; !dup { // files are read in name order: the first wins
					byID[e.UniqueID] = n
				}
			}
			if e.UniqueID == "" && e.SetName != "" && e.StickerName != "" { // a sticker named, not identified
				if _, dup := bySticker[stickerKey(e.SetName, e.StickerName)]; !dup {
					bySticker[stickerKey(e.SetName, e.StickerName)] = n
				}
			}
		}
	}
	c.stamp, c.byID, c.bySticker, c.logged = stamp, byID, bySticker, logged
}

type jsonFile struct{ name, stamp string }

// listJSON lists dir's *.json files in name order, each with a stamp of its size and
// modification time, and a stamp of them all. A missing dir has none.
func listJSON(dir string) ([]jsonFile, string, error) {
	if dir == "" {
		return nil, "", nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	var files []jsonFile
	var all strings.Builder
	for _, e := range entries {
		if e.IsDir() || !strings.EqualFold(filepath.Ext(e.Name()), ".json") {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		f := jsonFile{e.Name(), fmt.Sprintf("%d/%d", info.Size(), info.ModTime().UnixNano())}
		files = append(files, f)
		fmt.Fprintf(&all, "%s:%s;", f.name, f.stamp)
	}
	slices.SortFunc(files, func(a, b jsonFile) int { return strings.Compare(a.name, b.name) })
	return files, all.String(), nil
}

// readCurated reads one curated file: one object, or an array of them.
func readCurated(path string) ([]curatedEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCuratedFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxCuratedFile {
		return nil, fmt.Errorf("larger than %d MB", maxCuratedFile>>20)
	}
	raw := bytes.TrimSpace(data)
	if bytes.HasPrefix(raw, []byte("[")) {
		var es []curatedEntry
		if err := json.Unmarshal(raw, &es); err != nil {
			return nil, err
		}
		return es, nil
	}
	var e curatedEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, err
	}
	return []curatedEntry{e}, nil
}
