// Package tool is what the model can call during a turn: the Tool interface, the Call a
// tool runs with, and Registry, the set of tools one agent offers. Tools that act on the
// chat (send_message, react, …) are not tools here: the runtime turns them into the
// turn's plan. Tools here answer the model at once (remember, memory_search, …).
package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

// Call is one invocation: the arguments the model gave, and the turn it happened in.
type Call struct {
	Agent  string
	Chat   mynah.Chat
	Thread int64
	// Sender is the author of the message the turn answers: "the user" of the turn, the
	// owner of facts a tool records.
	Sender mynah.User
	Target mynah.MessageID
	Args   json.RawMessage
	Now    time.Time
}

// Tool is one function the model may call. Run's string result is what the model reads
// next; an error is reported to the model as a failed call (never to the chat), so the
// message must be fit for the model and carry no secrets.
type Tool interface {
	Spec() llm.Tool
	Run(ctx context.Context, c Call) (string, error)
}

// ReadOnly is implemented by a tool that changes nothing that lasts: it only reads (a
// search, a lookup), so running it again gives the same answer and cancelling it loses
// nothing. A turn whose tools were all read-only may still be replaced by a newer message
// of its chat; one that ran any other tool (remember, note, …) stays.
type ReadOnly interface {
	Tool
	ReadOnly()
}

// IsReadOnly reports whether t only reads (see ReadOnly).
func IsReadOnly(t Tool) bool {
	_, ok := t.(ReadOnly)
	return ok
}

// Registry is the set of tools an agent offers, in a stable order (a stable prompt keeps
// provider caches warm). The zero value is empty and usable.
type Registry struct {
	tools []Tool
}

// NewRegistry returns a registry of tools; a second tool of the same name is an error.
func NewRegistry(tools ...Tool) (Registry, error) {
	seen := map[string]bool{}
	for _, t := range tools {
		name := t.Spec().Name
		if seen[name] {
			return Registry{}, fmt.Errorf("tool %q registered twice", name)
		}
		seen[name] = true
	}
	return Registry{tools: tools}, nil
}

// Specs returns the tools as the model is told about them.
func (r Registry) Specs() []llm.Tool {
	specs := make([]llm.Tool, len(r.tools))
	for i, t := range r.tools {
		specs[i] = t.Spec()
	}
	return specs
}

// Lookup returns the tool called name.
func (r Registry) Lookup(name string) (Tool, bool) {
	for _, t := range r.tools {
		if t.Spec().Name == name {
			return t, true
		}
	}
	return nil, false
}

// Len is the number of tools.
func (r Registry) Len() int { return len(r.tools) }
