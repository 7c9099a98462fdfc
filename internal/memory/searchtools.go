package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/tool"
)

// SearchTool is the memory_search tool: the model searches the history and the notes of
// the chat it is in, or, with "about": "user", what the person it answers wrote: in their
// private chat, in any chat of the agent (their own words only: other people's messages
// never cross from one chat to another); in a group, in that group only, so that what
// they said in private or in another group stays there.
type SearchTool struct{ searcher *Searcher }

// NewSearchTool returns the memory_search tool over s.
func NewSearchTool(s *Searcher) SearchTool { return SearchTool{searcher: s} }

var _ tool.ReadOnly = SearchTool{}

// ReadOnly marks memory_search as a tool that only reads (tool.ReadOnly).
func (SearchTool) ReadOnly() {}

// Spec describes memory_search to the model.
func (SearchTool) Spec() llm.Tool {
	return llm.Tool{
		Name: "memory_search",
		Description: "Search the earlier history of this chat, beyond what you can see, and your notes, for messages about something. " +
			"Returns the best matches with when each was said, sender, message id (or a note's path and lines) and a score. " +
			"A time in the query (\"last week\", \"in March\", \"before 2023\"; Ukrainian and Russian too) narrows the search to it. " +
			"For a question with several parts (\"how many days in Japan and in Chicago?\"), give one query per part in queries.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"query":{"type":"string","description":"what to look for, in plain words"},` +
			`"queries":{"type":"array","items":{"type":"string"},"maxItems":` + strconv.Itoa(MaxQueries) + `,"description":"several things to look for at once, instead of query; results are merged"},` +
			`"k":{"type":"integer","minimum":1,"maximum":20,"description":"how many results (default 5, or 5 per query up to 20)"},` +
			`"about":{"type":"string","enum":["chat","user"],"description":"chat (default): this chat's history and your notes; user: what the person you are answering wrote (in a private chat: in any chat with you; in a group: in this group)"}}}`),
	}
}

// Run searches the call's chat.
func (t SearchTool) Run(ctx context.Context, c tool.Call) (string, error) {
	var args struct {
		Query   string   `json:"query"`
		Queries []string `json:"queries"`
		K       int      `json:"k"`
		About   string   `json:"about"`
	}
	if err := json.Unmarshal(c.Args, &args); err != nil {
		return "", fmt.Errorf("arguments are not {\"query\": string, \"queries\": [string], \"k\": integer, \"about\": string}: %v", err)
	}
	q := Query{Agent: c.Agent, Chat: c.Chat.ID, Now: c.Now, Typos: true}
	switch args.About {
	case "", "chat":
	case "user":
		if c.Sender.ID == 0 {
			return "", errors.New(`about "user": this turn answers nobody in particular`)
		}
		q.Sender = c.Sender.ID
		if c.Chat.ID == mynah.ChatID(c.Sender.ID) {
			q.Chat = 0 // their private chat: their words anywhere are theirs to see
		}
	default:
		return "", fmt.Errorf(`about must be "chat" or "user", not %q`, args.About)
	}
	var texts []string
	for _, text := range append([]string{args.Query}, args.Queries...) {
		if text = strings.TrimSpace(text); text != "" && !slices.Contains(texts, text) {
			texts = append(texts, text)
		}
	}
	if len(texts) == 0 {
		return "", errors.New("query is empty")
	}
	if len(texts) > MaxQueries {
		return "", fmt.Errorf("%d queries: at most %d at once", len(texts), MaxQueries)
	}
	k := min(max(args.K, 0), 20)
	if k == 0 {
		k = min(5*len(texts), 20)
	}
	q.K = k + 1 // one more: the message the turn answers is left out below
	res, err := t.searcher.SearchMany(ctx, q, texts)
	if err != nil {
		return "", errors.New("memory search failed")
	}
	// The message being answered is the model's already: found again (its words are the
	// question's), it would only take a result's place.
	res = slices.DeleteFunc(res, func(r Result) bool {
		return r.Kind == KindMessage && r.Chat == c.Chat.ID && r.MessageID == c.Target && c.Target != 0
	})
	res = res[:min(k, len(res))]
	if len(res) == 0 {
		for _, text := range texts {
			if !t.searcher.Searchable(text, c.Now) {
				return fmt.Sprintf("No messages found: every word of %q is too common to search for; search for what it was about (a name, a place, a thing).", text), nil
			}
		}
		return "No messages found.", nil
	}
	now := c.Now
	if now.IsZero() {
		now = time.Now()
	}
	var b strings.Builder
	for _, text := range texts {
		if span, ok := t.searcher.Missed(text, now, res); ok {
			fmt.Fprintf(&b, "Found nothing said %s for %q; the results below are from other times.\n", span.Describe(t.searcher.Location()), text)
		}
	}
	for _, r := range res {
		if r.Kind == KindNote {
			fmt.Fprintf(&b, "[note %s] (score %.2f): %s\n", r.Source, r.Score, r.Snippet)
			continue
		}
		where := ""
		if r.Chat != c.Chat.ID {
			where = fmt.Sprintf(" in chat %d", r.Chat)
		}
		fmt.Fprintf(&b, "[%s, #%d%s] %s (score %.2f%s): %s\n", SaidAt(r.Time, now, t.searcher.Location()), r.MessageID,
			where, r.Message.Sender.Name(), r.Score, RepeatsNote(r.Repeats), r.Snippet)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// GetTool is the memory_get tool: one message of the chat with the turns around it, or
// lines of a note (WithNotes).
type GetTool struct {
	store History
	notes *Notes
	loc   *time.Location // the chat's time zone, times are shown in; nil: UTC
}

// WithLocation returns the tool showing times in loc, the chat's time zone.
func (t GetTool) WithLocation(loc *time.Location) GetTool {
	t.loc = loc
	return t
}

// WithNotes returns the tool reading notes' lines too.
func (t GetTool) WithNotes(n *Notes) GetTool {
	t.notes = n
	return t
}

// NewGetTool returns the memory_get tool over store.
func NewGetTool(store History) GetTool { return GetTool{store: store} }

var _ tool.ReadOnly = GetTool{}

// ReadOnly marks memory_get as a tool that only reads (tool.ReadOnly).
func (GetTool) ReadOnly() {}

// Spec describes memory_get to the model.
func (t GetTool) Spec() llm.Tool {
	if t.notes != nil {
		return llm.Tool{
			Name:        "memory_get",
			Description: "Read a message of this chat by its message id, with the messages just before and after it; or lines of one of this chat's notes by its path, as memory_search shows them (path:from-to).",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"message_id":{"type":"integer","description":"the message id, as memory_search shows it after #"},` +
				`"around":{"type":"integer","minimum":0,"maximum":10,"description":"messages to show before and after (default 2)"},` +
				`"path":{"type":"string","description":"a note's path, as memory_search shows it before the colon"},` +
				`"from":{"type":"integer","minimum":1,"description":"the note's first line to read"},` +
				`"to":{"type":"integer","minimum":1,"description":"the note's last line to read"}}}`),
		}
	}
	return llm.Tool{
		Name:        "memory_get",
		Description: "Read a message of this chat by its message id, with the messages just before and after it.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"message_id":{"type":"integer","description":"the message id, as memory_search shows it after #"},` +
			`"around":{"type":"integer","minimum":0,"maximum":10,"description":"messages to show before and after (default 2)"}},` +
			`"required":["message_id"]}`),
	}
}

// Run reads the message and its neighbours from the call's chat.
func (t GetTool) Run(ctx context.Context, c tool.Call) (string, error) {
	var args struct {
		MessageID int64  `json:"message_id"`
		Around    *int   `json:"around"`
		Path      string `json:"path"`
		From      int    `json:"from"`
		To        int    `json:"to"`
	}
	if err := json.Unmarshal(c.Args, &args); err != nil {
		return "", fmt.Errorf("arguments are not {\"message_id\": integer, \"around\": integer}: %v", err)
	}
	if args.Path != "" && t.notes != nil {
		return t.notes.NoteLines(c.Chat.ID, args.Path, args.From, args.To)
	}
	n := 2
	if args.Around != nil {
		n = min(max(*args.Around, 0), 10)
	}
	id := mynah.MessageID(args.MessageID)
	ms, err := t.store.Around(ctx, c.Agent, c.Chat.ID, id, n, n)
	if err != nil {
		return "", errors.New("reading the history failed")
	}
	found := false
	var b strings.Builder
	for _, m := range ms {
		if m.ID == id {
			found = true
			b.WriteString("> ")
		}
		writeLine(&b, m, 0, t.loc)
	}
	if !found {
		return "", fmt.Errorf("message %d is not in this chat's history", id)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// RepeatsNote says how many more times a result's words were said (Result.Repeats), as
// ", said 3 more times"; "" for none.
func RepeatsNote(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return ", said once more"
	}
	return fmt.Sprintf(", said %d more times", n)
}
