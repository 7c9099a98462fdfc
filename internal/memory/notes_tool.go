package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/tool"
)

// Limits of the note tool: an entry is a note, not a transcript, and a topic's file stays
// small enough to chunk and read back.
const (
	maxNoteEntry = 4000      // runes
	maxNoteTopic = 64        // runes of the file name
	maxTopicFile = 256 << 10 // bytes; a full topic refuses more entries
)

// NoteTool is the note tool: the agent appends a dated entry to its episodic note about a
// topic, a markdown file in its notes folder named after the topic. The file is never
// outside that folder whatever the topic says, and entries are only appended.
type NoteTool struct{ dir string }

// NewNoteTool returns the note tool writing in dir (created on first use). It does no I/O.
func NewNoteTool(dir string) NoteTool { return NoteTool{dir: dir} }

var _ tool.Tool = NoteTool{}

// Spec describes note to the model.
func (NoteTool) Spec() llm.Tool {
	return llm.Tool{
		Name:        "note",
		Description: "Write down something worth keeping beyond this conversation (a decision, a plan, what happened) in your notes about a topic. Each call appends a dated entry; memory_search finds it later.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"topic":{"type":"string","description":"a short topic name; entries about the same topic go to the same note"},` +
			`"text":{"type":"string","description":"the entry, in markdown"}},` +
			`"required":["topic","text"]}`),
	}
}

// Run appends the entry and says which note it went to.
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
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return "", errors.New("the notes folder cannot be created")
	}
	path := filepath.Join(t.dir, name)
	var entry strings.Builder
	info, err := os.Stat(path)
	switch {
	case err == nil && info.Size()+int64(len(text)) > maxTopicFile:
		return "", fmt.Errorf("the note %s is full; write about a narrower topic", name)
	case err != nil:
		fmt.Fprintf(&entry, "# %s\n", strings.TrimSpace(args.Topic))
	}
	fmt.Fprintf(&entry, "\n## %s\n\n%s\n", c.Now.UTC().Format("2006-01-02 15:04 UTC"), text)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return "", errors.New("the note cannot be opened")
	}
	if _, err := f.WriteString(entry.String()); err != nil {
		f.Close()
		return "", errors.New("the note cannot be written")
	}
	if err := f.Close(); err != nil {
		return "", errors.New("the note cannot be written")
	}
	return "Noted in " + episodicPrefix + name + ".", nil
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
