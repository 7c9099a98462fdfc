package telegram

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	ta "github.com/mymmrac/telego/telegoapi"

	"github.com/mynah-ai/mynah"
)

// Error is an error answer of the Bot API ({"ok":false,"error_code":…}), translated from
// telego's. It never contains the token. Every Bot method that calls the API returns it,
// wrapped, when Telegram answered with an error. It matches the delivery failures of
// package mynah that a caller can act on: errors.Is finds mynah.ErrBadMarkup (400 "can't
// parse entities"), mynah.ErrReplyMissing (400 "message to be replied not found"),
// mynah.ErrBlocked (403: the user blocked the bot, is deactivated or never started it)
// and mynah.ErrRejected (any other 400: the same request cannot succeed); errors.As finds
// a *mynah.RetryAfterError for flood control (429). getFile's 400 "file is too big" also
// matches mynah.ErrFileTooBig.
type Error struct {
	Code        int    // error_code, equal to the HTTP status: 400, 401, 403, 409, 429, …
	Description string // as Telegram wrote it, e.g. "Bad Request: chat not found"
	// RetryAfter is parameters.retry_after of a 429 answer; zero otherwise.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (%d)", e.Description, e.Code)
}

// Is reports whether e is the delivery failure target of package mynah; see Error.
func (e *Error) Is(target error) bool {
	switch target {
	case mynah.ErrBadMarkup:
		return e.badMarkup()
	case mynah.ErrReplyMissing:
		return e.replyMissing()
	case mynah.ErrFileTooBig:
		return e.describes(http.StatusBadRequest, "file is too big")
	case mynah.ErrBlocked:
		return e.describes(http.StatusForbidden, "bot was blocked by the user", "user is deactivated", "can't initiate conversation")
	case mynah.ErrRejected:
		// The refusals with a remedy are not final.
		return e.Code == http.StatusBadRequest && !e.badMarkup() && !e.replyMissing()
	}
	return false
}

// As sets target, a **mynah.RetryAfterError, to the wait Telegram asked for when e is a
// flood-control answer (429).
func (e *Error) As(target any) bool {
	flood, ok := target.(**mynah.RetryAfterError)
	if !ok || e.Code != http.StatusTooManyRequests {
		return false
	}
	*flood = &mynah.RetryAfterError{After: e.RetryAfter}
	return true
}

// badMarkup reports whether Telegram rejected the message's markup; resending the text
// without parse_mode is the remedy.
func (e *Error) badMarkup() bool {
	return e.describes(http.StatusBadRequest, "can't parse entities")
}

// replyMissing reports whether the message to reply to no longer exists; resending without
// reply_parameters is the remedy.
func (e *Error) replyMissing() bool {
	return e.describes(http.StatusBadRequest, "message to be replied not found")
}

// describes reports whether e has code and a description that contains any of parts,
// compared case-insensitively.
func (e *Error) describes(code int, parts ...string) bool {
	if e.Code != code {
		return false
	}
	desc := strings.ToLower(e.Description)
	for _, p := range parts {
		if strings.Contains(desc, p) {
			return true
		}
	}
	return false
}

// fail translates an error of telego or of the caller for method into this package's
// terms: a *Error for API answers, otherwise the error with the token scrubbed.
func (b *Bot) fail(method string, err error) error {
	if apiErr, ok := errors.AsType[*ta.Error](err); ok {
		e := &Error{Code: apiErr.ErrorCode, Description: scrub(apiErr.Description, b.token)}
		if apiErr.Parameters != nil && apiErr.Parameters.RetryAfter > 0 {
			e.RetryAfter = time.Duration(apiErr.Parameters.RetryAfter) * time.Second
		} else if e.Code == http.StatusTooManyRequests {
			e.RetryAfter = retryAfterFromText(e.Description)
		}
		return fmt.Errorf("telegram %s: %w", method, e)
	}
	if re, ok := errors.AsType[*redactedError](err); ok {
		return fmt.Errorf("telegram %s: %w", method, re) // without telego's layers of context
	}
	return fmt.Errorf("telegram %s: %w", method, redact(err, b.token))
}

// retryAfterFromText reads N from "Too Many Requests: retry after N" for the rare 429
// without parameters; it returns zero when there is no number.
func retryAfterFromText(desc string) time.Duration {
	_, after, ok := strings.Cut(desc, "retry after ")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(after))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// apiError returns the *Error in err's chain with the given code.
func apiError(err error, code int) (*Error, bool) {
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Code != code {
		return nil, false
	}
	return e, true
}

// isNotModified reports whether an edit changed nothing (400 "message is not modified").
func isNotModified(err error) bool {
	e, ok := errors.AsType[*Error](err)
	return ok && e.describes(http.StatusBadRequest, "message is not modified")
}
