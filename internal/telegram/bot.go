// Package telegram is mynah's Bot API adapter: a client for the methods mynah calls, a
// long-polling loop and a webhook handler for intake, the mapping of Telegram's wire types
// onto the domain types of package mynah, and the lanes' delivery port with its caches
// (sticker sets, member counts). telego does the wire work underneath, over net/http.
//
// The bot token is a secret: it never appears in an error string or a log line of this
// package, even though every request URL contains it.
package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mymmrac/telego"
	ta "github.com/mymmrac/telego/telegoapi"

	"github.com/mynah-ai/mynah"
)

// DefaultAPIURL is the Bot API server used when Config.APIURL is empty.
const DefaultAPIURL = "https://api.telegram.org"

// Config configures a Bot. The zero value of every field but Token is usable.
type Config struct {
	// Token is the bot token from @BotFather. It is a secret: it is never logged and never
	// part of an error string.
	Token string
	// APIURL is the Bot API server, without the /bot<token> path; empty means
	// DefaultAPIURL. Tests point it at an emulator.
	APIURL string
	// HTTPClient makes the requests; nil means a new client on http.DefaultTransport. Its
	// Timeout, if set, must exceed the long-poll timeout (50 s) or Poll cannot work;
	// prefer bounding calls with their context. The Bot uses a copy that never follows a
	// redirect (every request URL holds the token); the client itself is not modified.
	HTTPClient *http.Client
	// Logger receives Poll's and the webhook handler's logs; nil discards them.
	Logger *slog.Logger
	// Now is the clock of the caches (sticker sets, member counts) and of edits; nil
	// means time.Now.
	Now func() time.Time
}

// String describes c with the token redacted, so printing or logging a Config is safe.
func (c Config) String() string {
	return fmt.Sprintf("telegram.Config{Token: %s, APIURL: %q}", redactedToken(c.Token), c.APIURL)
}

// GoString is String, for %#v.
func (c Config) GoString() string { return c.String() }

// LogValue is String, for log/slog.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

// redactedToken shows only the public bot id of a token.
func redactedToken(token string) string {
	if token == "" {
		return `""`
	}
	id, _, _ := strings.Cut(token, ":")
	return id + ":<redacted>"
}

// Bot is a client of one bot's Bot API. It is safe for concurrent use; methods that call
// the API are bounded by their context. It is the lanes' delivery port: Send, Sticker,
// React, Typing and Draft report Telegram's refusals as mynah's delivery failures (see
// Error).
type Bot struct {
	api    *telego.Bot
	caller ta.Caller
	hc     *http.Client // the configured client, without redirects; downloads use it
	apiURL string
	token  string
	log    *slog.Logger
	now    func() time.Time
	// wait pauses between retries; tests replace it so they never sleep.
	wait func(ctx context.Context, d time.Duration) error

	mu sync.Mutex
	me *mynah.User // cached getMe result

	stickers stickerSets
	members  memberCounts

	// receiving is what Receiving reports: Poll is running and its last getUpdates did
	// not fail, or the webhook is set.
	receiving atomic.Bool
}

// Receiving reports whether updates reach the bot: Poll runs and its last getUpdates
// succeeded (or is the first, still under way), or SetWebhook succeeded. A readiness check
// reads it.
func (b *Bot) Receiving() bool { return b.receiving.Load() }

// New returns a Bot for cfg. It does no I/O. It fails when the token does not have the
// shape of a bot token (digits, a colon, 35 characters of [A-Za-z0-9_-]) or the API URL is
// not an absolute http(s) URL; the error never contains the token.
func New(cfg Config) (*Bot, error) {
	if !validToken(cfg.Token) {
		return nil, errors.New("telegram: malformed bot token (want <digits>:<35 characters of [A-Za-z0-9_-]>)")
	}
	apiURL := strings.TrimRight(cfg.APIURL, "/")
	if apiURL == "" {
		apiURL = DefaultAPIURL
	}
	u, err := url.Parse(apiURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("telegram: API URL %q is not an absolute http(s) URL", apiURL)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hc = withoutRedirects(hc)
	caller := redactingCaller{next: httpCaller{client: hc}, token: cfg.Token}
	api, err := telego.NewBot(cfg.Token,
		telego.WithAPIServer(apiURL),
		telego.WithAPICaller(caller),
		telego.WithLogger(quietLogger{}),
	)
	if err != nil {
		return nil, fmt.Errorf("telegram: %w", redact(err, cfg.Token))
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	botID, _, _ := strings.Cut(cfg.Token, ":") // the numeric bot id is public
	return &Bot{
		api:      api,
		caller:   caller,
		hc:       hc,
		apiURL:   apiURL,
		token:    cfg.Token,
		log:      log.With("bot", botID),
		now:      now,
		wait:     sleep,
		stickers: stickerSets{sets: map[string]stickerSet{}},
		members:  memberCounts{seen: map[mynah.ChatID]memberCount{}},
	}, nil
}

// String names the bot by its public id; the token stays hidden.
func (b *Bot) String() string { return "telegram.Bot{" + redactedToken(b.token) + "}" }

// GoString is String, for %#v.
func (b *Bot) GoString() string { return b.String() }

// validToken reports whether token has the shape telego accepts: ^\d+:[\w-]{35}$.
func validToken(token string) bool {
	id, secret, ok := strings.Cut(token, ":")
	if !ok || id == "" || len(secret) != 35 {
		return false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return false
		}
	}
	for _, c := range secret {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// Me returns the bot's own user (getMe). The first successful answer is cached; failures
// are not, so a later call tries again.
func (b *Bot) Me(ctx context.Context) (mynah.User, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.me != nil {
		return *b.me, nil
	}
	u, err := b.api.GetMe(ctx)
	if err != nil {
		return mynah.User{}, b.fail("getMe", err)
	}
	me := user(u)
	b.me = &me
	return me, nil
}

// cachedMe returns the cached getMe result, if any, without I/O.
func (b *Bot) cachedMe() (mynah.User, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.me == nil {
		return mynah.User{}, false
	}
	return *b.me, true
}

// call performs method with params and returns the raw result, for the few calls whose
// result telego's types would decode too eagerly (getUpdates).
func (b *Bot) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	body, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("telegram %s: encode parameters: %w", method, err)
	}
	resp, err := b.caller.Call(ctx, b.apiURL+"/bot"+b.token+"/"+method,
		&ta.RequestData{ContentType: ta.ContentTypeJSON, BodyRaw: body})
	if err != nil {
		return nil, b.fail(method, err)
	}
	if !resp.Ok {
		if resp.Error == nil {
			return nil, fmt.Errorf("telegram %s: response not ok and without an error", method)
		}
		return nil, b.fail(method, resp.Error)
	}
	return resp.Result, nil
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// quietLogger silences telego's own logging: its debug lines contain request URLs and
// therefore the token. This package logs what matters itself.
type quietLogger struct{}

func (quietLogger) Debugf(string, ...any) {}
func (quietLogger) Errorf(string, ...any) {}
