package telegram

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
)

// patience bounds every wait in these tests; reaching it means the server failed to act.
const patience = 20 * time.Second

// countingListener records how many accepted connections are open at once.
type countingListener struct {
	net.Listener

	mu        sync.Mutex
	open, max int
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.open++
	l.max = max(l.max, l.open)
	l.mu.Unlock()
	return &countedConn{Conn: c, l: l}, nil
}

// Max returns the most connections that were open at once.
func (l *countingListener) Max() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.max
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.open--
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// start runs s on a loopback listener and returns its address; stop cancels Run and
// returns what it returned.
func start(t *testing.T, s *WebhookServer) (addr string, ln *countingListener, stop func() error) {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln = &countingListener{Listener: inner}
	s.Listener = ln
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	return inner.Addr().String(), ln, func() error {
		cancel()
		return <-done
	}
}

// runServer starts s; at cleanup it stops s and checks that Run returned nil.
func runServer(t *testing.T, s *WebhookServer) (addr string, ln *countingListener) {
	t.Helper()
	addr, ln, stop := start(t, s)
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("Run = %v, want nil after cancel", err)
		}
	})
	return addr, ln
}

// postAsync posts an update with the secret s3cret to addr and sends the answer's status
// (0 when the request failed) on the returned channel.
func postAsync(addr string) <-chan int {
	status := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/hook", strings.NewReader(textUpdate(3)))
		req.Header.Set(SecretHeader, "s3cret")
		resp, err := (&http.Client{Timeout: patience}).Do(req)
		if err != nil {
			status <- 0
			return
		}
		resp.Body.Close()
		status <- resp.StatusCode
	}()
	return status
}

// postUpdate posts update u with secret to the server at addr and returns the answer.
func postUpdate(t *testing.T, addr, path, secret, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+addr+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(SecretHeader, secret)
	client := &http.Client{Timeout: patience, Transport: &http.Transport{}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// dial opens a raw connection to addr and writes head to it.
func dial(t *testing.T, addr, head string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestWebhookServerSlowConnections holds three times the connection cap open with
// requests that never finish their headers: the server keeps to its cap, cuts every
// slow connection off, and a real update is still accepted.
func TestWebhookServerSlowConnections(t *testing.T) {
	f := newFakeAPI(t)
	b, rec := f.bot(t)
	got := make(chan int64, 1)
	const maxConns = 4
	addr, ln := runServer(t, &WebhookServer{
		Handlers: map[string]http.Handler{"/hook": b.WebhookHandler("s3cret", func(_ context.Context, u mynah.Update) error {
			got <- u.ID
			return nil
		})},
		Logger:            newTestLogger(rec),
		MaxConns:          maxConns,
		ReadHeaderTimeout: 100 * time.Millisecond,
		ReadTimeout:       100 * time.Millisecond,
	})
	var slow []net.Conn
	for range 3 * maxConns {
		slow = append(slow, dial(t, addr, "POST /hook HTTP/1.1\r\nHost: mynah\r\n"))
	}

	if resp := postUpdate(t, addr, "/hook", "s3cret", textUpdate(7)); resp.StatusCode != http.StatusOK {
		t.Errorf("real update: status %d, want 200", resp.StatusCode)
	}
	if id := <-got; id != 7 {
		t.Errorf("handled update %d, want 7", id)
	}
	for i, c := range slow {
		_ = c.SetReadDeadline(time.Now().Add(patience))
		if _, err := io.ReadAll(c); os.IsTimeout(err) {
			t.Errorf("slow connection %d is still open", i)
		}
	}
	if n := ln.Max(); n > maxConns {
		t.Errorf("%d connections were open at once, want at most %d", n, maxConns)
	}
}

// TestWebhookServerBodyTimeout sends a request whose body never finishes: the read
// timeout cuts it off and no update is handled.
func TestWebhookServerBodyTimeout(t *testing.T) {
	f := newFakeAPI(t)
	b, rec := f.bot(t)
	handled := make(chan struct{}, 1)
	addr, _ := runServer(t, &WebhookServer{
		Handlers: map[string]http.Handler{"/hook": b.WebhookHandler("s3cret", func(context.Context, mynah.Update) error {
			handled <- struct{}{}
			return nil
		})},
		Logger:      newTestLogger(rec),
		ReadTimeout: 200 * time.Millisecond,
	})
	c := dial(t, addr, "POST /hook HTTP/1.1\r\nHost: mynah\r\n"+SecretHeader+": s3cret\r\n"+
		"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"+`{"update_id": 7, `)
	_ = c.SetReadDeadline(time.Now().Add(patience))
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("stalled body: status %d, want 400", resp.StatusCode)
	}
	if _, err := io.ReadAll(r); os.IsTimeout(err) {
		t.Error("the connection of a stalled body is still open")
	}
	select {
	case <-handled:
		t.Error("an update with a stalled body was handled")
	default:
	}
	if !strings.Contains(rec.Logs(), "reading webhook body") {
		t.Errorf("the stalled body was not logged:\n%s", rec.Logs())
	}
}

func TestWebhookServerWrongSecret(t *testing.T) {
	f := newFakeAPI(t)
	b, rec := f.bot(t)
	clk := fakeClock(b)
	addr, _ := runServer(t, &WebhookServer{
		Handlers: map[string]http.Handler{"/hook": b.WebhookHandler("s3cret", func(context.Context, mynah.Update) error {
			t.Error("an update with a wrong secret was handled")
			return nil
		})},
		Logger: newTestLogger(rec),
	})
	lines := func() []string {
		var out []string
		for l := range strings.Lines(rec.Logs()) {
			if strings.Contains(l, "wrong secret") {
				out = append(out, l)
			}
		}
		return out
	}

	const attempts = 50
	for range attempts {
		resp := postUpdate(t, addr, "/hook", "guess", textUpdate(7))
		if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
			t.Fatalf("wrong secret: status %d, close %v; want 401 and the connection closed", resp.StatusCode, resp.Close)
		}
	}
	if l := lines(); len(l) != 1 || !strings.Contains(l[0], "count=1 ") {
		t.Fatalf("after %d attempts the log has %d lines about them, want 1 with count=1:\n%s", attempts, len(l), rec.Logs())
	}
	clk.advance(wrongSecretLogEvery)
	postUpdate(t, addr, "/hook", "guess", textUpdate(7))
	if l := lines(); len(l) != 2 || !strings.Contains(l[1], "count=50 ") {
		t.Errorf("a minute later the log has %d lines, want a second with count=50 (%d held back, this one):\n%s",
			len(l), attempts-1, rec.Logs())
	}
}

func TestWebhookServerRoutes(t *testing.T) {
	f := newFakeAPI(t)
	b, _ := f.bot(t)
	addr, _ := runServer(t, &WebhookServer{
		Handlers: map[string]http.Handler{"/hook/A": b.WebhookHandler("s3cret", func(context.Context, mynah.Update) error { return nil })},
	})
	for _, tt := range []struct {
		method, path string
		want         int
	}{
		{http.MethodPost, "/hook/A", http.StatusOK},
		{http.MethodGet, "/hook/A", http.StatusMethodNotAllowed},
		{http.MethodPost, "/hook/B", http.StatusNotFound},
		{http.MethodPost, "/", http.StatusNotFound},
	} {
		req, err := http.NewRequestWithContext(t.Context(), tt.method, "http://"+addr+tt.path, strings.NewReader(textUpdate(1)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(SecretHeader, "s3cret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s %s: status %d, want %d", tt.method, tt.path, resp.StatusCode, tt.want)
		}
	}
}

// TestWebhookServerShutdown cancels Run while an update is being handled: the update
// is still answered 200, and Run returns only after its handler.
func TestWebhookServerShutdown(t *testing.T) {
	f := newFakeAPI(t)
	b, _ := f.bot(t)
	entered, release := make(chan struct{}), make(chan struct{})
	var finished bool
	addr, _, stop := start(t, &WebhookServer{
		Handlers: map[string]http.Handler{"/hook": b.WebhookHandler("s3cret", func(ctx context.Context, _ mynah.Update) error {
			close(entered)
			<-release
			finished = true
			return ctx.Err()
		})},
	})
	answered := postAsync(addr)
	<-entered
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	close(release)
	if err := <-stopped; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	if !finished {
		t.Error("Run returned before the running handler")
	}
	if code := <-answered; code != http.StatusOK {
		t.Errorf("update in flight at shutdown: status %d, want 200", code)
	}
}

// TestWebhookServerShutdownDeadline cancels Run while a handler waits for its context:
// at ShutdownTimeout the handler's context ends and Run returns.
func TestWebhookServerShutdownDeadline(t *testing.T) {
	f := newFakeAPI(t)
	b, rec := f.bot(t)
	entered := make(chan struct{})
	addr, _, stop := start(t, &WebhookServer{
		Handlers: map[string]http.Handler{"/hook": b.WebhookHandler("s3cret", func(ctx context.Context, _ mynah.Update) error {
			close(entered)
			<-ctx.Done()
			return ctx.Err()
		})},
		Logger:          newTestLogger(rec),
		ShutdownTimeout: 50 * time.Millisecond,
	})
	answered := postAsync(addr)
	<-entered
	if err := stop(); err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	if !strings.Contains(rec.Logs(), "cut off") {
		t.Errorf("the cut-off request was not logged:\n%s", rec.Logs())
	}
	if code := <-answered; code == http.StatusOK {
		t.Error("a request cut off at shutdown was answered 200; Telegram would not deliver it again")
	}
}

func TestWebhookServerListenerFails(t *testing.T) {
	f := newFakeAPI(t)
	b, _ := f.bot(t)
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	inner.Close()
	s := &WebhookServer{
		Listener: inner,
		Handlers: map[string]http.Handler{"/hook": b.WebhookHandler("s3cret", func(context.Context, mynah.Update) error { return nil })},
	}
	err = s.Run(t.Context())
	if err == nil || !errors.Is(err, net.ErrClosed) {
		t.Errorf("Run on a closed listener = %v, want net.ErrClosed", err)
	}
}
