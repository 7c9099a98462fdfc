package llmtest

import (
	"errors"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah/internal/llm"
)

// brokenAnswer is a 200 answer that is not what the API promises; partial says text
// reached onText before the answer broke off.
type brokenAnswer struct {
	name    string
	reply   Reply
	partial bool
}

// brokenAnswers are the broken answers to a call that streams or does not: a proxy's
// HTML page, bodies that are not the format, empty ones, and a stream cut off before
// its end.
func brokenAnswers(stream bool) []brokenAnswer {
	html := Reply{Raw: "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>", RawType: "text/html"}
	if !stream {
		return []brokenAnswer{
			{name: "html page", reply: html},
			{name: "not json", reply: Reply{Raw: "{not json"}},
			{name: "empty object", reply: Reply{Raw: "{}"}},
			{name: "empty body", reply: Reply{RawType: "application/json"}},
		}
	}
	return []brokenAnswer{
		{name: "html page", reply: html},
		{name: "not json", reply: Reply{Raw: "data: {not json\n\n"}},
		{name: "empty object", reply: Reply{Raw: "data: {}\n\n"}},
		{name: "only done", reply: Reply{Raw: "data: [DONE]\n\n"}},
		{name: "empty body", reply: Reply{RawType: "text/event-stream"}},
		{name: "json instead of a stream", reply: Reply{Raw: `{"ok":true}`, RawType: "application/json"}},
		{name: "cut off", reply: Reply{Text: "This answer never ends", Truncate: true}, partial: true},
	}
}

// testMalformed checks that a broken 200 answer is an error like any other — a
// retryable *llm.Error of the provider, without the key — never an empty or partial
// answer, and that llm.WithRetry recovers from it unless
// text already reached the caller, who must not see it twice.
func (c ModelCase) testMalformed(t *testing.T, stream bool) {
	for _, b := range brokenAnswers(stream) {
		t.Run(strings.ReplaceAll(b.name, " ", "_"), func(t *testing.T) {
			srv, m := c.start(t, "")
			srv.Push(b.reply)
			resp, _, err := call(t.Context(), m, stream, userText("x"))
			var le *llm.Error
			if !errors.As(err, &le) {
				t.Fatalf("response %+v, err %v; want an *llm.Error", resp, err)
			}
			if !le.Retryable() || le.Provider != c.Provider {
				t.Errorf("err %v: provider %q, retryable %v; want %q, true", err, le.Provider, le.Retryable(), c.Provider)
			}
			if strings.Contains(err.Error(), c.Key) {
				t.Errorf("error text leaks the key: %v", err)
			}

			srv.Push(b.reply, Reply{Text: "fine"})
			r := llm.WithRetry(m, llm.RetryPolicy{Sleep: noSleep})
			got, frags, err := call(t.Context(), r, stream, userText("x"))
			switch {
			case b.partial && (err == nil || strings.Contains(strings.Join(frags, ""), "fine")):
				t.Errorf("under WithRetry: response %+v, fragments %q, err %v; want the error, not a retry after text was shown", got, frags, err)
			case !b.partial && (err != nil || got.Text != "fine"):
				t.Errorf("under WithRetry: response %+v, err %v; want the retried answer", got, err)
			}
		})
	}
}
