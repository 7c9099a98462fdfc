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

	ta "github.com/mymmrac/telego/telegoapi"
)

// withoutRedirects returns a copy of hc that hands a redirect back to its caller instead
// of following it: the request URL holds the token, and a redirect would send it, in the
// new URL's path or a Referer, to wherever the Location points.
func withoutRedirects(hc *http.Client) *http.Client {
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// redirectError reports a Bot API answer that was a redirect, which is never followed.
// Its text names the status and the target's host, never the URL's path or query, which
// may repeat the token.
type redirectError struct {
	status int
	host   string
}

func (e *redirectError) Error() string {
	to := ""
	if e.host != "" {
		to = " to " + e.host
	}
	return fmt.Sprintf("the Bot API server answered %d, a redirect%s, which is not followed: it would carry the bot token there (check the API URL)", e.status, to)
}

// redirected is the error of a redirect answer.
func redirected(resp *http.Response) *redirectError {
	e := &redirectError{status: resp.StatusCode}
	if loc, err := resp.Location(); err == nil {
		e.host = loc.Host
	}
	return e
}

// httpCaller is telego's net/http caller (ta.HTTPCaller) for a client that does not
// follow redirects: it reports a redirect answer as a *redirectError rather than as the
// JSON it cannot decode.
type httpCaller struct {
	client *http.Client
}

// Call implements ta.Caller.
func (c httpCaller) Call(ctx context.Context, u string, data *ta.RequestData) (*ta.Response, error) {
	var body io.Reader
	switch {
	case data.BodyRaw != nil:
		body = bytes.NewReader(data.BodyRaw)
	case data.BodyStream != nil:
		body = data.BodyStream
	default:
		return nil, errors.New("body is not provided")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, body)
	if err != nil {
		return nil, fmt.Errorf("http create request: %w", err)
	}
	req.Header.Set(ta.ContentTypeHeader, data.ContentType)
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("http do request: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return nil, redirected(resp)
	case resp.StatusCode >= http.StatusInternalServerError:
		return nil, fmt.Errorf("internal server error: %d", resp.StatusCode)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	var r ta.Response
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("decode json: %w", err)
	}
	if r.Ok && r.Error == nil {
		// telego formats every response for a debug line, logged or not, and %v of the
		// nil *ta.Error panics inside (*Error).Error, which fmt recovers from: a SIGSEGV,
		// a panic and a stack unwind on every successful call, 2.4% of serve's CPU under
		// load. An empty error formats without one; telego reads Error of a successful
		// response only with WithWarnings, which mynah does not use.
		r.Error = &ta.Error{}
	}
	return &r, nil
}

// redactingCaller is a caller with the token scrubbed from its errors: a failed
// request's *url.Error carries the whole URL, /bot<token>/ included.
type redactingCaller struct {
	next  ta.Caller
	token string
}

// Call implements ta.Caller.
func (c redactingCaller) Call(ctx context.Context, u string, data *ta.RequestData) (*ta.Response, error) {
	resp, err := c.next.Call(ctx, u, data)
	if err != nil {
		return nil, redact(err, c.token)
	}
	return resp, nil
}

// redactedError is an error whose text had the token replaced. It unwraps to the cause
// below the *url.Error (a context error, a net.OpError), which holds no URL, so
// errors.Is(err, context.Canceled) still works.
type redactedError struct {
	msg   string
	cause error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.cause }

// redact returns err with every spelling of token removed from its text and without a
// *url.Error (which holds the URL) reachable through Unwrap. A *url.Error is reduced to
// its own text, which already names the operation, the URL and the cause.
func redact(err error, token string) error {
	if err == nil || token == "" {
		return err
	}
	if ue, ok := errors.AsType[*url.Error](err); ok {
		// The *url.Error says all there is: operation, URL, cause.
		return &redactedError{msg: scrub(ue.Error(), token), cause: ue.Err}
	}
	if msg := scrub(err.Error(), token); msg != err.Error() {
		return &redactedError{msg: msg}
	}
	return err
}

// scrub replaces every spelling of token in s: the token as it is, with its colon
// escaped as %3A or %3a, and the secret after the colon on its own, which catches any
// other spelling of the colon (the secret's characters, [A-Za-z0-9_-], are never
// escaped). The public bot id alone is left.
func scrub(s, token string) string {
	id, secret, _ := strings.Cut(token, ":")
	for _, t := range []string{token, id + "%3A" + secret, id + "%3a" + secret} {
		s = strings.ReplaceAll(s, t, "<token>")
	}
	if secret != "" {
		s = strings.ReplaceAll(s, secret, "<redacted>")
	}
	return s
}
