package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/tool"
)

// Remember is the remember tool: the model saves a fact about the user of the turn (the
// author of the message it answers). It cannot save facts about anybody else: a fact
// belongs to the person it is about, who alone can list and forget it, and letting one
// group member file "facts" under another's name would let them rewrite what the agent
// believes about that person. A fact stays where it was said (private in a private chat,
// in the group in a group) unless the model saves it as shared, for the person asked so.
type Remember struct {
	store FactStore
	max   int
}

// NewRemember returns the remember tool storing into store, keeping at most maxFacts per
// user (≤ 0: mynah.DefaultMaxFacts).
func NewRemember(store FactStore, maxFacts int) *Remember {
	return &Remember{store: store, max: maxFacts}
}

// Spec implements tool.Tool.
func (r *Remember) Spec() llm.Tool {
	return llm.Tool{
		Name: "remember",
		Description: "Save a lasting fact about the person whose message you are answering (for example: \"has a cat " +
			"called Miso\", \"prefers to be called Sasha\"). Write one short, self-contained sentence in the third " +
			"person. Save only what they told you about themselves and would want remembered; never save facts about " +
			"anybody else. A fact said in private is shown only in your private chat with them, one said in a group " +
			"only there and in private; save it with scope \"shared\" only when they asked you to remember it " +
			"everywhere. They can see and remove what you saved with /memories.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"fact":{"type":"string","description":"The fact, one sentence, at most ` +
			fmt.Sprint(mynah.MaxFactLength) + ` characters."},` +
			`"scope":{"type":"string","enum":["chat","shared"],"description":"chat (default): shown where it was said (and in private with them); shared: in every chat with them."}},` +
			`"required":["fact"],"additionalProperties":false}`),
	}
}

// Run implements tool.Tool.
func (r *Remember) Run(ctx context.Context, c tool.Call) (string, error) {
	var args struct {
		Fact  string `json:"fact"`
		Scope string `json:"scope"`
	}
	if err := json.Unmarshal(c.Args, &args); err != nil {
		return "", fmt.Errorf("arguments must be an object with a string \"fact\" and an optional \"scope\": %v", err)
	}
	fact, err := newFact(c, args.Fact, args.Scope)
	if err != nil {
		return "", err
	}
	f, added, err := r.store.AddFact(ctx, fact, r.max)
	if err != nil {
		return "", errors.New("the fact could not be saved just now")
	}
	if !added {
		return fmt.Sprintf("Already remembered about %s (fact %d): %s", Person(c.Sender), f.ID, f.Text) + scopeNote(f), nil
	}
	return fmt.Sprintf("Remembered about %s (fact %d): %s", Person(c.Sender), f.ID, f.Text) + scopeNote(f), nil
}

// newFact is the rule of the remember tool, for the model's turns and the memory flush
// alike: the fact is about c.Sender, the author of message c.Target of c.Chat it was
// learned from, who must be a person; its text is one short sentence; its scope is the
// chat's kind (a private chat's fact is private, a group's stays in that group) unless
// scope is "shared".
func newFact(c tool.Call, text, scope string) (mynah.Fact, error) {
	text = strings.TrimSpace(text)
	switch {
	case mynah.NormalizeFactText(text) == "":
		return mynah.Fact{}, errors.New("the fact is empty")
	case utf8.RuneCountInString(text) > mynah.MaxFactLength:
		return mynah.Fact{}, fmt.Errorf("the fact is %d characters long; write it in at most %d", utf8.RuneCountInString(text), mynah.MaxFactLength)
	case c.Sender.ID <= 0 || c.Sender.IsBot:
		return mynah.Fact{}, errors.New("there is no person to remember this about in this turn")
	}
	f := mynah.Fact{Agent: c.Agent, User: c.Sender.ID, Text: text, Chat: c.Chat.ID, Message: c.Target, Created: c.Now}
	switch {
	case scope == "shared":
		f.Scope = mynah.FactShared
	case scope != "" && scope != "chat":
		return mynah.Fact{}, fmt.Errorf(`scope must be "chat" or "shared", not %q`, scope)
	case c.Chat.ID == mynah.ChatID(c.Sender.ID):
		f.Scope = mynah.FactPrivate
	case c.Chat.ID == 0:
		return mynah.Fact{}, errors.New("there is no chat to remember this in")
	default:
		f.Scope = mynah.FactChat
	}
	return f, nil
}

// scopeNote tells the model where a fact outside the private chat is shown; a private
// fact needs no word.
func scopeNote(f mynah.Fact) string {
	switch f.Scope {
	case mynah.FactChat:
		return " (shown only in this chat and in private with them)"
	case mynah.FactShared:
		return " (shared: shown in every chat with them)"
	}
	return ""
}

// Forget is the forget tool: the model removes a fact about the user of the turn, by its
// number or by its text. Like /forget, it reaches only that user's own facts; outside
// their private chat, only those shown in the chat (mynah.Fact.VisibleIn), so that a
// group turn learns nothing of their private facts, not even by a failed match.
type Forget struct {
	store FactStore
}

// NewForget returns the forget tool removing from store.
func NewForget(store FactStore) *Forget { return &Forget{store: store} }

// Spec implements tool.Tool.
func (f *Forget) Spec() llm.Tool {
	return llm.Tool{
		Name: "forget",
		Description: "Remove a saved fact about the person whose message you are answering, when they ask you to " +
			"forget it or it is no longer true. Give the fact's number (shown as \"fact N\" in what you remember) or " +
			"its text. Only that person's own facts can be removed.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"fact_id":{"type":"integer","description":"The number N of \"fact N\"."},` +
			`"text":{"type":"string","description":"The fact's text, or a distinctive part of it, when you do not know its number."}},` +
			`"additionalProperties":false}`),
	}
}

// Run implements tool.Tool.
func (f *Forget) Run(ctx context.Context, c tool.Call) (string, error) {
	var args struct {
		ID   int64  `json:"fact_id"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(c.Args, &args); err != nil {
		return "", fmt.Errorf("arguments must be an object with \"fact_id\" (integer) or \"text\" (string): %v", err)
	}
	if args.ID == 0 && strings.TrimSpace(args.Text) == "" {
		return "", errors.New("give fact_id or text")
	}
	who := Person(c.Sender)
	notHere := fmt.Errorf("%s has no fact %d here; only their own facts shown in this chat can be removed", who, args.ID)
	id := args.ID
	if id == 0 || c.Chat.ID != mynah.ChatID(c.Sender.ID) {
		list, err := f.shown(ctx, c)
		if err != nil {
			return "", err
		}
		if id == 0 {
			if id, err = match(c, list, args.Text); err != nil {
				return "", err
			}
		} else if !slices.ContainsFunc(list, func(x mynah.Fact) bool { return x.ID == id }) {
			return "", notHere
		}
	}
	removed, err := f.store.RemoveFact(ctx, c.Agent, c.Sender.ID, id, "")
	switch {
	case errors.Is(err, mynah.ErrNotFound):
		return "", notHere
	case err != nil:
		return "", errors.New("the fact could not be removed just now")
	}
	return fmt.Sprintf("Forgot about %s (fact %d): %s", who, removed.ID, removed.Text), nil
}

// shown returns the facts of the turn's user that its chat shows.
func (f *Forget) shown(ctx context.Context, c tool.Call) ([]mynah.Fact, error) {
	list, _, err := f.store.ListFacts(ctx, c.Agent, c.Sender.ID, 0, 10*mynah.DefaultMaxFacts)
	if err != nil {
		return nil, errors.New("the facts could not be read just now")
	}
	return slices.DeleteFunc(list, func(x mynah.Fact) bool { return !x.VisibleIn(c.Chat.ID) }), nil
}

// match finds the one fact of list that text names: the fact whose text is text
// (normalised), or else the only one containing it.
func match(c tool.Call, list []mynah.Fact, text string) (int64, error) {
	want := mynah.NormalizeFactText(text)
	var partial []mynah.Fact
	for _, fact := range list {
		norm := mynah.NormalizeFactText(fact.Text)
		if norm == want {
			return fact.ID, nil
		}
		if strings.Contains(norm, want) {
			partial = append(partial, fact)
		}
	}
	switch len(partial) {
	case 0:
		return 0, fmt.Errorf("%s has no fact matching %q", Person(c.Sender), text)
	case 1:
		return partial[0].ID, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d facts match %q; call forget again with one fact_id:", len(partial), text)
	for _, fact := range partial {
		fmt.Fprintf(&b, "\nfact %d: %s", fact.ID, fact.Text)
	}
	return 0, errors.New(b.String())
}
