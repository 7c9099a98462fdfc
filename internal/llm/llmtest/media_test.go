package llmtest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
)

// TestRecordedMedia: each fake decodes the media of user turns back to their types and
// bytes, in order among the text.
func TestRecordedMedia(t *testing.T) {
	png, wav := []byte("\x89PNG\r\n\x1a\n\x00\xff"), []byte("RIFF\x00\x01WAVE")
	want := []llm.Turn{{Role: llm.User, Parts: []llm.Part{
		{Text: "look"}, {Image: &llm.Blob{MIME: "image/png", Data: png}}, {Text: "and listen"}, {Audio: &llm.Blob{MIME: "audio/wav", Data: wav}},
	}}}
	anthropicWant := []llm.Turn{{Role: llm.User, Parts: want[0].Parts[:3]}} // no audio in the Messages API
	for _, tt := range []struct {
		name   string
		start  func(llmtest.TB) *llmtest.Server
		path   string
		header map[string]string
		body   string
		want   []llm.Turn
	}{
		{"openai", llmtest.NewOpenAI, "/chat/completions", openaiAuth,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"look"},` +
				`{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgoA/w==","detail":"auto"}},` +
				`{"type":"text","text":"and listen"},{"type":"input_audio","input_audio":{"data":"UklGRgABV0FWRQ==","format":"wav"}}]}]}`, want},
		{"anthropic", llmtest.NewAnthropic, "/v1/messages", anthropicAuth,
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"look"},` +
				`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgoA/w=="}},` +
				`{"type":"text","text":"and listen"}]}]}`, anthropicWant},
		{"gemini camelCase", llmtest.NewGemini, "/v1beta/models/g:generateContent", geminiAuth,
			`{"contents":[{"role":"user","parts":[{"text":"look"},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgoA/w=="}},` +
				`{"text":"and listen"},{"inlineData":{"mimeType":"audio/wav","data":"UklGRgABV0FWRQ=="}}]}]}`, want},
		{"gemini snake_case", llmtest.NewGemini, "/v1beta/models/g:generateContent", geminiAuth,
			`{"contents":[{"role":"user","parts":[{"text":"look"},{"inline_data":{"mime_type":"image/png","data":"iVBORw0KGgoA/w=="}},` +
				`{"text":"and listen"},{"inline_data":{"mime_type":"audio/wav","data":"UklGRgABV0FWRQ=="}}]}]}`, want},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := tt.start(t)
			if resp, b := post(t, srv.URL()+tt.path, tt.header, tt.body); resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			r := srv.Requests()[0]
			if diff := cmp.Diff(r.Turns, tt.want); diff != "" {
				t.Errorf("turns (-got +want):\n%s", diff)
			}
			if diff := cmp.Diff(r.Images(), []llm.Blob{{MIME: "image/png", Data: png}}); diff != "" {
				t.Errorf("Images (-got +want):\n%s", diff)
			}
			if r.LastUserText() != "and listen" {
				t.Errorf("LastUserText = %q, want the last text, not a medium", r.LastUserText())
			}
		})
	}
}
