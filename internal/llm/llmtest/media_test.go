package llmtest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
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

// upload posts a multipart transcription request of the given fields and file.
func upload(t *testing.T, srv *llmtest.Server, fields map[string]string, filename string, audio []byte) (*http.Response, []byte) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if filename != "" {
		f, err := w.CreateFormFile("file", filename)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f.Write(audio)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL()+"/audio/transcriptions", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer sk-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestTranscriptions(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	audio := []byte("OggS\x00\x02voice")
	resp, b := upload(t, srv, map[string]string{"model": "whisper-1", "language": "de"}, "voice.ogg", audio)
	var got struct{ Text string }
	if resp.StatusCode != 200 || json.Unmarshal(b, &got) != nil || got.Text != llmtest.Transcript(audio) {
		t.Errorf("status %d, body %s; want the default transcript %q", resp.StatusCode, b, llmtest.Transcript(audio))
	}
	if llmtest.Transcript(audio) == llmtest.Transcript(append(audio, 0)) {
		t.Error("two clips have one default transcript")
	}
	want := []llmtest.TranscribeRequest{{Model: "whisper-1", Language: "de", Filename: "voice.ogg",
		MIME: "application/octet-stream", Audio: audio, HasAPIKey: true}}
	if diff := cmp.Diff(srv.TranscribeRequests(), want); diff != "" {
		t.Errorf("recorded (-got +want):\n%s", diff)
	}
	if len(srv.Requests()) != 0 {
		t.Error("a transcription was recorded as a chat call")
	}
	// A name the API cannot tell the format of is refused, but is no malformed request.
	if resp, b := upload(t, srv, map[string]string{"model": "whisper-1"}, "voice.amr", audio); resp.StatusCode != 400 || !bytes.Contains(b, []byte("Invalid file format")) {
		t.Errorf("voice.amr: status %d, body %s; want 400 Invalid file format", resp.StatusCode, b)
	}
}

func TestMalformedTranscriptions(t *testing.T) {
	for _, tt := range []struct {
		name     string
		fields   map[string]string
		filename string
		audio    []byte
	}{
		{"no file", map[string]string{"model": "whisper-1"}, "", nil},
		{"empty file", map[string]string{"model": "whisper-1"}, "voice.ogg", nil},
		{"no model", nil, "voice.ogg", []byte("OggS")},
		{"unknown field", map[string]string{"model": "whisper-1", "voice": "alloy"}, "voice.ogg", []byte("OggS")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tb := &fakeTB{t: t}
			srv := llmtest.NewOpenAI(tb)
			resp, b := upload(t, srv, tt.fields, tt.filename, tt.audio)
			var env struct{ Error struct{ Message string } }
			if resp.StatusCode != 400 || json.Unmarshal(b, &env) != nil || env.Error.Message == "" {
				t.Errorf("status %d, body %s; want 400 in OpenAI's error envelope", resp.StatusCode, b)
			}
			if errs := tb.errors(); len(errs) != 1 {
				t.Errorf("got %d Errorf calls, want 1: %q", len(errs), errs)
			}
		})
	}
}
