package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// DefaultConnect is NewTransport's connect timeout when none is given.
const DefaultConnect = 10 * time.Second

// Transport is the HTTP transport of model calls: it bounds how long a connection may
// take and reports each response body's first byte to WithDeadlines. Create it with
// NewTransport; it is safe for concurrent use.
type Transport struct {
	next *http.Transport
}

// NewTransport returns a Transport over a clone of base (nil: of http.DefaultTransport)
// whose dial and TLS handshake each give up after connect (zero: DefaultConnect). A
// dial that takes longer fails with an error wrapping ErrTimeout, which the adapters
// report as a retryable *Error. Give every adapter's http.Client one, so that
// WithDeadlines' first-token deadline of a stream waits for its first byte rather than
// its headers.
func NewTransport(base *http.Transport, connect time.Duration) *Transport {
	if base == nil {
		base = http.DefaultTransport.(*http.Transport)
	}
	if connect <= 0 {
		connect = DefaultConnect
	}
	t := base.Clone()
	d := &net.Dialer{KeepAlive: 30 * time.Second}
	t.DialContext = connectWithin(connect, d.DialContext)
	t.TLSHandshakeTimeout = connect
	return &Transport{next: t}
}

// RoundTrip sends req; a call under WithDeadlines learns of its body's first byte.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	p := progressFrom(req.Context())
	if p != nil {
		p.viaTransport.Store(true)
	}
	resp, err := t.next.RoundTrip(req)
	if err == nil && p != nil {
		resp.Body = &firstByte{ReadCloser: resp.Body, p: p}
	}
	return resp, err
}

// CloseIdleConnections closes the idle connections of the underlying transport.
func (t *Transport) CloseIdleConnections() { t.next.CloseIdleConnections() }

// firstByte reports the first byte read from a response body.
type firstByte struct {
	io.ReadCloser
	p *progress
}

func (b *firstByte) Read(s []byte) (int, error) {
	n, err := b.ReadCloser.Read(s)
	if n > 0 {
		b.p.answered()
	}
	return n, err
}

// connectWithin bounds each dial by d; a dial cut short by it (and not by its caller)
// fails with an error wrapping ErrTimeout.
func connectWithin(d time.Duration, dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		dctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		c, err := dial(dctx, network, addr)
		var ne net.Error
		if err != nil && ctx.Err() == nil && (dctx.Err() != nil || errors.As(err, &ne) && ne.Timeout()) {
			return nil, fmt.Errorf("%w: no connection to %s within %v: %w", ErrTimeout, addr, d, err)
		}
		return c, err
	}
}
