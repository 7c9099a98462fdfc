package prompt

import (
	"strings"
	"time"
)

// Layer names, in the order a prompt is assembled: the stable parts first, so provider
// prompt caches hit, the volatile tail last.
const (
	LayerSystem    = "system"    // provider notes, role prompts, agent instructions
	LayerTools     = "tools"     // tools and stickers available
	LayerMemory    = "memory"    // curated notes, facts about the people in this chat
	LayerSummaries = "summaries" // summaries of older history
	LayerRecall    = "recall"    // relevant items recalled from beyond the window
	LayerHistory   = "history"   // recent messages, chronological
	LayerTail      = "tail"      // current time, chat, the target marker
)

// Item is one piece of context a source contributes to a layer.
type Item struct {
	ID    string    // stable reference recorded in the composition, e.g. "fact:12"
	Text  string    // what the model reads
	Score float64   // recall relevance: the lowest-scored items are trimmed first
	Time  time.Time // when the item was written or happened; zero if unknown
}

// Shares split the prompt budget across the optional layers, as fractions of the whole.
// What a layer does not use flows to history; the system layer and the tail are always
// included whole.
type Shares struct {
	Tools     float64
	Memory    float64
	Summaries float64
	Recall    float64
}

// DefaultShares leave most of the budget to history.
func DefaultShares() Shares {
	return Shares{Tools: 0.05, Memory: 0.10, Summaries: 0.10, Recall: 0.10}
}

// History policies.
const (
	// PolicyFull includes everything of the session that fits (the default).
	PolicyFull = "full"
	// PolicyDelta includes only what arrived since the agent last spoke, with a one-line
	// pointer to what is left out.
	PolicyDelta = "delta"
	// PolicyWindow includes the last Window messages; older ones reach the model as summaries.
	PolicyWindow = "window"
)

// Policy chooses which history a turn sees.
type Policy struct {
	Kind   string // PolicyFull when empty
	Window int    // PolicyWindow: how many messages
}

// History formats.
const (
	FormatStructured = "structured" // one turn per message with a [meta] header (the default)
	FormatCompact    = "compact"    // one transcript, "Alice#987654: text" per message
)

// trimRule says which items of a layer go first when it overflows.
type trimRule int

const (
	trimLast     trimRule = iota // keep the order given, drop from the end (tools, memory)
	trimOldest                   // drop the oldest first (summaries)
	trimLowScore                 // drop the lowest score first (recall)
)

// fitItems keeps the items of one layer that fit budget tokens, by the layer's rule,
// preserving the given order among those kept. A zero budget keeps nothing.
func fitItems(items []Item, budget int, rule trimRule, count func(string) int) (kept, trimmed []Item, tokens int) {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	switch rule {
	case trimOldest:
		// newest first
		for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
			order[i], order[j] = order[j], order[i]
		}
		sortStable(order, func(a, b int) bool { return items[a].Time.After(items[b].Time) })
	case trimLowScore:
		sortStable(order, func(a, b int) bool { return items[a].Score > items[b].Score })
	}
	keep := make([]bool, len(items))
	for _, i := range order {
		c := count(items[i].Text) + 2
		if tokens+c > budget {
			continue
		}
		keep[i] = true
		tokens += c
	}
	for i, it := range items {
		if keep[i] {
			kept = append(kept, it)
		} else {
			trimmed = append(trimmed, it)
		}
	}
	return kept, trimmed, tokens
}

// sortStable is an insertion sort: layers hold few items and the order must be stable.
func sortStable(idx []int, less func(a, b int) bool) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && less(idx[j], idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

// section renders a layer's items under a heading for the system instruction.
func section(title string, items []Item) string {
	if len(items) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## ")
	b.WriteString(title)
	for _, it := range items {
		b.WriteString("\n- ")
		// Facts, notes and recalled messages hold what users said: cleaned and
		// neutralised like the history, so none of it reads as a header.
		b.WriteString(strings.ReplaceAll(strings.TrimSpace(Neutralize(Clean(it.Text))), "\n", "\n  "))
	}
	return b.String()
}
