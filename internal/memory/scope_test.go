package memory_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/tool"
)

var (
	bob   = mynah.User{ID: 43, FirstName: "Bob"}
	bobDM = mynah.Chat{ID: 43, Type: mynah.ChatPrivate}
)

// scopeRig is an agent's memory engine over a real store, with its two note folders.
type scopeRig struct {
	engine            *memory.Engine
	curated, episodic string
	tools             map[string]tool.Tool
	store             *sqlite.DB
}

func newScopeRig(t *testing.T, perChat int64) *scopeRig {
	t.Helper()
	r := &scopeRig{curated: t.TempDir(), episodic: filepath.Join(t.TempDir(), "notes", "Mynah"), tools: map[string]tool.Tool{},
		store: openStore(t)}
	r.engine = memory.New(memory.Config{Agent: "Mynah", CuratedDir: r.curated, EpisodicDir: r.episodic, NotesPerChat: perChat},
		r.store, nil, nil)
	for _, tl := range r.engine.Tools() {
		r.tools[tl.Spec().Name] = tl
	}
	return r
}

// run calls the tool name in chat, answering sender.
func (r *scopeRig) run(t *testing.T, name string, chat mynah.Chat, sender mynah.User, args string) (string, error) {
	t.Helper()
	return r.tools[name].Run(t.Context(), tool.Call{Agent: "Mynah", Chat: chat, Sender: sender, Target: 1, Args: json.RawMessage(args), Now: t0})
}

// notesFound is what memory_search in chat finds among the notes: their paths.
func (r *scopeRig) notesFound(t *testing.T, chat mynah.Chat, sender mynah.User, query string) []string {
	t.Helper()
	out, err := r.run(t, "memory_search", chat, sender, `{"query":`+quote(query)+`,"k":20}`)
	if err != nil {
		t.Fatalf("memory_search in chat %d: %v", chat.ID, err)
	}
	var paths []string
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "[note "); ok {
			paths = append(paths, rest[:strings.IndexByte(rest, ':')])
		}
	}
	slices.Sort(paths)
	return paths
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestNotesStayInTheirChat: a note the agent writes in Alice's private chat is found and
// read there only, never in Bob's chat or a group; curated notes reach the chats the
// operator put them in; notes written before notes had scopes are found by the operator's
// search only.
func TestNotesStayInTheirChat(t *testing.T) {
	r := newScopeRig(t, 0)
	if out, err := r.run(t, "note", factsDM, alice, `{"topic":"Door","text":"Her door code is 4711."}`); err != nil ||
		out != "Noted in notes/chats/42/door.md." {
		t.Fatalf("note in alice's chat = %q, %v", out, err)
	}
	if _, err := r.run(t, "note", factsGroup, carol, `{"topic":"door","text":"The club's door code is 1234."}`); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(r.episodic, "legacy.md"), "# Door\nAn old door code note from before scopes.\n")
	write(t, filepath.Join(r.curated, "house.md"), "The door code of the office is on the fridge.\n")
	write(t, filepath.Join(r.curated, "chats", "-100500", "rules.md"), "Birders: the hide door code is 9.\n")
	write(t, filepath.Join(r.curated, "users", "42.md"), "Alice's door code reminder: she forgets it.\n")
	write(t, filepath.Join(r.curated, "users", "notanid.md"), "A door code nobody placed.\n")

	for _, tc := range []struct {
		name   string
		chat   mynah.Chat
		sender mynah.User
		want   []string
	}{
		{"alice in private", factsDM, alice, []string{"memory/house.md", "memory/users/42.md", "notes/chats/42/door.md"}},
		{"bob in private", bobDM, bob, []string{"memory/house.md"}},
		{"the group", factsGroup, alice, []string{"memory/chats/-100500/rules.md", "memory/house.md", "notes/chats/-100500/door.md"}},
	} {
		if got := r.notesFound(t, tc.chat, tc.sender, "door code"); !slices.Equal(got, tc.want) {
			t.Errorf("%s: memory_search finds notes %q, want %q", tc.name, got, tc.want)
		}
	}

	// memory_get reads a note only in a chat that may see it.
	if out, err := r.run(t, "memory_get", factsDM, alice, `{"path":"notes/chats/42/door.md","from":1}`); err != nil || !strings.Contains(out, "4711") {
		t.Errorf("memory_get of alice's note in her chat = %q, %v", out, err)
	}
	for _, tc := range []struct {
		chat mynah.Chat
		path string
	}{
		{bobDM, "notes/chats/42/door.md"},
		{factsGroup, "notes/chats/42/door.md"},
		{bobDM, "memory/users/42.md"},
		{factsGroup, "memory/users/42.md"},
		{bobDM, "memory/chats/-100500/rules.md"},
		{factsDM, "notes/legacy.md"},
		{factsDM, "memory/users/notanid.md"},
		{bobDM, "notes/chats/43/../42/door.md"},
	} {
		if out, err := r.run(t, "memory_get", tc.chat, bob, `{"path":`+quote(tc.path)+`,"from":1}`); err == nil {
			t.Errorf("memory_get %s in chat %d = %q, want a refusal", tc.path, tc.chat.ID, out)
		}
	}

	// The memory layer: global notes everywhere, the chat's in the chat, the person's in
	// their private chat only.
	for _, tc := range []struct {
		chat mynah.Chat
		want []string
	}{
		{factsDM, []string{"curated:house.md", "curated:users/42.md"}},
		{bobDM, []string{"curated:house.md"}},
		{factsGroup, []string{"curated:chats/-100500/rules.md", "curated:house.md"}},
	} {
		items, err := memory.NewCurated(r.curated).Items(t.Context(), prompt.Query{Agent: "Mynah", Chat: tc.chat})
		if err != nil {
			t.Fatal(err)
		}
		if got := itemIDs(items); !slices.Equal(got, tc.want) {
			t.Errorf("curated layer in chat %d = %q, want %q", tc.chat.ID, got, tc.want)
		}
	}

	// The operator's search finds every note, the unscoped ones too.
	res, err := r.engine.Search(t.Context(), memory.Query{Text: "door code", K: 20})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, x := range res {
		all = append(all, x.Source[:strings.IndexByte(x.Source, ':')])
	}
	slices.Sort(all)
	want := []string{"memory/chats/-100500/rules.md", "memory/house.md", "memory/users/42.md", "memory/users/notanid.md",
		"notes/chats/-100500/door.md", "notes/chats/42/door.md", "notes/legacy.md"}
	if !slices.Equal(all, want) {
		t.Errorf("the operator's search finds %q, want %q", all, want)
	}
}

// TestNotesRefuseLinks: a symbolic link in a notes folder, to a file or a folder, inside
// the folder or out of it, is neither read by memory_get, nor indexed, nor in the memory
// layer, nor written through by the note tool.
func TestNotesRefuseLinks(t *testing.T) {
	r := newScopeRig(t, 0)
	outside := t.TempDir()
	write(t, filepath.Join(outside, "secret.md"), "The root password is hunter2.\n")
	write(t, filepath.Join(outside, "chat", "x.md"), "The root password is hunter2.\n")
	write(t, filepath.Join(r.curated, "inside.md"), "The root password is fine here.\n")
	link := func(target, name string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, name); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	link(filepath.Join(outside, "secret.md"), filepath.Join(r.curated, "leak.md"))
	link(filepath.Join(r.curated, "inside.md"), filepath.Join(r.curated, "alias.md"))
	link(filepath.Join(outside, "chat"), filepath.Join(r.curated, "chats", "42"))
	link(filepath.Join(outside, "chat"), filepath.Join(r.episodic, "chats", "42"))

	for _, path := range []string{"memory/leak.md", "memory/alias.md", "memory/chats/42/x.md", "notes/chats/42/x.md"} {
		if out, err := r.run(t, "memory_get", factsDM, alice, `{"path":`+quote(path)+`,"from":1}`); err == nil {
			t.Errorf("memory_get %s = %q, want a refusal", path, out)
		}
	}
	if got := r.notesFound(t, factsDM, alice, "root password"); !slices.Equal(got, []string{"memory/inside.md"}) {
		t.Errorf("memory_search finds %q, want only the real note", got)
	}
	items, err := memory.NewCurated(r.curated).Items(t.Context(), prompt.Query{Agent: "Mynah", Chat: factsDM})
	if err != nil {
		t.Fatal(err)
	}
	if got := itemIDs(items); !slices.Equal(got, []string{"curated:inside.md"}) {
		t.Errorf("curated layer = %q, want only the real note", got)
	}
	if out, err := r.run(t, "note", factsDM, alice, `{"topic":"x","text":"written through a link"}`); err == nil {
		t.Errorf("note through a linked chat folder = %q, want a refusal", out)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "chat", "x.md")); strings.Contains(string(b), "written through") {
		t.Error("the note tool wrote outside the notes folder")
	}
	// A linked note file in a real chat folder is not appended to either.
	link(filepath.Join(outside, "secret.md"), filepath.Join(r.episodic, "chats", "43", "diary.md"))
	if out, err := r.run(t, "note", bobDM, bob, `{"topic":"diary","text":"written through a link"}`); err == nil {
		t.Errorf("note to a linked file = %q, want a refusal", out)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.md")); strings.Contains(string(b), "written through") {
		t.Error("the note tool wrote through a linked note")
	}
}

// TestNotesPerChatQuota: the note tool stops a chat's notes at their quota with an error
// the model reads; what was written stays, and other chats still have room.
func TestNotesPerChatQuota(t *testing.T) {
	r := newScopeRig(t, 2048)
	entry := `{"topic":"log","text":` + quote(strings.Repeat("word ", 100)) + `}`
	var err error
	n := 0
	for ; n < 10; n++ {
		if _, err = r.run(t, "note", factsDM, alice, entry); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "notes are full") {
		t.Fatalf("after %d notes: %v, want the quota's refusal", n, err)
	}
	if n < 3 {
		t.Errorf("only %d entries of about 530 bytes fit in 2 KB", n)
	}
	info, statErr := os.Stat(filepath.Join(r.episodic, "chats", "42", "log.md"))
	if statErr != nil || info.Size() > 2048 || info.Size() < 1500 {
		t.Errorf("alice's note is %v bytes (%v), want up to the quota", info.Size(), statErr)
	}
	if _, err := r.run(t, "note", bobDM, bob, entry); err != nil {
		t.Errorf("bob's chat after alice's filled up: %v", err)
	}
}
