package memory

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/mynah-ai/mynah"
)

// The folders of scoped notes, under either root: chats/<chat id>/ holds a chat's notes,
// users/<user id>.md a person's (curated only).
const (
	chatsDir = "chats"
	usersDir = "users"
)

// NoteScopeOf returns where the note at rel (a path relative to its kind's root, with
// forward slashes) may be shown, with its chat or user; see the package documentation.
func NoteScopeOf(kind mynah.NoteKind, rel string) (mynah.NoteScope, mynah.ChatID, mynah.UserID) {
	parts := strings.Split(rel, "/")
	switch {
	case parts[0] == chatsDir:
		id, err := strconv.ParseInt(part(parts, 1), 10, 64)
		if err != nil || id == 0 || len(parts) < 3 {
			return mynah.NoteUnscoped, 0, 0
		}
		return mynah.NoteChat, mynah.ChatID(id), 0
	case kind == mynah.NoteEpisodic:
		return mynah.NoteUnscoped, 0, 0 // written before notes had scopes
	case parts[0] == usersDir:
		id, err := strconv.ParseInt(strings.TrimSuffix(part(parts, 1), path.Ext(part(parts, 1))), 10, 64)
		if err != nil || id <= 0 || len(parts) != 2 {
			return mynah.NoteUnscoped, 0, 0
		}
		return mynah.NoteUser, 0, mynah.UserID(id)
	}
	return mynah.NoteGlobal, 0, 0
}

func part(parts []string, i int) string {
	if i < len(parts) {
		return parts[i]
	}
	return ""
}

// chatFolder is the folder of chat's notes under a root.
func chatFolder(chat mynah.ChatID) string {
	return chatsDir + "/" + strconv.FormatInt(int64(chat), 10)
}

// errLink refuses a note reached through a symbolic link: a link in a notes folder could
// point anywhere, and the notes folders are the only files the model may read or write.
var errLink = errors.New("a symbolic link")

// lstatInRoot returns what rel (slash-separated, local) is in root, refusing it when rel
// or any folder on the way is a symbolic link.
func lstatInRoot(root *os.Root, rel string) (fs.FileInfo, error) {
	parts := strings.Split(rel, "/")
	var info fs.FileInfo
	for i := range parts {
		var err error
		if info, err = root.Lstat(strings.Join(parts[:i+1], "/")); err != nil {
			return nil, err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return nil, errLink
		}
	}
	return info, nil
}

// openNote opens the regular file rel (slash-separated, local) under dir for reading. It
// follows no symbolic link and never leaves dir: a file swapped for another between the
// check and the open is refused too.
func openNote(dir, rel string) (*os.File, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return openInRoot(root, rel)
}

// openInRoot is openNote in an open root.
func openInRoot(root *os.Root, rel string) (*os.File, error) {
	info, err := lstatInRoot(root, rel)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	if opened, err := f.Stat(); err != nil || !os.SameFile(info, opened) {
		f.Close()
		return nil, fmt.Errorf("%s changed while being opened", rel)
	}
	return f, nil
}

// readNote reads the note rel under dir, up to limit bytes, as openNote opens it.
func readNote(dir, rel string, limit int64) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return readInRoot(root, rel, limit)
}

// readInRoot is readNote in an open root.
func readInRoot(root *os.Root, rel string, limit int64) ([]byte, error) {
	f, err := openInRoot(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}
