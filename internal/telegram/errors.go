package telegram

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	ta "github.com/mymmrac/telego/telegoapi"
)

// Error is an error answer of the Bot API ({"ok":false,"error_code":…}), translated from
// telego's. It never contains the token. Every Bot method that calls the API returns it,
// wrapped, when Telegram answered with an error; use errors.As or the Is* helpers.
type Error struct {
	Code        int    // error_code, equal to the HTTP status: 400, 401, 403, 409, 429, …
	Description string // as Telegram wrote it, e.g. "Bad Request: chat not found"
	// RetryAfter is parameters.retry_after of a 429 answer; zero otherwise.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (%d)", e.Description, e.Code)
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

// describes reports whether err is a Telegram error with code whose description contains
// any of parts, compared case-insensitively.
func describes(err error, code int, parts ...string) bool {
	e, ok := apiError(err, code)
	if !ok {
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

// IsParseError reports whether Telegram rejected the message's markup (400 "can't parse
// entities"); resending the text without parse_mode is the remedy.
func IsParseError(err error) bool {
	return describes(err, http.StatusBadRequest, "can't parse entities")
}

// IsReplyNotFound reports whether the message to reply to no longer exists (400 "message to
// be replied not found"); resending without reply_parameters is the remedy.
func IsReplyNotFound(err error) bool {
	return describes(err, http.StatusBadRequest, "message to be replied not found")
}

// IsBlocked reports whether the bot cannot write to the chat's user at all (403: the user
// blocked the bot, is deactivated, or never started it). Retrying will not help.
func IsBlocked(err error) bool {
	return describes(err, http.StatusForbidden,
		"bot was blocked by the user", "user is deactivated", "can't initiate conversation")
}

// isNotModified reports whether an edit changed nothing (400 "message is not modified").
func isNotModified(err error) bool {
	return describes(err, http.StatusBadRequest, "message is not modified")
}

// RetryAfter reports whether err is a flood-control answer (429) and how long Telegram
// asked to wait before the request is repeated.
func RetryAfter(err error) (time.Duration, bool) {
	e, ok := apiError(err, http.StatusTooManyRequests)
	if !ok {
		return 0, false
	}
	return e.RetryAfter, true
}
