package prompt

import (
	"fmt"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

// Section headings of the optional layers in the system instruction.
const (
	toolsTitle     = "Tools and stickers"
	memoryTitle    = "Long-term memory"
	summariesTitle = "Summaries of earlier conversation"
	recallTitle    = "Possibly relevant, recalled from earlier"
)

// DefaultMaxMessages caps the history of one prompt when Input.MaxMessages is zero.
const DefaultMaxMessages = 500

// Input is everything one prompt is built from. Build does no I/O: the caller (see
// Assembler) loads the history and asks the layer sources for their items.
type Input struct {
	// Session names the conversation (llm.Request.Session): agent, chat, topic and the
	// session's start, so a reset starts a new one.
	Session   string
	System    string // the assembled system instruction (see System)
	Tools     []Item // tools and stickers available
	Memory    []Item // curated notes, facts about the people in the chat
	Summaries []Item // summaries of older history, oldest first
	Recall    []Item // items recalled from beyond the window

	Chat    mynah.Chat
	Members int        // members of the chat; 0 when unknown
	Bot     mynah.User // the agent's own account: its messages become assistant turns
	// History holds the session's newest messages, chronological (more than fit is fine).
	History []mynah.Message
	// Quoted holds messages the target's reply chain points to that may lie outside
	// History, nearest first; those not in the window are included as quoted context.
	Quoted []mynah.Message
	// Target is the message to respond to; it is always included and marked.
	Target mynah.MessageID
	// Attachments are the images (or audio) shown with a message, for the target, its
	// album and its reply chain; every other message shows its media as descriptions.
	Attachments map[mynah.MessageID][]llm.Part

	// Budget is the token budget of the whole prompt (context window minus the reply
	// reserve); 0 means unlimited.
	Budget      int
	Shares      Shares // zero value: DefaultShares
	Policy      Policy
	Format      string           // FormatStructured (default) or FormatCompact
	MaxMessages int              // 0 = DefaultMaxMessages
	Count       func(string) int // token counter; nil = Estimate
	Now         time.Time        // for the tail; zero leaves the time out
	Location    *time.Location   // time zone of times shown; nil = UTC

	// room is what the target and its reply chain may cost at most: the budget less the
	// system layer and the tail (set by Build; 0: unlimited).
	room int
}

// LayerUse is what one layer contributed to a prompt.
type LayerUse struct {
	Name    string   `json:"name"`
	Tokens  int      `json:"tokens"`
	Budget  int      `json:"budget,omitempty"` // the layer's share; 0 for the system layer and tail
	Items   []string `json:"items,omitempty"`
	Trimmed []string `json:"trimmed,omitempty"`
}

// Composition records what a prompt contained and why, for `mynah context` and for
// explaining a reply later.
type Composition struct {
	Format   string            `json:"format"`
	Policy   string            `json:"policy"`
	Budget   int               `json:"budget"`
	Tokens   int               `json:"tokens"`
	Layers   []LayerUse        `json:"layers"`
	Messages []mynah.MessageID `json:"messages"`         // history included, chronological
	Quoted   []mynah.MessageID `json:"quoted,omitempty"` // reply-chain context from outside the window
	Target   mynah.MessageID   `json:"target"`
	// Trimmed counts session messages left out for the budget or the message cap;
	// Omitted those left out by the policy (delta, window).
	Trimmed int `json:"trimmed"`
	Omitted int `json:"omitted,omitempty"`
}

// Layer returns the use of the named layer (zero if absent).
func (c Composition) Layer(name string) LayerUse {
	for _, l := range c.Layers {
		if l.Name == name {
			return l
		}
	}
	return LayerUse{Name: name}
}

// Build renders in as a provider-neutral request (System, Context and Turns; the caller
// sets the model and tools). Layers are filled in order within their shares; what they
// leave flows to history. Messages are never split: a message either fits whole or is
// left out, oldest first; the target and its reply chain always stay, and are the only
// messages cut: when one would not fit in the budget left by the system layer and the
// tail, its text is cut to fit and ends with a marker saying how many characters are not
// shown (the stored message stays whole). Each quoted message may take an eighth of that
// room, the target what the chain leaves, and at least half.
func Build(in Input) (llm.Request, Composition) {
	if in.Count == nil {
		in.Count = Estimate
	}
	if in.MaxMessages <= 0 {
		in.MaxMessages = DefaultMaxMessages
	}
	if in.Location == nil {
		in.Location = time.UTC
	}
	if in.Shares == (Shares{}) {
		in.Shares = DefaultShares()
	}
	if in.Policy.Kind == "" {
		in.Policy.Kind = PolicyFull
	}
	if in.Format == "" {
		in.Format = FormatStructured
	}
	comp := Composition{Format: in.Format, Policy: in.Policy.Kind, Budget: in.Budget, Target: in.Target}
	unlimited := in.Budget <= 0

	sysTokens := in.Count(in.System)
	comp.Layers = append(comp.Layers, LayerUse{Name: LayerSystem, Tokens: sysTokens})
	tail := in.tail()
	tailTokens := in.Count(tail)
	if !unlimited {
		in.room = max(in.Budget-sysTokens-tailTokens, 1)
	}

	// The target, its reply chain and the tail are never left out: the optional layers
	// yield to them when the budget is tight.
	avail := in.Budget - sysTokens - tailTokens - in.selectHistory(0).tokens
	layer := func(name, title string, items []Item, share float64, rule trimRule) []Item {
		budget := min(int(share*float64(in.Budget)), max(avail, 0))
		if unlimited {
			budget = int(^uint(0) >> 2)
		}
		header := in.Count(section(title, []Item{{}})) + 2 // the heading and the blank line before it
		kept, trimmed, tokens := fitItems(items, budget-header, rule, in.Count)
		if len(kept) > 0 {
			tokens += header
		}
		use := LayerUse{Name: name, Tokens: tokens, Budget: budget}
		avail -= tokens
		if unlimited {
			use.Budget = 0
		}
		for _, it := range kept {
			use.Items = append(use.Items, it.ID)
		}
		for _, it := range trimmed {
			use.Trimmed = append(use.Trimmed, it.ID)
		}
		comp.Layers = append(comp.Layers, use)
		return kept
	}
	tools := layer(LayerTools, toolsTitle, in.Tools, in.Shares.Tools, trimLast)
	memory := layer(LayerMemory, memoryTitle, in.Memory, in.Shares.Memory, trimLast)
	summaries := layer(LayerSummaries, summariesTitle, in.Summaries, in.Shares.Summaries, trimOldest)
	recall := layer(LayerRecall, recallTitle, in.Recall, in.Shares.Recall, trimLowScore)

	used := sysTokens + tailTokens
	for _, l := range comp.Layers[1:] {
		used += l.Tokens
	}
	historyBudget := in.Budget - used
	if unlimited {
		historyBudget = int(^uint(0) >> 2)
	}
	sel := in.selectHistory(historyBudget)
	comp.Messages, comp.Quoted, comp.Trimmed, comp.Omitted = sel.ids, sel.quotedIDs, sel.trimmed, sel.omitted
	histUse := LayerUse{Name: LayerHistory, Tokens: sel.tokens, Budget: historyBudget}
	if unlimited {
		histUse.Budget = 0
	}
	comp.Layers = append(comp.Layers, histUse, LayerUse{Name: LayerTail, Tokens: tailTokens})

	req := llm.Request{
		System:  joinNonEmpty(in.System, section(toolsTitle, tools)),
		Context: joinNonEmpty(section(memoryTitle, memory), section(summariesTitle, summaries), section(recallTitle, recall)),
		Turns:   sel.turns,
		Session: in.Session,
	}
	if last := len(req.Turns) - 1; last >= 0 && req.Turns[last].Role == llm.User {
		req.Turns[last].Parts = append(req.Turns[last].Parts, llm.Part{Text: tail})
	} else {
		req.Turns = append(req.Turns, llm.Text(llm.User, tail))
	}
	for _, l := range comp.Layers {
		comp.Tokens += l.Tokens
	}
	return req, comp
}

// tail is the volatile end of the prompt: time, chat and the target marker.
func (in *Input) tail() string {
	var b strings.Builder
	if in.Format == FormatCompact {
		return in.compactMarker()
	}
	b.WriteString("[system]")
	if !in.Now.IsZero() {
		b.WriteString(" Now: " + in.Now.In(in.Location).Format("2006-01-02 15:04 MST") + ".")
	}
	if in.Chat.IsGroup() {
		fmt.Fprintf(&b, " Chat: %s %q", in.Chat.Type, in.Chat.Title)
		if in.Members > 0 {
			fmt.Fprintf(&b, ", %d members", in.Members)
		}
		b.WriteString(".")
	} else if in.Chat.Type != "" {
		b.WriteString(" Chat: private.")
	}
	b.WriteString(" ")
	b.WriteString(marker(in.Target))
	return b.String()
}

// Marker is the target marker as it appears at the end of a structured prompt.
func Marker(target mynah.MessageID) string { return "[system] " + marker(target) }

func marker(target mynah.MessageID) string {
	return fmt.Sprintf("Consider responding to message with message_id %d.", target)
}

func joinNonEmpty(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n\n")
}

// render turns one stored message into a conversation turn: the agent's own messages are
// assistant turns with their text; everyone else's (people and other agents) are user
// turns led by a [meta] header.
func (in *Input) render(m *mynah.Message) llm.Turn {
	if in.own(m) {
		return llm.Text(llm.Assistant, Body(m))
	}
	return llm.Turn{Role: llm.User, Parts: []llm.Part{{Text: Meta(m, in.Location)}, {Text: Body(m)}}}
}

func (in *Input) own(m *mynah.Message) bool {
	return m.Outgoing || (in.Bot.ID != 0 && m.Sender.ID == in.Bot.ID)
}

// Body renders a message's content: its media descriptions then its text, with header
// imitations neutralised.
func Body(m *mynah.Message) string {
	var b strings.Builder
	for _, md := range m.Media {
		b.WriteString(Media(md))
		b.WriteString("\n")
	}
	b.WriteString(Neutralize(Clean(m.Text)))
	s := strings.TrimRight(b.String(), "\n")
	if s == "" {
		return "[empty message]"
	}
	return s
}

func turnCost(t llm.Turn, count func(string) int) int {
	return 4 + partsCost(t.Parts, count) // 4: per-message framing overhead of the chat formats
}

func partsCost(parts []llm.Part, count func(string) int) int {
	n := 0
	for _, p := range parts {
		if p.Image != nil || p.Audio != nil {
			n += llm.MediaTokens(p) // providers count media by their own rules
			continue
		}
		n += count(p.Text)
	}
	return n
}
