package telegramtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"
)

// apiResponse is the Bot API envelope as a client sees it.
type apiResponse struct {
	Status      int             `json:"-"`
	Header      http.Header     `json:"-"`
	Body        string          `json:"-"`
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  *struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

// decode unmarshals the result into v.
func (r apiResponse) decode(t *testing.T, v any) {
	t.Helper()
	if !r.OK {
		t.Fatalf("call failed: %d %s", r.ErrorCode, r.Description)
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		t.Fatalf("decode result %s: %v", r.Result, err)
	}
}

// do performs a raw HTTP request against the server.
func do(t *testing.T, req *http.Request) apiResponse {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := apiResponse{Status: resp.StatusCode, Header: resp.Header, Body: string(body)}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("response %q is not JSON: %v", body, err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	if !r.OK && r.ErrorCode != resp.StatusCode {
		t.Errorf("error_code %d differs from HTTP status %d", r.ErrorCode, resp.StatusCode)
	}
	return r
}

// call POSTs params as a JSON body to method of the bot with token.
func call(t *testing.T, srv *Server, token, method string, params any) apiResponse {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	body, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL()+"/bot"+token+"/"+method, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return do(t, req)
}

// callForm POSTs params form-encoded.
func callForm(t *testing.T, srv *Server, method string, params url.Values) apiResponse {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL()+"/bot"+srv.Token()+"/"+method, bytes.NewReader([]byte(params.Encode())))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, req)
}

// violationLog collects violations for tests that provoke them.
type violationLog struct {
	mu   sync.Mutex
	errs []string
}

func (l *violationLog) add(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err.Error())
}

func (l *violationLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.errs...)
}

// Test users and chats.
var (
	alice = User{ID: 501, FirstName: "Alice", Username: "alice"}
	bob   = User{ID: 502, FirstName: "Bob", Username: "bob"}
)

// wantError asserts r is the given Telegram error.
func wantError(t *testing.T, r apiResponse, code int, desc string) {
	t.Helper()
	if r.OK || r.Status != code || r.Description != desc {
		t.Errorf("got %d ok=%v %q, want %d %q", r.Status, r.OK, r.Description, code, desc)
	}
}
