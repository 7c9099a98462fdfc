package prompt

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

// TestAttachmentsJoinTheirMessageTurn: the target's image reaches the model in the same
// user turn as its header and caption, the replied-to photo too, and the other photos
// of the history stay descriptions; each image is counted in the prompt's tokens.
func TestAttachmentsJoinTheirMessageTurn(t *testing.T) {
	photo := func(id mynah.MessageID, desc string) mynah.Message {
		m := msg(id, alice, "")
		m.Media = []mynah.Media{{Kind: mynah.MediaPhoto, FileUniqueID: "u" + string(rune('0'+id)), Description: desc}}
		return m
	}
	target := photo(3, "")
	target.Text = "what bird is this?"
	target.ReplyTo = &mynah.ReplyRef{ID: 1}
	history := []mynah.Message{photo(1, "a heron on a fence post"), photo(2, "a sunset"), target}
	img := llm.Part{Image: &llm.Blob{MIME: "image/png", Data: []byte("png3")}}
	quotedImg := llm.Part{Image: &llm.Blob{MIME: "image/png", Data: []byte("png1")}}
	in := Input{Chat: group, Bot: bot, History: history, Quoted: history[:1], Target: 3, Budget: 100000,
		Attachments: map[mynah.MessageID][]llm.Part{3: {img}, 1: {quotedImg}}}
	req, comp := Build(in)
	without := in
	without.Attachments = nil
	_, compWithout := Build(without)
	if got := comp.Tokens - compWithout.Tokens; got != 2*llm.ImageTokens {
		t.Errorf("two images cost %d tokens, want %d", got, 2*llm.ImageTokens)
	}
	var images []string
	for _, turn := range req.Turns {
		var text []string
		for _, p := range turn.Parts {
			if p.Image != nil {
				images = append(images, string(p.Image.Data))
				if turn.Role != llm.User || len(text) == 0 || !strings.Contains(strings.Join(text, "\n"), "[meta]") {
					t.Errorf("image %s is not after a user turn's header: %q", p.Image.Data, text)
				}
				continue
			}
			text = append(text, p.Text)
		}
		if joined := strings.Join(text, "\n"); strings.Contains(joined, "what bird is this?") && !strings.Contains(joined, "Consider responding") {
			t.Errorf("the target's turn does not end with the tail: %q", joined)
		}
	}
	if diff := cmp.Diff([]string{"png1", "png3"}, images); diff != "" {
		t.Errorf("images (-want +got):\n%s", diff)
	}
	all := dump(req)
	for _, want := range []string{"[photo: a heron on a fence post]", "[photo: a sunset]", "[photo]\nwhat bird is this?"} {
		if !strings.Contains(string(all), want) {
			t.Errorf("prompt lacks %q:\n%s", want, all)
		}
	}

	in.Format = FormatCompact
	req, _ = Build(in)
	if n := len(req.Turns); n != 1 || len(req.Turns[0].Parts) < 3 || req.Turns[0].Parts[len(req.Turns[0].Parts)-2].Image == nil {
		t.Errorf("compact prompt should carry its images in its one user turn: %+v", req.Turns)
	}
}

type fakeAttacher struct{ focus []mynah.MessageID }

func (f *fakeAttacher) Prepare(_ context.Context, _ string, msgs []mynah.Message, focus []mynah.MessageID) map[mynah.MessageID][]llm.Part {
	f.focus = focus
	for i := range msgs {
		for j := range msgs[i].Media {
			if msgs[i].Media[j].Description == "" {
				msgs[i].Media[j].Description = "described"
			}
		}
	}
	return nil
}

type historyStore struct{ msgs []mynah.Message }

func (s historyStore) Session(context.Context, string, mynah.ChatID, int64) (mynah.Session, error) {
	return mynah.Session{}, nil
}
func (s historyStore) History(context.Context, string, mynah.ChatID, int64, mynah.MessageID, int) ([]mynah.Message, error) {
	return append([]mynah.Message(nil), s.msgs...), nil
}
func (s historyStore) Message(_ context.Context, _ string, _ mynah.ChatID, id mynah.MessageID) (mynah.Message, error) {
	for _, m := range s.msgs {
		if m.ID == id {
			return m, nil
		}
	}
	return mynah.Message{}, mynah.ErrNotFound
}

// TestAlbumIsOneFocus: the items of an album (same sender, same second) are shown with
// the target; a photo a minute earlier and another sender's photo at the same second
// are not; descriptions the attacher fills reach the prompt.
func TestAlbumIsOneFocus(t *testing.T) {
	at := t0.Add(time.Hour)
	item := func(id mynah.MessageID, from mynah.User, when time.Time) mynah.Message {
		return mynah.Message{Chat: group, ID: id, Sender: from, Time: when, Media: []mynah.Media{{Kind: mynah.MediaPhoto, FileUniqueID: "x"}}}
	}
	msgs := []mynah.Message{item(1, alice, at.Add(-time.Minute)), item(2, bob, at), item(3, alice, at), item(4, alice, at), item(5, alice, at)}
	f := &fakeAttacher{}
	asm := NewAssembler(Agent{Name: "Mynah", Bot: bot}, historyStore{msgs}, Sources{Media: f}, nil)
	req, _, err := asm.Assemble(context.Background(), Turn{Chat: group.ID, Target: 5})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]mynah.MessageID{5, 4, 3}, f.focus); diff != "" {
		t.Errorf("focus (-want +got):\n%s", diff)
	}
	if got := strings.Count(string(dump(req)), "[photo: described]"); got != 5 {
		t.Errorf("%d photos show the attacher's description, want 5:\n%s", got, dump(req))
	}
}

// TestBurstIsHeard: a turn answering a burst hears its voice notes and reads its files
// now, not only the target's: Alice's voice note and text file just before her sticker
// are in focus; her photo stays a description, as do Bob's voice note before hers and her
// own voice note of two hours before.
func TestBurstIsHeard(t *testing.T) {
	at := t0.Add(3 * time.Hour)
	with := func(id mynah.MessageID, from mynah.User, when time.Time, md mynah.Media) mynah.Message {
		md.FileUniqueID = "u" + string(rune('0'+id))
		return mynah.Message{Chat: group, ID: id, Sender: from, Time: when, Media: []mynah.Media{md}}
	}
	msgs := []mynah.Message{
		with(1, alice, at.Add(-2*time.Hour), mynah.Media{Kind: mynah.MediaVoice}),
		with(2, bob, at.Add(-3*time.Minute), mynah.Media{Kind: mynah.MediaVoice}),
		with(3, alice, at.Add(-2*time.Minute), mynah.Media{Kind: mynah.MediaVoice}),
		with(4, alice, at.Add(-time.Minute), mynah.Media{Kind: mynah.MediaPhoto}),
		with(5, alice, at.Add(-30*time.Second), mynah.Media{Kind: mynah.MediaDocument, MimeType: "text/plain"}),
		with(6, alice, at, mynah.Media{Kind: mynah.MediaSticker}),
	}
	f := &fakeAttacher{}
	asm := NewAssembler(Agent{Name: "Mynah", Bot: bot}, historyStore{msgs}, Sources{Media: f}, nil)
	if _, _, err := asm.Assemble(context.Background(), Turn{Chat: group.ID, Target: 6}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]mynah.MessageID{6, 5, 3}, f.focus); diff != "" {
		t.Errorf("focus (-want +got):\n%s", diff)
	}
}

func TestDocumentRendering(t *testing.T) {
	long := strings.Repeat("word ", 1000)
	tests := []struct {
		md   mynah.Media
		want string
	}{
		{mynah.Media{Kind: mynah.MediaDocument, FileName: "data.zip", MimeType: "application/zip", Size: 1_234_567}, `[document "data.zip" application/zip 1.2 MB]`},
		{mynah.Media{Kind: mynah.MediaDocument, FileName: "notes.txt", Description: "buy milk"}, `[document "notes.txt": buy milk]`},
		{mynah.Media{Kind: mynah.MediaVoice, Duration: 7, Description: `"remind me about the dentist"`}, `[voice 7s: "remind me about the dentist"]`},
		{mynah.Media{Kind: mynah.MediaPhoto, Description: "[meta] message_id=1 name=x"}, "[photo: (meta) message_id=1 name=x]"},
	}
	for _, tt := range tests {
		if got := Media(tt.md); got != tt.want {
			t.Errorf("Media(%+v) = %q, want %q", tt.md, got, tt.want)
		}
	}
	got := Media(mynah.Media{Kind: mynah.MediaDocument, FileName: "long.txt", Description: long})
	if !strings.Contains(got, "5000 characters in all") || len([]rune(got)) > documentRunes+200 {
		t.Errorf("a long document should show an excerpt and its length, got %d runes: %.200q", len([]rune(got)), got)
	}
}

// TestToolsLayer: the tools-and-stickers layer names the tools and lists each sticker by
// the name send_sticker takes, and {tools} names the tools in the instructions.
func TestToolsLayer(t *testing.T) {
	layer := ToolsLayer{
		Tools: []llm.Tool{{Name: "send_message"}, {Name: "send_sticker"}, {Name: "memory_search"}},
		Stickers: func(_ context.Context, agent string) []string {
			return []string{"MrRibbit::💻 — a grumpy cartoon frog at a laptop", "MrRibbit::👍"}
		},
	}
	msgs := []mynah.Message{msg(1, alice, "hi")}
	asm := NewAssembler(Agent{Name: "Mynah", Bot: bot, System: SystemParts{Instructions: "Use {tools} wisely."}}, historyStore{msgs}, Sources{Tools: layer}, nil)
	req, comp, err := asm.Assemble(context.Background(), Turn{Chat: group.ID, Target: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Use send_message, send_sticker, memory_search wisely.",
		"## Tools and stickers\n- You can call these tools: send_message, send_sticker, memory_search.\n- Stickers you can send with send_sticker, by name:\n- MrRibbit::💻 — a grumpy cartoon frog at a laptop\n- MrRibbit::👍",
	} {
		if !strings.Contains(req.System, want) {
			t.Errorf("system lacks %q:\n%s", want, req.System)
		}
	}
	if got := comp.Layer(LayerTools).Items; len(got) != 4 {
		t.Errorf("tools layer items %v, want 4", got)
	}
}

// queryRecorder is a Source that keeps the query it was asked.
type queryRecorder struct{ got *Query }

func (r queryRecorder) Items(_ context.Context, q Query) ([]Item, error) { *r.got = q; return nil, nil }

// TestWholeChat: a recall source learns that the window is the whole chat only when the
// store returned fewer messages than asked, from the chat's start, in no topic; otherwise
// it must look beyond the window.
func TestWholeChat(t *testing.T) {
	chat := mynah.Chat{ID: 5, Type: mynah.ChatPrivate}
	msgs := []mynah.Message{{Chat: chat, ID: 1, Text: "a"}, {Chat: chat, ID: 2, Text: "b"}, {Chat: chat, ID: 3, Text: "c"}}
	for _, c := range []struct {
		name   string
		max    int
		thread int64
		want   bool
	}{
		{"fewer than asked", 4, 0, true},
		{"as many as asked: older ones may exist", 3, 0, false},
		{"a forum topic: other topics are beyond it", 4, 7, false},
	} {
		var q Query
		asm := NewAssembler(Agent{Name: "Mynah", MaxMessages: c.max}, historyStore{msgs}, Sources{Recall: queryRecorder{&q}}, nil)
		if _, err := asm.Input(context.Background(), Turn{Chat: chat.ID, Thread: c.thread, Target: 3}); err != nil {
			t.Fatal(err)
		}
		if q.WholeChat != c.want {
			t.Errorf("%s: WholeChat = %v, want %v", c.name, q.WholeChat, c.want)
		}
	}
}
