package media

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/testmedia"
)

// pdfLoop is a PDF whose page tree claims a million pages and loops back on itself.
func pdfLoop() []byte {
	return pdfWith("<< /Length 0 >>\nstream\n\nendstream", "<< /Type /Pages /Kids [2 0 R 2 0 R] /Count 1000000 >>")
}

// pdfWith is a PDF of a catalog, the pages object, a font, one page and its content.
func pdfWith(content, pages string) []byte {
	return testmedia.PDFObjects(
		"<< /Type /Catalog /Pages 2 0 R >>",
		pages,
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		content,
	)
}

// TestBadInput: every kind of bad file gets a placeholder that says what went wrong, a
// cached failure that is never retried, a log line, and the conversation goes on.
func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		name    string
		media   func(*env) mynah.Media
		problem string // in the placeholder, the note and the log
		noFetch bool   // decided without a download
		ffmpeg  bool   // needs ffmpeg to be read at all
	}{
		{"corrupt image", func(v *env) mynah.Media {
			return v.files.add(mynah.MediaPhoto, "bad", []byte("\xff\xd8\xff\xe0 not really a JPEG"))
		}, "could not be read", false, false},
		{"empty file", func(v *env) mynah.Media {
			return v.files.add(mynah.MediaPhoto, "bad", nil)
		}, "the file is empty", false, false},
		{"PDF bomb", func(v *env) mynah.Media {
			md := v.files.add(mynah.MediaDocument, "bad", testmedia.PDFBomb(64<<20))
			md.FileName, md.MimeType = "report.pdf", "application/pdf"
			return md
		}, "PDF bomb", false, false},
		{"PDF page tree that loops", func(v *env) mynah.Media {
			md := v.files.add(mynah.MediaDocument, "bad", pdfLoop())
			md.FileName, md.MimeType = "pages.pdf", "application/pdf"
			return md
		}, "no text layer", false, false},
		{"not a PDF", func(v *env) mynah.Media {
			md := v.files.add(mynah.MediaDocument, "bad", []byte("%PDF-1.4\ngarbage"))
			md.FileName = "fake.pdf"
			return md
		}, "could not be read", false, false},
		{"video over 20 MB by its size", func(v *env) mynah.Media {
			md := v.files.add(mynah.MediaVideo, "bad", testmedia.MP4())
			md.Size, md.Duration = 25<<20, 300
			return md
		}, "over 20 MB", true, false},
		{"19.9 MB video Telegram will not serve", func(v *env) mynah.Media {
			md := v.files.add(mynah.MediaVideo, "bad", testmedia.MP4())
			md.Size = 19_900_000
			v.files.errs[md.FileID] = fmt.Errorf("telegram getFile: Bad Request: file is too big: %w", mynah.ErrFileTooBig)
			return md
		}, "over 20 MB", false, true},
		{"TGS that is not gzip", func(v *env) mynah.Media {
			md := v.files.add(mynah.MediaSticker, "bad", []byte(`{"tgs":1,"v":"5.5.2"}`))
			md.MimeType, md.SetName, md.Emoji = "application/x-tgsticker", "Frogs", "🐸"
			return md
		}, "not gzipped Lottie", false, false},
		{"voice in an unsupported codec", func(v *env) mynah.Media {
			md := v.files.add(mynah.MediaVoice, "bad", []byte("RIFF\x00\x00\x00\x00AMR!"))
			md.Duration = 3
			return md
		}, "unsupported codec", false, false},
		{"binary file named .txt", func(v *env) mynah.Media {
			md := v.files.add(mynah.MediaDocument, "bad", []byte("\x00\x01\x02\xff\xfe"))
			md.FileName = "notes.txt"
			return md
		}, "not UTF-8 text", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := newEnv(t)
			if c.ffmpeg {
				v = newEnvFFmpeg(t)
			}
			tr := &transcriber{err: &llm.Error{Provider: "openai", Status: 400, Message: "Invalid file format."}}
			v.agent(func(a *Agent) { a.Transcriber = tr })
			md := c.media(v)
			m := v.post(chat, 1, md)

			history := []mynah.Message{m}
			v.e.Prepare(t.Context(), agentName, history, []mynah.MessageID{1})
			n := v.note(md.FileUniqueID)
			if n.Status != mynah.MediaUnsupported || !strings.Contains(n.Problem, c.problem) {
				t.Errorf("note = %+v, want unsupported with %q", n, c.problem)
			}
			head, _, _ := strings.Cut(n.Problem, ":")
			if got := history[0].Media[0].Description; got == "" || got != head {
				t.Errorf("the prompt shows %q, want the problem %q", got, head)
			}
			if v.logs.count("unique_id=bad") == 0 || !strings.Contains(v.logs.String(), c.problem) {
				t.Errorf("no log line says %q:\n%s", c.problem, v.logs)
			}
			if got := v.files.count(); c.noFetch && got != 0 {
				t.Errorf("%d downloads, want none", got)
			}
			if v.model.calls() != 0 {
				t.Errorf("%d describer calls for a file that cannot be read", v.model.calls())
			}

			// Seen again, in another message and by the queue: nothing is retried.
			fetched := v.files.count()
			v.post(chat, 2, md)
			v.drain()
			v.clock.Add(2 * time.Hour)
			v.drain()
			if v.files.count() != fetched || v.model.calls() != 0 || len(tr.got) > 1 {
				t.Errorf("a cached failure was retried: %d downloads (was %d), %d calls, %d transcriptions",
					v.files.count(), fetched, v.model.calls(), len(tr.got))
			}
			if v.queued() != 0 {
				t.Errorf("%d messages still queued", v.queued())
			}
			if got := v.message(chat, 2); len(got.Media) != 1 || got.Media[0].FileUniqueID != "bad" {
				t.Errorf("the message lost its media: %+v", got.Media)
			}
		})
	}
}

// TestRetryThenCachedFailure: a describer that keeps failing is retried with backoff,
// maxAttempts times, then its failure is cached and never retried; the message keeps its
// placeholder and leaves the queue.
func TestRetryThenCachedFailure(t *testing.T) {
	v := newEnv(t)
	v.model.fail = func(int) error { return &llm.Error{Provider: "openai", Status: 503, Message: "overloaded"} }
	v.agent()
	v.post(chat, 1, v.files.add(mynah.MediaPhoto, "heron", testmedia.NthPNG(1)))

	for attempt := 1; attempt <= maxAttempts; attempt++ {
		v.drain()
		if got := v.model.calls(); got != attempt {
			t.Fatalf("after attempt %d: %d calls", attempt, got)
		}
		n := v.note("heron")
		if n.Status != mynah.MediaFailed || n.Attempts != attempt {
			t.Fatalf("after attempt %d: note %+v", attempt, n)
		}
		v.drain() // within the backoff: nothing is tried
		if got := v.model.calls(); got != attempt {
			t.Errorf("retried within the backoff: %d calls after attempt %d", got, attempt)
		}
		v.clock.Add(backoff(attempt) + time.Second)
	}
	if v.queued() != 0 {
		t.Errorf("the message is still queued after %d attempts", maxAttempts)
	}
	v.clock.Add(24 * time.Hour)
	v.post(chat, 2, v.files.add(mynah.MediaPhoto, "heron", testmedia.NthPNG(1)))
	v.drain()
	history := []mynah.Message{v.message(chat, 2)}
	v.e.Prepare(t.Context(), agentName, history, nil)
	if v.model.calls() != maxAttempts {
		t.Errorf("a cached failure was retried: %d calls", v.model.calls())
	}
	if got := history[0].Media[0].Description; got != "could not be described (4 attempts)" {
		t.Errorf("the prompt shows %q, want the problem without the provider's error", got)
	}
	if n := v.note("heron"); !strings.Contains(n.Problem, "overloaded") {
		t.Errorf("the cached note %+v does not keep the error for the operator", n)
	}
	if !strings.Contains(v.logs.String(), "giving up") {
		t.Errorf("no log line says the describer gave up:\n%s", v.logs)
	}
}
