package telegram

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/net/netutil"
)

// The defaults of WebhookServer. Telegram opens at most 40 connections per webhook unless
// told otherwise (setWebhook's max_connections), sends headers of a few hundred bytes
// and an update of a few kilobytes at once, and waits about a minute for an answer.
const (
	DefaultWebhookMaxConns          = 128
	DefaultWebhookReadHeaderTimeout = 5 * time.Second
	DefaultWebhookReadTimeout       = 10 * time.Second
	DefaultWebhookWriteTimeout      = 30 * time.Second
	DefaultWebhookIdleTimeout       = 60 * time.Second
	DefaultWebhookShutdownTimeout   = 5 * time.Second
	webhookMaxHeaderBytes           = 32 << 10
)

// WebhookServer serves webhook handlers (see Bot.WebhookHandler) on a listener open to the
// internet, with the limits such a listener needs: a cap on open connections, so slow or
// idle clients cannot exhaust the process's file descriptors (the connections over the
// cap wait in the kernel's accept queue); deadlines on reading the headers and the whole
// request, on writing the answer and on idle keep-alive connections, so a client that
// stalls loses its connection; a bound on header and body size (413 for a larger body).
// Only POST requests to the paths of Handlers reach a handler; others get 404 or 405.
//
// The zero value of every field but Listener and Handlers is usable. Fields must not
// change once Run is called.
type WebhookServer struct {
	// Listener accepts the connections. Run takes it over and closes it.
	Listener net.Listener
	// Handlers maps a URL path, such as "/telegram/webhook/Mynah", to its handler.
	Handlers map[string]http.Handler
	// Logger receives the server's errors (failed accepts, TLS and protocol errors) and a
	// shutdown that had to cut requests off; nil discards them.
	Logger *slog.Logger
	// MaxConns bounds the connections open at once; zero means DefaultWebhookMaxConns.
	MaxConns int
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout are those of
	// http.Server; zero means the DefaultWebhook… constant of the same name.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// ShutdownTimeout bounds how long Run waits for running requests once ctx is done;
	// then their contexts are cancelled and their connections closed. Zero means
	// DefaultWebhookShutdownTimeout.
	ShutdownTimeout time.Duration
}

// Run serves until ctx is done, then stops accepting, lets running requests finish for at
// most ShutdownTimeout, and returns nil once every handler has returned. Requests do not
// run with ctx: an update being stored when shutdown begins is still stored and
// confirmed. Run returns an error, after the same shutdown, when the listener fails.
func (s *WebhookServer) Run(ctx context.Context) error {
	if s.Listener == nil || len(s.Handlers) == 0 {
		return errors.New("telegram: webhook server needs a listener and at least one handler")
	}
	log := s.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// Request contexts end only when shutdown gives up waiting for them.
	base, cut := context.WithCancel(context.WithoutCancel(ctx))
	defer cut()
	var running gate
	mux := http.NewServeMux()
	for path, h := range s.Handlers {
		mux.Handle("POST "+path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !running.enter() {
				w.Header().Set("Connection", "close")
				http.Error(w, "shutting down", http.StatusServiceUnavailable)
				return
			}
			defer running.leave()
			r.Body = http.MaxBytesReader(w, r.Body, maxWebhookBody)
			h.ServeHTTP(w, r)
		}))
	}
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: orDefault(s.ReadHeaderTimeout, DefaultWebhookReadHeaderTimeout),
		ReadTimeout:       orDefault(s.ReadTimeout, DefaultWebhookReadTimeout),
		WriteTimeout:      orDefault(s.WriteTimeout, DefaultWebhookWriteTimeout),
		IdleTimeout:       orDefault(s.IdleTimeout, DefaultWebhookIdleTimeout),
		MaxHeaderBytes:    webhookMaxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	maxConns := s.MaxConns
	if maxConns <= 0 {
		maxConns = DefaultWebhookMaxConns
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(netutil.LimitListener(s.Listener, maxConns)) }()

	var serveErr error
	select {
	case serveErr = <-served:
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), orDefault(s.ShutdownTimeout, DefaultWebhookShutdownTimeout))
	defer cancel()
	if err := srv.Shutdown(stop); err != nil {
		log.Warn("telegram: webhook server: requests still running at the shutdown deadline were cut off; Telegram delivers their updates again",
			"err", err)
		cut()
		_ = srv.Close()
	}
	if serveErr == nil {
		serveErr = <-served
	}
	running.closeAndWait()
	if errors.Is(serveErr, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("telegram: webhook server: %w", serveErr)
}

// gate counts running handlers until it closes; then it admits none and waits for the
// ones inside. It is safe for concurrent use.
type gate struct {
	mu     sync.Mutex
	closed bool
	inside sync.WaitGroup
}

// enter admits a handler unless the gate is closed; an admitted handler calls leave.
func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.inside.Add(1)
	return true
}

func (g *gate) leave() { g.inside.Done() }

// closeAndWait closes the gate and waits until every admitted handler has left.
func (g *gate) closeAndWait() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.inside.Wait()
}

// orDefault returns d, or def when d is zero.
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}
