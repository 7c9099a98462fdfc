package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/tool"
)

// Limits of the note tool: an entry is a note, not a transcript, a topic's file stays
// small enough to chunk and read back, and one chat cannot fill the disk.
const (
	maxNoteEntry = 4000      // runes
	maxNoteTopic = 64        // runes of the file name
	maxTopicFile = 256 << 10 // bytes; a full topic refuses more entries
	// DefaultNotesPerChat is how many bytes of notes the agent may write in one chat
	// unless configured otherwise.
	DefaultNotesPerChat = 1 << 20
)

// NoteTool is the note tool: the agent appends a dated entry to its episodic note about a
// topic, a markdown file named after the topic in the folder of the chat it is in
// (<dir>/chats/<chat id>/), so the note belongs to that chat (and a private chat's to its
// person). The file is never outside that folder whatever the topic says, no symbolic
// link is followed, entries are only appended, and a chat's notes stop growing at their
// quota.
type NoteTool struct {
	dir     string
	perChat int64
}

// NewNoteTool returns the note tool writing under dir (created on first use), at most
// perChat bytes of notes per chat (≤ 0: DefaultNotesPerChat). It does no I/O.
func NewNoteTool(dir string, perChat int64) NoteTool {
	if perChat <= 0 {
		perChat = DefaultNotesPerChat
	}
	return NoteTool{dir: dir, perChat: perChat}
}

var _ tool.Tool = NoteTool{}

// Spec describes note to the model.
func (NoteTool) Spec() llm.Tool {
	return llm.Tool{
		Name:        "note",
		Description: "Write down something worth keeping beyond this conversation (a decision, a plan, what happened) in this chat's notes about a topic. Each call appends a dated entry; memory_search in this chat finds it later. Notes of one chat are never shown in another.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"topic":{"type":"string","description":"a short topic name; entries about the same topic go to the same note"},` +
			`"text":{"type":"string","description":"the entry, in markdown"}},` +
			`"required":["topic","text"]}`),
	}
}

// Run appends the entry to the call's chat's note and says which note it went to.
func (t NoteTool) Run(_ context.Context, c tool.Call) (string, error) {
	var args struct {
		Topic string `json:"topic"`
		Text  string `json:"text"`
	}
	if err := json.Unmarshal(c.Args, &args); err != nil {
		return "", fmt.Errorf("arguments are not {\"topic\": string, \"text\": string}: %v", err)
	}
	name := NoteFileName(args.Topic)
	if name == "" {
		return "", errors.New("topic is empty: give a short name made of words")
	}
	text := strings.TrimSpace(args.Text)
	if text == "" {
		return "", errors.New("text is empty")
	}
	if n := utf8.RuneCountInString(text); n > maxNoteEntry {
		return "", fmt.Errorf("text is %d characters; an entry holds at most %d", n, maxNoteEntry)
	}
	if c.Chat.ID == 0 {
		return "", errors.New("notes are kept per chat, and this turn has none")
	}
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return "", errors.New("the notes folder cannot be created")
	}
	root, err := os.OpenRoot(t.dir)
	if err != nil {
		return "", errors.New("the notes folder cannot be opened")
	}
	defer root.Close()
	folder := chatFolder(c.Chat.ID)
	if err := root.MkdirAll(folder, 0o700); err != nil {
		return "", errors.New("the chat's notes folder cannot be created")
	}
	if info, err := lstatInRoot(root, folder); err != nil || !info.IsDir() {
		return "", errors.New("the chat's notes folder is not a folder")
	}
	used, err := folderSize(root, folder)
	if err != nil {
		return "", errors.New("the chat's notes cannot be read")
	}
	rel := folder + "/" + name
	old, err := lstatInRoot(root, rel)
	var entry strings.Builder
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
		fmt.Fprintf(&entry, "# %s\n", strings.TrimSpace(args.Topic))
	case err != nil || !old.Mode().IsRegular():
		return "", fmt.Errorf("the note %s cannot be written", name)
	case old.Size()+int64(len(text)) > maxTopicFile:
		return "", fmt.Errorf("the note %s is full; write about a narrower topic", name)
	}
	fmt.Fprintf(&entry, "\n## %s\n\n%s\n", c.Now.UTC().Format("2006-01-02 15:04 UTC"), text)
	if used+int64(entry.Len()) > t.perChat {
		return "", fmt.Errorf("this chat's notes are full (%d KB of %d KB): nothing more can be noted here; keep only what matters in your answers",
			used>>10, t.perChat>>10)
	}
	f, err := root.OpenFile(rel, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return "", errors.New("the note cannot be opened")
	}
	if opened, err := f.Stat(); err != nil || !opened.Mode().IsRegular() || old != nil && !os.SameFile(old, opened) {
		f.Close()
		return "", errors.New("the note cannot be opened")
	}
	if _, err := f.WriteString(entry.String()); err != nil {
		f.Close()
		return "", errors.New("the note cannot be written")
	}
	if err := f.Close(); err != nil {
		return "", errors.New("the note cannot be written")
	}
	return "Noted in " + episodicPrefix + rel + ".", nil
}

// folderSize is the size of the regular files directly in folder, a chat's notes.
func folderSize(root *os.Root, folder string) (int64, error) {
	entries, err := fs.ReadDir(root.FS(), folder)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed since the listing
		}
		n += info.Size()
	}
	return n, nil
}

// NoteFileName turns a topic into a safe file name: letters and digits (of any script)
// lower-cased, every other run of characters one "-", at most maxNoteTopic of them, and
// ".md". No separator, dot or control character survives, so the file is always directly
// in the notes folder. An empty result means the topic has no letters or digits.
func NoteFileName(topic string) string {
	var b strings.Builder
	n, dash := 0, false
	for _, r := range strings.ToLower(topic) {
		if n == maxNoteTopic {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
				n++
			}
			b.WriteRune(r)
			n++
			dash = false
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return ""
	}
	return b.String() + ".md"
}
