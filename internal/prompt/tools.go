package prompt

import (
	"context"
	"strings"

	"github.com/mynah-ai/mynah/internal/llm"
)

// ToolsLayer is the tools-and-stickers layer: which tools the agent may call (their
// specifications reach the model separately, so the layer only names them) and, when the
// agent has sticker sets, each sticker it may send as "Set::emoji — description".
type ToolsLayer struct {
	Tools []llm.Tool
	// Stickers lists the agent's stickers; nil when it has none.
	Stickers func(ctx context.Context, agent string) []string
}

// Names are the tools' names, for the {tools} variable.
func (l ToolsLayer) Names() []string {
	names := make([]string, len(l.Tools))
	for i, t := range l.Tools {
		names[i] = t.Name
	}
	return names
}

// Items implements Source: one item naming the tools, then one per sticker.
func (l ToolsLayer) Items(ctx context.Context, q Query) ([]Item, error) {
	var items []Item
	if len(l.Tools) > 0 {
		items = append(items, Item{ID: "tools", Text: "You can call these tools: " + strings.Join(l.Names(), ", ") + "."})
	}
	if l.Stickers != nil {
		stickers := l.Stickers(ctx, q.Agent)
		if len(stickers) > 0 {
			items = append(items, Item{ID: "stickers", Text: "Stickers you can send with send_sticker, by name:"})
		}
		for _, s := range stickers {
			name, _, _ := strings.Cut(s, " ")
			items = append(items, Item{ID: "sticker:" + name, Text: s})
		}
	}
	return items, nil
}
