package telegramtest

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const (
	maxWebhookBackoff    = 60 * time.Second
	maxWebhookRetryAfter = 3600 * time.Second
	defaultMaxConns      = 40
	maxSecretTokenLen    = 256
	webhookSecretHeader  = "X-Telegram-Bot-Api-Secret-Token"
)

// webhook is an active webhook of a bot; its deliverer goroutine stops when
// ctx is cancelled. Fields other than ctx and cancel are guarded by
// Server.mu.
type webhook struct {
	url, secret   string
	maxConns      int
	ctx           context.Context
	cancel        context.CancelFunc
	lastErrorDate int64
	lastErrorMsg  string
}

func (b *bot) stopWebhook() {
	if b.hook != nil {
		b.hook.cancel()
		b.hook = nil
	}
}

// checkWebhookURL validates a webhook URL like the cloud server, except that
// http and any port are allowed on loopback hosts (as in local mode).
func checkWebhookURL(raw string) *Error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return badRequest(msgBadWebhookURL)
	}
	if host := u.Hostname(); host == "localhost" || net.ParseIP(host).IsLoopback() {
		return nil
	}
	if u.Scheme != "https" {
		return badRequest(msgWebhookHTTPS)
	}
	switch u.Port() {
	case "", "80", "88", "443", "8443":
		return nil
	}
	return badRequest(msgWebhookPorts)
}

func checkSecretToken(secret string) *Error {
	if len(secret) > maxSecretTokenLen {
		return badRequest(msgSecretTooLong)
	}
	for _, c := range secret {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return badRequest(msgSecretBadChars)
		}
	}
	return nil
}

func (s *Server) setWebhook(ctx context.Context, b *bot, p params) (any, string, *Error) {
	rawURL := p.str("url")
	if rawURL == "" {
		return s.deleteWebhook(ctx, b, p)
	}
	if e := checkWebhookURL(rawURL); e != nil {
		return nil, "", e
	}
	secret := p.str("secret_token")
	if e := checkSecretToken(secret); e != nil {
		return nil, "", e
	}
	maxConns := int64(defaultMaxConns)
	if v, ok := p.int("max_connections"); ok {
		maxConns = clamp(v, 1, 100)
	}
	var allowed []string
	if p.has("allowed_updates") {
		if err := p.decode("allowed_updates", &allowed); err != nil {
			return nil, "", badRequest("can't parse allowed_updates JSON object")
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if p.bool("drop_pending_updates") {
		b.queue = nil
	}
	if p.has("allowed_updates") {
		b.allowed = allowed
	}
	if h := b.hook; h != nil && h.url == rawURL && h.secret == secret && h.maxConns == int(maxConns) {
		return true, "Webhook is already set", nil
	}
	b.stopWebhook()
	b.terminatePoll(msgConflictSetWebhook)
	hctx, cancel := context.WithCancel(context.Background())
	h := &webhook{url: rawURL, secret: secret, maxConns: int(maxConns), ctx: hctx, cancel: cancel}
	b.hook = h
	b.wakeUp()
	s.changed.Broadcast()
	if !s.isClosed() {
		s.wg.Add(1)
		go s.deliver(b, h)
	}
	return true, "Webhook was set", nil
}

func (s *Server) deleteWebhook(_ context.Context, b *bot, p params) (any, string, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.bool("drop_pending_updates") {
		b.queue = nil
	}
	if b.hook == nil {
		return true, "Webhook is already deleted", nil
	}
	b.stopWebhook()
	s.changed.Broadcast()
	return true, "Webhook was deleted", nil
}

func (s *Server) getWebhookInfo(_ context.Context, b *bot, _ params) (any, string, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info := WebhookInfo{PendingUpdateCount: len(b.queue)}
	if h := b.hook; h != nil {
		info.URL = h.url
		info.IPAddress = "127.0.0.1"
		info.MaxConnections = h.maxConns
		info.LastErrorDate = h.lastErrorDate
		info.LastErrorMessage = h.lastErrorMsg
		info.AllowedUpdates = b.allowed
	}
	return info, "", nil
}

// deliver posts b's queued updates to h one at a time, in order, until h is
// stopped. A non-2xx answer or a transport error is retried with a doubling
// backoff, or after the Retry-After the webhook asked for.
func (s *Server) deliver(b *bot, h *webhook) {
	defer s.wg.Done()
	backoff := s.opts.WebhookRetry
	for {
		s.mu.Lock()
		for len(b.queue) == 0 && b.hook == h {
			wake := b.wake
			s.mu.Unlock()
			select {
			case <-wake:
			case <-h.ctx.Done():
				return
			}
			s.mu.Lock()
		}
		if b.hook != h {
			s.mu.Unlock()
			return
		}
		u := b.queue[0]
		s.mu.Unlock()

		body, err := u.MarshalJSON()
		if err != nil {
			panic(err) // Update always marshals
		}
		if s.opts.SelfCheck {
			s.report("webhook", s.apiSpec().checkJSON("update", body, "Update"), "emulator update: ")
		}
		reply, retryAfter, failure := s.post(h, body)
		if h.ctx.Err() != nil {
			return
		}
		if failure == "" {
			s.mu.Lock()
			if b.hook == h && len(b.queue) > 0 && b.queue[0].UpdateID == u.UpdateID {
				b.queue = b.queue[1:]
			}
			s.changed.Broadcast()
			s.mu.Unlock()
			backoff = s.opts.WebhookRetry
			s.runWebhookReply(h.ctx, b, reply)
			continue
		}
		s.mu.Lock()
		h.lastErrorDate = s.now().Unix()
		h.lastErrorMsg = failure
		s.changed.Broadcast()
		s.mu.Unlock()
		wait := backoff
		if retryAfter > 0 {
			wait = min(retryAfter, maxWebhookRetryAfter)
		}
		backoff = min(2*backoff, maxWebhookBackoff)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-h.ctx.Done():
			t.Stop()
			return
		}
	}
}

// post delivers one update. It returns the 2xx response body, or a failure
// worded like getWebhookInfo's last_error_message and the Retry-After the
// webhook sent.
func (s *Server) post(h *webhook, body []byte) (reply []byte, retryAfter time.Duration, failure string) {
	req, err := http.NewRequestWithContext(h.ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	if h.secret != "" {
		req.Header.Set(webhookSecretHeader, h.secret)
	}
	resp, err := s.opts.WebhookClient.Do(req)
	if err != nil {
		return nil, 0, "Connection error: " + err.Error()
	}
	defer resp.Body.Close()
	reply, _ = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && n > 0 {
			retryAfter = time.Duration(n) * time.Second
		}
		return nil, retryAfter, "Wrong response from the webhook: " + resp.Status
	}
	return reply, 0, ""
}

// runWebhookReply executes a Bot API call given as the webhook's response
// body, as the official server does; its result is not reported anywhere.
func (s *Server) runWebhookReply(ctx context.Context, b *bot, reply []byte) {
	if len(bytes.TrimSpace(reply)) == 0 {
		return
	}
	p, err := jsonParams(reply)
	if err != nil || !p.has("method") {
		return
	}
	method := p.str("method")
	delete(p, "method")
	switch m := strings.ToLower(method); {
	case strings.HasPrefix(m, "get"), m == "setwebhook", m == "deletewebhook", m == "close", m == "logout":
		return
	}
	s.call(ctx, b, method, p)
}
