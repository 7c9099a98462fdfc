package openai

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"sync"

	"github.com/mynah-ai/mynah/internal/llm"
)

// toolCache keeps the tool definitions of recent requests encoded. An agent sends the
// same tools with every call; encoded once (checking each schema is a JSON object), the
// array is copied into each body as it is. Safe for concurrent use.
type toolCache struct {
	seed maphash.Seed
	mu   sync.Mutex
	sets map[uint64][]byte
}

// toolSets bounds the tool sets remembered: one per agent, usually.
const toolSets = 64

// get returns tools as the JSON array of the body's "tools", encoded once per distinct
// set. The returned slice is shared: read it only.
func (c *toolCache) get(tools []llm.Tool) ([]byte, error) {
	var h maphash.Hash
	c.mu.Lock()
	if c.sets == nil {
		c.seed = maphash.MakeSeed()
		c.sets = map[uint64][]byte{}
	}
	h.SetSeed(c.seed)
	c.mu.Unlock()
	for _, t := range tools {
		h.WriteString(t.Name)
		h.WriteByte(0)
		h.WriteString(t.Description)
		h.WriteByte(0)
		h.Write(t.Parameters)
		h.WriteByte(0)
	}
	key := h.Sum64()
	c.mu.Lock()
	cached, ok := c.sets[key]
	c.mu.Unlock()
	if ok {
		return cached, nil
	}
	out := []byte{'['}
	for i, t := range tools {
		raw, err := encodeTool(t)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, raw...)
	}
	out = append(out, ']')
	c.mu.Lock()
	if len(c.sets) >= toolSets {
		clear(c.sets)
	}
	c.sets[key] = out
	c.mu.Unlock()
	return out, nil
}

// encodeTool is t as a Chat Completions function tool, as the SDK sent it when handed
// this JSON as the tool's param (body_test.go checks it still is).
func encodeTool(t llm.Tool) (json.RawMessage, error) {
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}
	var params json.RawMessage
	if len(t.Parameters) > 0 {
		var schema map[string]any // an object, as the API requires
		if err := json.Unmarshal(t.Parameters, &schema); err != nil {
			return nil, fmt.Errorf("openai: tool %s: parameters: %w", t.Name, err)
		}
		params = t.Parameters
	}
	raw, err := json.Marshal(struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}{"function", function{t.Name, t.Description, params}})
	if err != nil {
		return nil, fmt.Errorf("openai: tool %s: %w", t.Name, err)
	}
	return raw, nil
}
