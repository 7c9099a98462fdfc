package telegramtest

import (
	"net/http"
	"strconv"
	"strings"
)

// fault is a scripted failure of one call.
type fault struct{ err Error }

// FailNext makes the next n calls of method (case-insensitive) fail with
// status and description in Telegram's envelope. An empty description gets
// the server's wording for status ("Too Many Requests: retry after N" for
// 429). A positive retryAfter is sent as parameters.retry_after and as the
// Retry-After header. Faults apply after the spec check and call log.
func (s *Server) FailNext(method string, n int, status int, description string, retryAfter int) {
	if description == "" {
		switch status {
		case http.StatusTooManyRequests:
			description = "Too Many Requests: retry after " + strconv.Itoa(retryAfter)
		case http.StatusBadRequest:
			description = "Bad Request"
		case http.StatusConflict:
			description = "Conflict"
		default:
			description = http.StatusText(status)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(method)
	for range n {
		s.faults[key] = append(s.faults[key], fault{err: Error{Code: status, Description: description, RetryAfter: retryAfter}})
	}
}

// takeFault pops the next scripted failure of method, if any.
func (s *Server) takeFault(method string) *Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(method)
	q := s.faults[key]
	if len(q) == 0 {
		return nil
	}
	s.faults[key] = q[1:]
	e := q[0].err
	return &e
}

// Block makes the user block every bot: sends to the user's private chat
// fail with 403 "Forbidden: bot was blocked by the user".
func (s *Server) Block(userID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blocked[userID] = true
}

// Unblock undoes Block.
func (s *Server) Unblock(userID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.blocked, userID)
}
