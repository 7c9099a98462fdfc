package llmtest

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
)

// Media returns size bytes standing for a file of type mime: every byte value occurs,
// so a test sees any damage in transit, and the type's name leads, so two media differ.
func Media(mime string, size int) []byte {
	b := []byte(mime)
	for i := 0; len(b) < size; i++ {
		b = append(b, byte(i))
	}
	return b[:size]
}

// wireMedia returns media part p as c's fake records it: its blob with the bare media
// type when the adapter sends that type, else the placeholder text.
func (c ModelCase) wireMedia(p llm.Part) llm.Part {
	b, kinds := p.Image, c.Images
	if b == nil {
		b, kinds = p.Audio, c.Audio
	}
	if !slices.Contains(kinds, b.MediaType()) {
		return llm.Part{Text: llm.MediaPlaceholder(p)}
	}
	w := &llm.Blob{MIME: b.MediaType(), Data: b.Data}
	if p.Image != nil {
		return llm.Part{Image: w}
	}
	return llm.Part{Audio: w}
}

// testMedia sends user turns mixing text, images and audio of types the provider takes
// and does not: each medium must reach the wire in the provider's form (the fake
// decodes it back) or as its placeholder, in the order given, and the text with them.
// Media in an assistant turn is an error before any call.
func (c ModelCase) testMedia(t *testing.T, stream bool) {
	srv, m := c.start(t, "")
	blob := func(mime string) *llm.Blob { return &llm.Blob{MIME: mime, Data: Media(mime, 300)} }
	req := llm.Request{Model: "test-model", Turns: []llm.Turn{
		{Role: llm.User, Parts: []llm.Part{
			{Text: "what is in these?"},
			{Image: blob("image/png")},
			{Text: "and in this one"},
			{Image: blob("image/JPEG")},
			{Image: blob("image/gif")},
			{Image: blob("image/bmp")},
			{Audio: blob("audio/wav")},
			{Audio: blob("audio/mpeg")},
			{Audio: blob("audio/ogg; codecs=opus")},
			{Text: "thanks"},
		}},
		llm.Text(llm.Assistant, "A cat."),
		{Role: llm.User, Parts: []llm.Part{{Image: blob("image/webp")}}},
	}}
	if _, _, err := call(t.Context(), m, stream, req); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(reqs))
	}
	if diff := cmp.Diff(reqs[0].Turns, c.wire(req.Turns)); diff != "" {
		t.Errorf("turns (-got +want):\n%s", diff)
	}

	bad := llm.Request{Model: "test-model", Turns: []llm.Turn{llm.Text(llm.User, "hi"),
		{Role: llm.Assistant, Parts: []llm.Part{{Image: blob("image/png")}}}}}
	if _, _, err := call(t.Context(), m, stream, bad); err == nil {
		t.Error("an image in an assistant turn was sent")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("got %d requests, want none for the assistant's image", n-1)
	}
}
