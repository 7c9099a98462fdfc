package telegramtest

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

func download(t *testing.T, srv *Server, filePath string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+"/file/bot"+srv.Token()+"/"+filePath, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

func TestFileDownload(t *testing.T) {
	srv := Start(t, Options{})
	content := []byte("\x89PNG fake image")
	id, unique := srv.AddFile(content, KindPhoto)
	var f File
	call(t, srv, srv.Token(), "getFile", map[string]any{"file_id": id}).decode(t, &f)
	if f.FileID != id || f.FileUniqueID != unique || f.FileSize != len(content) || f.FilePath == "" {
		t.Errorf("file = %+v", f)
	}
	status, body := download(t, srv, f.FilePath)
	if status != 200 || !bytes.Equal(body, content) {
		t.Errorf("download = %d %q", status, body)
	}
	if status, _ := download(t, srv, "photos/missing.jpg"); status != 404 {
		t.Errorf("missing file status = %d, want 404", status)
	}
	wantError(t, call(t, srv, srv.Token(), "getFile", map[string]any{"file_id": "nope"}), 400, "Bad Request: invalid file_id")
}

func TestSendPhotoUpload(t *testing.T) {
	srv := Start(t, Options{})
	srv.AddChat(PrivateChat(alice))
	upload := func(fields map[string]string, fileField string, content []byte) apiResponse {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		for k, v := range fields {
			w.WriteField(k, v)
		}
		if fileField != "" {
			fw, _ := w.CreateFormFile(fileField, "cat.jpg")
			fw.Write(content)
		}
		w.Close()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL()+"/bot"+srv.Token()+"/sendPhoto", &buf)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", w.FormDataContentType())
		return do(t, req)
	}
	var m Message
	upload(map[string]string{"chat_id": "501", "caption": "a <i>cat</i>", "parse_mode": "HTML"}, "photo", []byte("meow")).decode(t, &m)
	if len(m.Photo) == 0 || m.Caption != "a cat" || len(m.CaptionEntities) != 1 {
		t.Fatalf("message = %+v", m)
	}
	var f File
	call(t, srv, srv.Token(), "getFile", map[string]any{"file_id": m.Photo[0].FileID}).decode(t, &f)
	if _, body := download(t, srv, f.FilePath); string(body) != "meow" {
		t.Errorf("downloaded %q, want the upload", body)
	}
	var again Message
	call(t, srv, srv.Token(), "sendPhoto", map[string]any{"chat_id": alice.ID, "photo": m.Photo[0].FileID}).decode(t, &again)
	if again.Photo[0].FileID != m.Photo[0].FileID {
		t.Errorf("resent photo id %q, want %q", again.Photo[0].FileID, m.Photo[0].FileID)
	}
	upload(map[string]string{"chat_id": "501", "photo": "attach://pic"}, "pic", []byte("attached")).decode(t, &m)

	var log violationLog
	strict := Start(t, Options{OnViolation: log.add})
	strict.AddChat(PrivateChat(alice))
	wantError(t, call(t, strict, strict.Token(), "sendPhoto", map[string]any{"chat_id": alice.ID}), 400, "Bad Request: there is no photo in the request")
	wantError(t, call(t, strict, strict.Token(), "sendPhoto", map[string]any{"chat_id": alice.ID, "photo": "bogus"}), 400, "Bad Request: wrong file identifier/HTTP URL specified")
	wantError(t, call(t, strict, strict.Token(), "sendPhoto", map[string]any{"chat_id": alice.ID, "photo": "https://example.com/a.jpg", "caption": strings.Repeat("ё", 1025)}), 400, "Bad Request: message caption is too long")
	if got := log.list(); len(got) != 1 || got[0] != "sendPhoto: required parameter photo missing" {
		t.Errorf("violations = %q", got)
	}
	if got := srv.Sent(alice.ID); len(got) != 3 || got[0].Method != "sendPhoto" || got[0].Text != "a cat" {
		t.Errorf("sent = %+v", got)
	}
}
