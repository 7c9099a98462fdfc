package media

import (
	"fmt"
	"testing"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/testmedia"
)

// TestPromptTokensWithPhotos measures what photos cost a prompt (issue 14): a group's 50
// messages, 20 of them described photos, answering a photo that replies to another photo.
// Only those two reach the model as images; the other eighteen are their descriptions.
// Showing all twenty as images would cost about ten times as much.
//
//	go test -run PromptTokensWithPhotos -v ./internal/media
func TestPromptTokensWithPhotos(t *testing.T) {
	v := newEnv(t)
	v.agent(func(a *Agent) { a.Vision = true })
	var history []mynah.Message
	for i := 1; i <= 50; i++ {
		if i%5 == 0 || i%5 == 3 { // 20 photos
			uid := fmt.Sprintf("photo%d", i)
			if err := v.store.PutMediaNote(t.Context(), mynah.MediaNote{UniqueID: uid, Kind: mynah.MediaPhoto,
				Status: mynah.MediaDescribed, Description: fmt.Sprintf("a photo of bird number %d perched on a branch", i)}); err != nil {
				t.Fatal(err)
			}
			m := v.post(chat, i, v.files.add(mynah.MediaPhoto, uid, testmedia.NthPNG(i)))
			m.Text = "look at this one"
			history = append(history, m)
			continue
		}
		m := v.post(chat, i)
		m.Text = fmt.Sprintf("message %d about the birds we saw at the lake this morning", i)
		history = append(history, m)
	}
	target := &history[49]
	target.ReplyTo = &mynah.ReplyRef{ID: 48}
	parts := v.e.Prepare(t.Context(), agentName, history, []mynah.MessageID{50, 48})
	if len(parts) != 2 || len(parts[50]) != 1 || len(parts[48]) != 1 {
		t.Fatalf("images for %d messages, want the target and the photo it replies to", len(parts))
	}
	in := prompt.Input{Chat: chat, History: history, Quoted: []mynah.Message{history[47]}, Target: 50, Attachments: parts}
	_, focus := prompt.Build(in)
	in.Attachments = map[mynah.MessageID][]llm.Part{}
	for _, m := range history {
		if len(m.Media) > 0 {
			in.Attachments[m.ID] = parts[50]
		}
	}
	_, everything := prompt.Build(in)
	in.Attachments = nil
	_, none := prompt.Build(in)
	t.Logf("50 messages, 20 photos: %d tokens as descriptions only, %d with the target's and its reply's images, %d with all 20 images",
		none.Tokens, focus.Tokens, everything.Tokens)
	if focus.Tokens >= everything.Tokens/3 {
		t.Errorf("images for the focus only should cost far less than images for all: %d vs %d", focus.Tokens, everything.Tokens)
	}
}
