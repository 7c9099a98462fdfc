package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
// believes about that person.
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
		Description: "Save a lasting fact about the person whose message you are answering, to remember in " +
			"every chat with them (for example: \"has a cat called Miso\", \"prefers to be called Sasha\"). " +
			"Write one short, self-contained sentence in the third person. Save only what they told you about " +
			"themselves and would want remembered; never save facts about anybody else. They can see and remove " +
			"what you saved with /memories.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"fact":{"type":"string","description":"The fact, one sentence, at most ` +
			fmt.Sprint(mynah.MaxFactLength) + ` characters."}},"required":["fact"],"additionalProperties":false}`),
	}
}

// Run implements tool.Tool.
func (r *Remember) Run(ctx context.Context, c tool.Call) (string, error) {
	var args struct {
		Fact string `json:"fact"`
	}
	if err := json.Unmarshal(c.Args, &args); err != nil {
		return "", fmt.Errorf("arguments must be an object with a string \"fact\": %v", err)
	}
	text := strings.TrimSpace(args.Fact)
	switch {
	case mynah.NormalizeFactText(text) == "":
		return "", errors.New("the fact is empty")
	case utf8.RuneCountInString(text) > mynah.MaxFactLength:
		return "", fmt.Errorf("the fact is %d characters long; write it in at most %d", utf8.RuneCountInString(text), mynah.MaxFactLength)
	case c.Sender.ID <= 0 || c.Sender.IsBot:
		return "", errors.New("there is no person to remember this about in this turn")
	}
	f, added, err := r.store.AddFact(ctx, mynah.Fact{
		Agent: c.Agent, User: c.Sender.ID, Text: text, Chat: c.Chat.ID, Message: c.Target, Created: c.Now,
	}, r.max)
	if err != nil {
		return "", errors.New("the fact could not be saved just now")
	}
	if !added {
		return fmt.Sprintf("Already remembered about %s (fact %d): %s", Person(c.Sender), f.ID, f.Text), nil
	}
	return fmt.Sprintf("Remembered about %s (fact %d): %s", Person(c.Sender), f.ID, f.Text), nil
}

// Forget is the forget tool: the model removes a fact about the user of the turn, by its
// number or by its text. Like /forget, it reaches only that user's own facts.
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
	who := Person(c.Sender)
	id := args.ID
	if id == 0 {
		if strings.TrimSpace(args.Text) == "" {
			return "", errors.New("give fact_id or text")
		}
		var err error
		if id, err = f.match(ctx, c, args.Text); err != nil {
			return "", err
		}
	}
	removed, err := f.store.RemoveFact(ctx, c.Agent, c.Sender.ID, id, "")
	switch {
	case errors.Is(err, mynah.ErrNotFound):
		return "", fmt.Errorf("%s has no fact %d; only their own facts can be removed", who, id)
	case err != nil:
		return "", errors.New("the fact could not be removed just now")
	}
	return fmt.Sprintf("Forgot about %s (fact %d): %s", who, removed.ID, removed.Text), nil
}

// match finds the one fact of the turn's user that text names: the fact whose text is
// text (normalised), or else the only one containing it.
func (f *Forget) match(ctx context.Context, c tool.Call, text string) (int64, error) {
	list, _, err := f.store.ListFacts(ctx, c.Agent, c.Sender.ID, 0, 10*mynah.DefaultMaxFacts)
	if err != nil {
		return 0, errors.New("the facts could not be read just now")
	}
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
