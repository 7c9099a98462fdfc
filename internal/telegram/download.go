package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mymmrac/telego"

	"github.com/mynah-ai/mynah"
)

// MaxDownload is the largest file a bot may download from Telegram's own Bot API servers:
// 20 MB. A local Bot API server allows more; pass Download a larger limit for one.
const MaxDownload int64 = 20 << 20

// Download fetches the file fileID and returns its bytes: getFile, then a GET of
// {APIURL}/file/bot<token>/<file_path> with the Bot's HTTP client (its timeouts apply; a
// redirect is never followed), bounded by ctx. It reads at most limit bytes; limit ≤ 0 means
// MaxDownload. A file larger than limit, whether getFile says so (then nothing is
// downloaded), Telegram refuses it ("Bad Request: file is too big") or the download turns
// out longer, is an error wrapping mynah.ErrFileTooBig. The file URL holds the token: no
// error contains it.
//
// A local Bot API server (telegram-bot-api --local) answers getFile with the absolute
// path of the file on its own disk, …/<token>/<folder>/<file>, and does not serve files
// over HTTP itself. Download never reads a local path (mynah need not run beside the
// server): it asks for the part after <token>/ under /file/bot<token>/, which works when
// the server's directory is served there (nginx in front of it, say), and otherwise
// fails with an error that says what to set up.
func (b *Bot) Download(ctx context.Context, fileID string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = MaxDownload
	}
	f, err := b.api.GetFile(ctx, &telego.GetFileParams{FileID: fileID})
	if err != nil {
		return nil, b.fail("getFile", err)
	}
	if f == nil || f.FilePath == "" {
		return nil, errors.New("telegram getFile: no file_path in the answer (the file cannot be downloaded)")
	}
	rel, local := b.relativeFilePath(f.FilePath)
	shown := scrub(f.FilePath, b.token)
	if f.FileSize > limit {
		return nil, fmt.Errorf("telegram download %s: %s, over the limit of %s: %w",
			shown, megabytes(f.FileSize), megabytes(limit), mynah.ErrFileTooBig)
	}
	u := b.apiURL + "/file/bot" + b.token + "/" + (&url.URL{Path: rel}).EscapedPath()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("telegram download %s: %w", shown, redact(err, b.token))
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("telegram download %s: %w", shown, redact(err, b.token))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		err := b.downloadStatus(resp)
		if local && resp.StatusCode == http.StatusNotFound {
			return nil, fmt.Errorf("telegram download %s: %w (a local Bot API server gave this path on its own disk; "+
				"serve its directory for this bot at /file/bot<token>/ to let mynah download files)", shown, err)
		}
		return nil, fmt.Errorf("telegram download %s: %w", shown, err)
	}
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("telegram download %s: %s, over the limit of %s: %w",
			shown, megabytes(resp.ContentLength), megabytes(limit), mynah.ErrFileTooBig)
	}
	var buf bytes.Buffer
	if f.FileSize > 0 {
		buf.Grow(int(f.FileSize) + 1)
	}
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("telegram download %s: %w", shown, redact(err, b.token))
	}
	if n > limit {
		return nil, fmt.Errorf("telegram download %s: longer than the limit of %s: %w", shown, megabytes(limit), mynah.ErrFileTooBig)
	}
	return buf.Bytes(), nil
}

// relativeFilePath returns the path to request under /file/bot<token>/ for getFile's
// file_path, and whether that was an absolute path on a local server's disk.
func (b *Bot) relativeFilePath(p string) (rel string, local bool) {
	if !strings.HasPrefix(p, "/") {
		return p, false
	}
	if _, after, ok := strings.Cut(p, "/"+b.token+"/"); ok {
		return after, true
	}
	return strings.TrimLeft(p, "/"), true
}

// downloadStatus is the error of a download answered with a status other than 200: the
// Bot API's own error when the body is its JSON envelope, else the HTTP status.
func (b *Bot) downloadStatus(resp *http.Response) error {
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return redirected(resp)
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	var env struct {
		OK          bool   `json:"ok"`
		ErrorCode   int    `json:"error_code"`
		Description string `json:"description"`
	}
	if json.Unmarshal(raw, &env) == nil && !env.OK && env.Description != "" {
		code := env.ErrorCode
		if code == 0 {
			code = resp.StatusCode
		}
		return &Error{Code: code, Description: scrub(env.Description, b.token)}
	}
	return fmt.Errorf("the server answered %s", resp.Status)
}

// megabytes formats a size in bytes as MB with one decimal.
func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }
