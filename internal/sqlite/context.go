package sqlite

import (
	"database/sql/driver"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"modernc.org/sqlite"

	"github.com/mynah-ai/mynah/internal/stem"
)

// contextFunction is the SQL function that writes a message's previous column in the
// history index (migration 0019): mynah_context(body, time, reply_text, previous) with
// previous a JSON array of [time, text] of the messages before it, nearest first; times
// in Unix milliseconds.
const contextFunction = "mynah_context"

// A message is read with the conversation before it up to contextWords words in all:
// a message of that length or longer stands on its own. Messages more than contextGap
// before it belong to another conversation; the text it replies to is its context
// whenever it was written. memory.DefaultOptions smooths scores between neighbouring
// messages by the same measure.
const (
	contextWords = 100
	contextGap   = time.Hour
)

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(contextFunction, 4, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		at, _ := args[1].(int64)
		var prev []previousMessage
		if s := textArg(args[3]); s != "" {
			var rows [][2]any
			if err := json.Unmarshal([]byte(s), &rows); err != nil {
				return nil, err
			}
			for _, r := range rows {
				t, _ := r[0].(float64)
				text, _ := r[1].(string)
				prev = append(prev, previousMessage{Time: time.UnixMilli(int64(t)), Text: text})
			}
		}
		return conversationBefore(textArg(args[0]), time.UnixMilli(at), textArg(args[2]), prev), nil
	})
}

func textArg(v driver.Value) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

// previousMessage is a message before the one being indexed.
type previousMessage struct {
	Time time.Time
	Text string
}

// conversationBefore is the context a message of body, sent at, is indexed with: the
// last words of reply (the text it replies to) and of prev (the messages before it,
// nearest first; those more than contextGap before it are not its conversation), so that
// body and its context hold contextWords words at most. A message that long has none.
func conversationBefore(body string, at time.Time, reply string, prev []previousMessage) string {
	budget := contextWords - countWords(body)
	if budget <= 0 {
		return ""
	}
	parts := make([]string, 0, 1+len(prev))
	if strings.TrimSpace(reply) != "" {
		parts = append(parts, reply)
	}
	for _, p := range prev {
		if at.Sub(p.Time) > contextGap {
			break
		}
		if p.Text != reply {
			parts = append(parts, p.Text)
		}
	}
	var taken []string
	for _, p := range parts {
		if budget <= 0 {
			break
		}
		tail, n := lastWords(p, budget)
		budget -= n
		if tail != "" {
			taken = append(taken, tail)
		}
	}
	// oldest first, as the conversation went
	for i, j := 0, len(taken)-1; i < j; i, j = i+1, j-1 {
		taken[i], taken[j] = taken[j], taken[i]
	}
	return strings.Join(taken, " ")
}

// countWords counts the words of text as the index's tokenizer splits them.
func countWords(text string) int {
	n, in := 0, false
	for _, r := range text {
		w := stem.IsWordRune(r)
		if w && !in {
			n++
		}
		in = w
	}
	return n
}

// lastWords returns the end of text holding at most n of its words, and how many it holds.
func lastWords(text string, n int) (string, int) {
	count, in := 0, false
	for i := len(text); i > 0; {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		w := stem.IsWordRune(r)
		if !w && in {
			if count == n {
				return text[i:], count
			}
		}
		if w && !in {
			count++
		}
		in = w
		i -= size
	}
	return text, count
}
