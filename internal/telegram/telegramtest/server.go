package telegramtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultToken is the bot token a Server accepts when Options.Token is empty.
const DefaultToken = "123456:TEST-TOKEN-AAAAAAAAAAAAAAAAAAAAAAAA"

// Options configure a Server. The zero value is usable.
type Options struct {
	// Token is the token of the first bot; default DefaultToken.
	Token string
	// BotUser describes the first bot; zero fields default to id 1000001,
	// first name "Mynah" and username "mynah_bot".
	BotUser BotUser
	// OnViolation is called, outside the server's lock, for every request
	// that does not conform to the Bot API spec and, with SelfCheck, for
	// every emulator output that does not. Nil records violations only.
	OnViolation func(err error)
	// SelfCheck validates every result and update the emulator produces
	// against the spec and reports problems through OnViolation.
	SelfCheck bool
	// Now returns the current time for message dates; default time.Now.
	Now func() time.Time
	// WebhookClient posts updates to webhooks; default a client with a 30 s
	// timeout.
	WebhookClient *http.Client
	// WebhookRetry is the first delay after a failed webhook delivery; it
	// doubles up to 60 s. Default 1 s, as the official server.
	WebhookRetry time.Duration
}

// TB is the part of testing.TB that Start uses.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
}

// Server emulates the Telegram Bot API for one or more bots. Bots share
// chats; each bot has its own update queue, webhook and sent messages. All
// methods are safe for concurrent use.
type Server struct {
	opts Options

	closed    chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup // webhook deliverers and subscribers

	mu           sync.Mutex
	changed      *sync.Cond // broadcast on every state change observers wait for
	url          string
	bots         map[string]*bot
	defaultBot   *bot
	chats        map[chatKey]*chatState
	memberCounts map[int64]int
	users        map[int64]User
	blocked      map[int64]bool
	faults       map[string][]fault // by lower-case method
	files        map[string]*storedFile
	stickerSets  map[string]*StickerSet // by name; see AddStickerSet
	filePaths    map[string]*storedFile
	fileSeq      int
	downloads    int              // files served from /file/
	groupDates   map[string]int64 // date of the first message of each media group
	sent         []*SentMessage
	actions      []Action
	drafts       []Draft
	reactions    []Reaction
	presses      map[string]pressed // callback queries not yet answered, by id
	answers      []CallbackAnswer
	calls        []Call
	violations   []error
	warnings     []string
	subs         []*subscriber
}

// New returns a Server for opts. It does no I/O; serve it with Handler, Run
// or Start.
func New(opts Options) *Server {
	if opts.Token == "" {
		opts.Token = DefaultToken
	}
	if opts.BotUser.ID == 0 {
		opts.BotUser.ID = 1000001
	}
	if opts.BotUser.FirstName == "" {
		opts.BotUser.FirstName = "Mynah"
	}
	if opts.BotUser.Username == "" {
		opts.BotUser.Username = "mynah_bot"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.WebhookClient == nil {
		opts.WebhookClient = &http.Client{Timeout: 30 * time.Second}
	}
	if opts.WebhookRetry <= 0 {
		opts.WebhookRetry = time.Second
	}
	s := &Server{
		opts:         opts,
		closed:       make(chan struct{}),
		bots:         map[string]*bot{},
		chats:        map[chatKey]*chatState{},
		memberCounts: map[int64]int{},
		users:        map[int64]User{},
		blocked:      map[int64]bool{},
		faults:       map[string][]fault{},
		files:        map[string]*storedFile{},
		filePaths:    map[string]*storedFile{},
		groupDates:   map[string]int64{},
	}
	s.changed = sync.NewCond(&s.mu)
	s.AddBot(opts.Token, opts.BotUser)
	return s
}

// Start serves a new Server on a local httptest server that is closed by
// t.Cleanup. Unless opts.OnViolation is set, violations fail the test through
// t.Errorf. SelfCheck is enabled.
func Start(t TB, opts Options) *Server {
	t.Helper()
	if opts.OnViolation == nil {
		opts.OnViolation = func(err error) { t.Errorf("telegramtest: %v", err) }
	}
	opts.SelfCheck = true
	s := New(opts)
	ts := httptest.NewServer(s.Handler())
	s.setURL(ts.URL)
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	return s
}

// Run serves the API on ln until ctx is done, then closes the server. It
// returns nil after a clean stop.
func (s *Server) Run(ctx context.Context, ln net.Listener) error {
	s.setURL("http://" + ln.Addr().String())
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	s.Close()
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(shutdownCtx)
	if serveErr := <-errc; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	return err
}

// Close stops webhook deliveries, ends waiting long polls with an empty
// result and closes subscriptions. It is safe to call more than once and
// returns after the goroutines the server started have exited.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.mu.Lock()
		for _, b := range s.bots {
			b.stopWebhook()
			b.wakeUp()
		}
		s.changed.Broadcast()
		s.mu.Unlock()
	})
	s.wg.Wait()
}

func (s *Server) setURL(u string) {
	s.mu.Lock()
	s.url = u
	s.mu.Unlock()
}

// URL returns the base URL to configure as the bot's API server (the bot
// calls URL + "/bot" + token + "/" + method). It is empty when the server is
// served only through Handler.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Token returns the token of the first bot.
func (s *Server) Token() string { return s.opts.Token }

// AddBot registers another bot on the server. It panics if token is not a
// well-formed bot token or is already registered.
func (s *Server) AddBot(token string, user BotUser) {
	if !validToken(token) {
		panic(fmt.Sprintf("telegramtest: malformed bot token %q", token))
	}
	h := fnv.New32a()
	h.Write([]byte(token))
	b := &bot{
		token:        token,
		user:         user,
		nextUpdateID: 100000000 + int(h.Sum32()%800000000),
		wake:         make(chan struct{}),
		commands:     map[string][]BotCommand{},
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bots[token] != nil {
		panic(fmt.Sprintf("telegramtest: bot token %q registered twice", token))
	}
	s.bots[token] = b
	if s.defaultBot == nil {
		s.defaultBot = b
	}
	s.users[user.ID] = b.asUser()
}

// apiSpec returns the parsed spec.
func (s *Server) apiSpec() *apiSpec { return parsedSpec() }

// parsedSpec parses the embedded spec on first use; every server shares it, read-only.
var parsedSpec = sync.OnceValue(func() *apiSpec {
	spec, err := parseSpec(botAPIJSON)
	if err != nil {
		panic(err) // the embedded spec is part of the binary
	}
	return spec
})

// LoadSpec parses the Bot API spec the emulator checks every request against, which it
// otherwise does on the first request. A benchmark that times its client's first
// request (mynah bench load, start to the first getUpdates) calls it first, so the
// emulator's own start-up is not counted as the client's.
func LoadSpec() { parsedSpec() }

// validToken reports whether token is well-formed as ClientManager.cpp
// checks it: a numeric bot id, a colon, at most 80 characters, no slash.
func validToken(token string) bool {
	id, _, ok := strings.Cut(token, ":")
	if !ok || len(token) > 80 || id == "" || id[0] == '0' || strings.Contains(token, "/") {
		return false
	}
	return isInteger(id) && !strings.HasPrefix(id, "-")
}

// Handler returns the HTTP handler serving /bot<token>/<method> and
// /file/bot<token>/<path>.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"); ok {
		s.serveFile(w, rest)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	if !ok {
		writeResponse(w, nil, "", errNotFound())
		return
	}
	token, method, _ := strings.Cut(rest, "/")
	method = strings.TrimPrefix(method, "test/")
	if !validToken(token) {
		writeResponse(w, nil, "", errInvalidToken())
		return
	}
	s.mu.Lock()
	b := s.bots[token]
	s.mu.Unlock()
	if b == nil {
		writeResponse(w, nil, "", errUnauthorized())
		return
	}
	p, err := parseParams(r)
	if err != nil {
		writeResponse(w, nil, "", badRequest("can't parse request: "+err.Error()))
		return
	}
	res, desc, apiErr := s.call(r.Context(), b, method, p)
	writeResponse(w, res, desc, apiErr)
}

// handlerFunc implements one Bot API method. It returns the result (any
// JSON-marshallable value), an optional description and an error.
type handlerFunc func(ctx context.Context, b *bot, p params) (any, string, *Error)

// handler returns the implementation of a method by its spec name.
func (s *Server) handler(name string) handlerFunc {
	switch name {
	case "getMe":
		return s.getMe
	case "getUpdates":
		return s.getUpdates
	case "setWebhook":
		return s.setWebhook
	case "deleteWebhook":
		return s.deleteWebhook
	case "getWebhookInfo":
		return s.getWebhookInfo
	case "sendMessage":
		return s.sendMessage
	case "editMessageText":
		return s.editMessageText
	case "deleteMessage":
		return s.deleteMessage
	case "sendChatAction":
		return s.sendChatAction
	case "sendMessageDraft":
		return s.sendMessageDraft
	case "setMessageReaction":
		return s.setMessageReaction
	case "setMyCommands":
		return s.setMyCommands
	case "getMyCommands":
		return s.getMyCommands
	case "deleteMyCommands":
		return s.deleteMyCommands
	case "sendPhoto":
		return s.sendPhoto
	case "sendSticker":
		return s.sendSticker
	case "getStickerSet":
		return s.getStickerSet
	case "sendDocument":
		return s.sendDocument
	case "getFile":
		return s.getFile
	case "getChatMemberCount":
		return s.getChatMemberCount
	case "answerCallbackQuery":
		return s.answerCallbackQuery
	}
	return nil
}

// call runs one Bot API call for b: spec check, call log, injected faults,
// then the method itself. The result comes back marshalled.
func (s *Server) call(ctx context.Context, b *bot, method string, p params) (json.RawMessage, string, *Error) {
	spec := s.apiSpec()
	m := spec.method(method)
	if m == nil {
		s.record(b, method, p)
		return nil, "", errMethodNotFound()
	}
	rep := spec.checkRequest(m.Name, p)
	s.record(b, m.Name, p)
	s.report(m.Name, rep, "")
	if e := s.takeFault(m.Name); e != nil {
		return nil, "", e
	}
	h := s.handler(m.Name)
	if h == nil {
		h = s.generic(m)
	}
	res, desc, apiErr := h(ctx, b, p)
	if apiErr != nil {
		return nil, "", apiErr
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, "", &Error{Code: 500, Description: "Internal Server Error: " + err.Error()}
	}
	if s.opts.SelfCheck {
		s.report(m.Name, spec.checkResult(m.Name, raw), "emulator result: ")
	}
	return raw, desc, nil
}

// generic serves spec methods the emulator does not model: methods that
// return only Boolean succeed once their required parameters are present;
// anything else is an error the test should notice.
func (s *Server) generic(m *specMethod) handlerFunc {
	return func(_ context.Context, _ *bot, p params) (any, string, *Error) {
		if len(m.Returns) != 1 || m.Returns[0] != "Boolean" {
			s.violate(&Violation{Method: m.Name, Problem: "method is not emulated by telegramtest"})
			return nil, "", badRequest("method is not supported by the emulator")
		}
		for _, f := range m.Fields {
			if f.Required && !p.has(f.Name) {
				return nil, "", badRequest(fmt.Sprintf("parameter %q is required", f.Name))
			}
		}
		return true, "", nil
	}
}

// Violation is a request (or, with SelfCheck, an emulator output) that does
// not conform to the Bot API spec.
type Violation struct {
	Method  string
	Problem string
}

func (v *Violation) Error() string { return v.Method + ": " + v.Problem }

// report records the errors of rep as violations and its warnings.
func (s *Server) report(method string, rep report, prefix string) {
	s.mu.Lock()
	for _, w := range rep.warns {
		s.warnings = append(s.warnings, method+": "+prefix+w)
	}
	s.mu.Unlock()
	for _, e := range rep.errs {
		s.violate(&Violation{Method: method, Problem: prefix + e})
	}
}

func (s *Server) violate(err error) {
	s.mu.Lock()
	s.violations = append(s.violations, err)
	s.mu.Unlock()
	if s.opts.OnViolation != nil {
		s.opts.OnViolation(err)
	}
}

func (s *Server) now() time.Time { return s.opts.Now() }

type envelope struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result,omitempty"`
	ErrorCode   int             `json:"error_code,omitempty"`
	Description string          `json:"description,omitempty"`
	Parameters  *respParams     `json:"parameters,omitempty"`
}

type respParams struct {
	MigrateToChatID int64 `json:"migrate_to_chat_id,omitempty"`
	RetryAfter      int   `json:"retry_after,omitempty"`
}

// writeResponse writes the Bot API envelope; the HTTP status is the
// error_code on errors.
func writeResponse(w http.ResponseWriter, result json.RawMessage, desc string, e *Error) {
	w.Header().Set("Content-Type", "application/json")
	env := envelope{OK: e == nil, Result: result, Description: desc}
	status := http.StatusOK
	if e != nil {
		status = e.Code
		env.ErrorCode, env.Description = e.Code, e.Description
		if e.RetryAfter > 0 || e.MigrateToChatID != 0 {
			env.Parameters = &respParams{MigrateToChatID: e.MigrateToChatID, RetryAfter: e.RetryAfter}
		}
		if e.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
		}
	}
	body, _ := json.Marshal(env)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

func (s *Server) getMe(_ context.Context, b *bot, _ params) (any, string, *Error) {
	return me{
		User:                    b.asUser(),
		CanJoinGroups:           true,
		CanReadAllGroupMessages: b.user.CanReadAllGroupMessages,
	}, "", nil
}
