package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah"
)

// fileAPI is a Bot API server whose getFile answers filePath and whose file downloads
// are served by files; it records the paths requested under /file/.
type fileAPI struct {
	filePath string
	size     int64
	files    http.HandlerFunc
	srv      *httptest.Server
	fetched  chan string
}

func newFileAPI(t *testing.T, filePath string, size int64, files http.HandlerFunc) *fileAPI {
	t.Helper()
	f := &fileAPI{filePath: filePath, size: size, files: files, fetched: make(chan string, 10)}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"+testToken+"/"); ok {
			f.fetched <- rest
			f.files(w, r)
			return
		}
		if r.URL.Path != "/bot"+testToken+"/getFile" {
			writeReply(w, errReply(http.StatusNotFound, "Not Found", 0))
			return
		}
		writeReply(w, reply{200, fmt.Sprintf(`{"ok":true,"result":{"file_id":"f1","file_unique_id":"u1","file_size":%d,"file_path":%q}}`,
			f.size, f.filePath)})
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fileAPI) bot(t *testing.T) *Bot {
	t.Helper()
	b, err := New(Config{Token: testToken, APIURL: f.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// noToken fails the test when err's text, in any format, holds the token or when err
// unwraps to a *url.Error, which holds the URL.
func noToken(t *testing.T, err error) {
	t.Helper()
	secret := strings.Split(testToken, ":")[1]
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		if strings.Contains(s, secret) {
			t.Errorf("error leaks the token: %s", s)
		}
	}
	if _, ok := errors.AsType[*url.Error](err); ok {
		t.Errorf("error unwraps to a *url.Error, which holds the URL: %v", err)
	}
}

func TestDownloadFailures(t *testing.T) {
	serve := func(status int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(status)
			fmt.Fprint(w, body)
		}
	}
	for _, c := range []struct {
		name      string
		filePath  string
		files     http.HandlerFunc
		wantParts []string
	}{
		{"expired file path", "photos/file_7.jpg", serve(404, `{"ok":false,"error_code":404,"description":"Not Found"}`),
			[]string{"photos/file_7.jpg", "Not Found (404)"}},
		{"a proxy's plain 502", "voice/file_8.oga", serve(502, "<html>Bad Gateway</html>"),
			[]string{"voice/file_8.oga", "502 Bad Gateway"}},
		{"an answer quoting the URL", "documents/file_9.pdf",
			serve(404, `{"ok":false,"error_code":404,"description":"no /file/bot`+testToken+`/documents/file_9.pdf"}`),
			[]string{"documents/file_9.pdf", "no /file/bot<token>/documents"}},
		{"redirect", "photos/file_7.jpg", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://elsewhere.example/file/bot"+testToken+"/x", http.StatusFound)
		}, []string{"302", "elsewhere.example", "not followed"}},
		{"connection dropped", "photos/file_7.jpg", func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}, []string{"photos/file_7.jpg", "<token>"}},
		// A local Bot API server names the file on its own disk, token and all.
		{"local server path not served", "/var/lib/telegram-bot-api/" + testToken + "/videos/file_3.mp4",
			serve(404, `{"ok":false,"error_code":404,"description":"Not Found"}`),
			[]string{"/var/lib/telegram-bot-api/<token>/videos/file_3.mp4", "local Bot API server", "/file/bot<token>/"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			api := newFileAPI(t, c.filePath, 1234, c.files)
			data, err := api.bot(t).Download(t.Context(), "f1", 0)
			if err == nil {
				t.Fatalf("Download = %q, want an error", data)
			}
			noToken(t, err)
			for _, p := range c.wantParts {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("error %q does not say %q", err, p)
				}
			}
			if errors.Is(err, mynah.ErrFileTooBig) {
				t.Errorf("error %v matches ErrFileTooBig", err)
			}
		})
	}
}

// TestDownloadLocalServer: a local server's absolute path is fetched under /file/ by
// its part after the token, which is what a web server in front of it serves.
func TestDownloadLocalServer(t *testing.T) {
	api := newFileAPI(t, "/var/lib/telegram-bot-api/"+testToken+"/videos/file_3.mp4", 5,
		func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "movie") })
	data, err := api.bot(t).Download(t.Context(), "f1", 0)
	if err != nil || string(data) != "movie" {
		t.Fatalf("Download = %q, %v", data, err)
	}
	if got := <-api.fetched; got != "videos/file_3.mp4" {
		t.Errorf("fetched /file/bot<token>/%s, want videos/file_3.mp4", got)
	}
}

// TestDownloadStreamOverLimit: a download without a Content-Length that runs past the
// limit stops there and is too big.
func TestDownloadStreamOverLimit(t *testing.T) {
	api := newFileAPI(t, "documents/file_1.txt", 0, func(w http.ResponseWriter, _ *http.Request) {
		for range 64 {
			fmt.Fprint(w, strings.Repeat("a", 1024))
			w.(http.Flusher).Flush() // chunked: no Content-Length
		}
	})
	_, err := api.bot(t).Download(t.Context(), "f1", 10_000)
	if !errors.Is(err, mynah.ErrFileTooBig) {
		t.Errorf("Download = %v, want mynah.ErrFileTooBig", err)
	}
	data, err := api.bot(t).Download(t.Context(), "f1", 64*1024)
	if err != nil || len(data) != 64*1024 {
		t.Errorf("Download at exactly the limit = %d bytes, %v", len(data), err)
	}
}

// TestDownloadCancel: cancelling the context ends a download that hangs, with the
// cause in the chain and no token in the text.
func TestDownloadCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	api := newFileAPI(t, "videos/file_2.mp4", 100, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		fmt.Fprint(w, "first bytes")
		w.(http.Flusher).Flush()
		cancel()
		<-r.Context().Done()
	})
	_, err := api.bot(t).Download(ctx, "f1", 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Download = %v, want context.Canceled in the chain", err)
	}
	noToken(t, err)

	_, err = api.bot(t).Download(ctx, "f1", 0) // cancelled before it starts
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Download with a cancelled context = %v, want context.Canceled", err)
	}
	noToken(t, err)
}
