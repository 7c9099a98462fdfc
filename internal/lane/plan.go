package lane

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
)

// The plan tools: how the model says what to do besides answering in plain text. Each
// call becomes one task of the turn's plan; nothing is sent while the model is still
// answering, so a plan is carried out whole, in order, once the model has answered.
const (
	toolSend     = "send_message"
	toolSticker  = "send_sticker"
	toolReact    = "react"
	toolWait     = "wait"
	toolSchedule = "schedule"
)

// Limits of what a plan may ask for.
const (
	maxWait     = 30 * time.Second       // one wait task
	maxSchedule = 366 * 24 * time.Hour   // how far ahead a reminder may be set
	typingRate  = 25 * time.Millisecond  // natural typing delay per character…
	maxTyping   = 4 * time.Second        // …at most this long
	minTyping   = 600 * time.Millisecond // and, when on, at least this long
)

// PlanTools are the plan tools' specs, in a stable order. Sticker sets, when the agent
// has some, are named in send_sticker's description.
func PlanTools(stickerSets []string) []llm.Tool {
	deps := `"depends_on": {"type": "array", "items": {"type": "integer"}, "description": "Numbers of earlier tasks that must succeed for this one to happen (tasks run in the order planned either way)."}`
	tools := []llm.Tool{
		{Name: toolSend, Description: "Send a message to this chat. Plain text answers are sent anyway; use this to send several messages, to reply to a specific message, or to order messages with other tasks.",
			Parameters: json.RawMessage(`{"type": "object", "properties": {"text": {"type": "string", "description": "The message, in Markdown."}, "reply_to": {"type": "integer", "description": "message_id of the message to reply to."}, ` + deps + `}, "required": ["text"]}`)},
		{Name: toolReact, Description: "Put an emoji reaction on a message (default: the message you are answering). Allowed: " + reactionList,
			Parameters: json.RawMessage(`{"type": "object", "properties": {"emoji": {"type": "string"}, "message_id": {"type": "integer"}, ` + deps + `}, "required": ["emoji"]}`)},
		{Name: toolWait, Description: fmt.Sprintf("Pause before the next task, showing \"typing…\" when a message follows (at most %d seconds).", int(maxWait.Seconds())),
			Parameters: json.RawMessage(`{"type": "object", "properties": {"seconds": {"type": "number"}, ` + deps + `}, "required": ["seconds"]}`)},
		{Name: toolSchedule, Description: "Send a message to this chat later, e.g. a reminder the user asked for. Give either in_minutes or at.",
			Parameters: json.RawMessage(`{"type": "object", "properties": {"text": {"type": "string", "description": "The message to send then, in Markdown."}, "in_minutes": {"type": "number"}, "at": {"type": "string", "description": "RFC 3339 time, e.g. 2026-05-01T09:00:00+02:00."}}, "required": ["text"]}`)},
	}
	if len(stickerSets) > 0 {
		def, _, _ := strings.Cut(stickerSets[0], "::")
		tools = append(tools, llm.Tool{Name: toolSticker,
			Description: "Send a sticker: name it as the stickers list shows it (Set::emoji), or give its set and emoji. Stickers: " + strings.Join(stickerSets, ", ") + ".",
			Parameters:  json.RawMessage(`{"type": "object", "properties": {"sticker": {"type": "string", "description": "Set::emoji, as listed."}, "set": {"type": "string", "description": "Sticker set name (default: ` + def + `)."}, "emoji": {"type": "string"}, ` + deps + `}}`)})
	}
	return tools
}

// isPlanTool reports whether name is one of the plan tools.
func isPlanTool(name string) bool {
	switch name {
	case toolSend, toolSticker, toolReact, toolWait, toolSchedule:
		return true
	}
	return false
}

// step is one task of a plan as the model asked for it, before it becomes outbox parts.
type step struct {
	kind    mynah.TaskKind
	text    string // send: Markdown; schedule: the reminder's Markdown
	replyTo mynah.MessageID
	set     string
	emoji   string
	target  mynah.MessageID
	wait    time.Duration
	at      time.Time
	deps    []int // indexes of earlier steps
}

// planner collects the steps of one turn's plan from the model's tool calls and text,
// at most maxTasks tool calls and no more reminders than keep the chat at maxReminders
// pending.
type planner struct {
	turn         mynah.Turn
	now          time.Time
	stickerSets  []string
	maxTasks     int
	maxReminders int
	// reminders counts the chat's pending reminders; asked once, at the first schedule.
	reminders func() (int, error)

	steps     []step
	tasks     int // steps planned by tool calls
	scheduled int // reminders already pending, then also those planned; -1: not asked yet
}

// errPlan is a tool call the plan cannot take; its message is for the model.
type errPlan struct{ msg string }

func (e errPlan) Error() string { return e.msg }

// sticker resolves a send_sticker call against the agent's stickers: entries "Set" allow
// every sticker of a set, entries "Set::emoji" one sticker. name ("Set::emoji", as the
// prompt lists stickers) wins over set and emoji; the set defaults to the first entry's.
func (p *planner) sticker(name, set, emoji string) (string, string, error) {
	if len(p.stickerSets) == 0 {
		return "", "", errPlan{"no sticker sets are configured"}
	}
	if n, e, ok := strings.Cut(strings.TrimSpace(name), "::"); ok {
		set, emoji = n, e
	} else if name != "" && emoji == "" {
		emoji = name // a bare emoji
	}
	set, emoji = strings.TrimSpace(set), strings.TrimSpace(emoji)
	if set == "" {
		set, _, _ = strings.Cut(p.stickerSets[0], "::")
	}
	if emoji == "" {
		return "", "", errPlan{"emoji is required"}
	}
	plain := func(s string) string { return strings.ReplaceAll(s, "\ufe0f", "") }
	for _, entry := range p.stickerSets {
		s, e, one := strings.Cut(entry, "::")
		if strings.EqualFold(s, set) && (!one || plain(e) == plain(emoji)) {
			return s, emoji, nil
		}
	}
	return "", "", errPlan{fmt.Sprintf("%s::%s is not one of your stickers: %s", set, emoji, strings.Join(p.stickerSets, ", "))}
}

// add turns one plan tool call into a step and returns what the model is told.
func (p *planner) add(call llm.ToolCall) (string, error) {
	var a struct {
		Text      string   `json:"text"`
		ReplyTo   int64    `json:"reply_to"`
		Emoji     string   `json:"emoji"`
		MessageID int64    `json:"message_id"`
		Set       string   `json:"set"`
		Sticker   string   `json:"sticker"`
		Seconds   float64  `json:"seconds"`
		InMinutes float64  `json:"in_minutes"`
		At        string   `json:"at"`
		DependsOn []int    `json:"depends_on"`
		_         struct{} // unknown keys are ignored: models add their own
	}
	if len(call.Arguments) > 0 {
		if err := json.Unmarshal(call.Arguments, &a); err != nil {
			return "", errPlan{"arguments are not a JSON object: " + err.Error()}
		}
	}
	if p.tasks >= p.maxTasks {
		return "", errPlan{fmt.Sprintf("not planned: one answer may plan at most %d tasks", p.maxTasks)}
	}
	s := step{text: strings.TrimSpace(prompt.StripMeta(a.Text))}
	switch call.Name {
	case toolSend:
		if s.text == "" {
			return "", errPlan{"text is empty"}
		}
		s.kind, s.replyTo = mynah.TaskSend, mynah.MessageID(a.ReplyTo)
	case toolReact:
		emoji, ok := allowedReaction(a.Emoji)
		if !ok {
			return "", errPlan{fmt.Sprintf("%q is not an allowed reaction; use one of: %s", a.Emoji, reactionList)}
		}
		s.kind, s.emoji, s.target = mynah.TaskReact, emoji, mynah.MessageID(a.MessageID)
		if s.target == 0 {
			s.target = p.turn.Target
		}
		if s.target == 0 {
			return "", errPlan{"message_id is required here"}
		}
	case toolWait:
		if a.Seconds <= 0 {
			return "", errPlan{"seconds must be positive"}
		}
		s.kind, s.wait = mynah.TaskWait, min(time.Duration(a.Seconds*float64(time.Second)), maxWait)
	case toolSticker:
		set, emoji, err := p.sticker(a.Sticker, a.Set, a.Emoji)
		if err != nil {
			return "", err
		}
		s.kind, s.set, s.emoji = mynah.TaskSticker, set, emoji
	case toolSchedule:
		if s.text == "" {
			return "", errPlan{"text is empty"}
		}
		at, err := p.when(a.InMinutes, a.At)
		if err != nil {
			return "", err
		}
		if err := p.reminderRoom(); err != nil {
			return "", err
		}
		s.kind, s.at = mynah.TaskSchedule, at
	default:
		return "", errPlan{"unknown tool " + call.Name}
	}
	for _, d := range a.DependsOn {
		if d < 1 || d > len(p.steps) {
			return "", errPlan{fmt.Sprintf("depends_on %d: tasks are numbered from 1 in the order you planned them; %d so far", d, len(p.steps))}
		}
		s.deps = append(s.deps, d-1)
	}
	p.steps = append(p.steps, s)
	p.tasks++
	if s.kind == mynah.TaskSchedule {
		p.scheduled++
		return fmt.Sprintf("task %d planned: the message will be sent at %s", len(p.steps), s.at.Format(time.RFC3339)), nil
	}
	return fmt.Sprintf("task %d planned", len(p.steps)), nil
}

// reminderRoom reports, as an error for the model, when the chat has as many reminders
// pending (planned in this turn included) as it may.
func (p *planner) reminderRoom() error {
	if p.scheduled < 0 {
		n, err := p.reminders()
		if err != nil {
			return errPlan{"reminders cannot be set just now"}
		}
		p.scheduled = n
	}
	if p.scheduled >= p.maxReminders {
		return errPlan{fmt.Sprintf("not planned: this chat already has %d reminders pending, the most it may have", p.scheduled)}
	}
	return nil
}

// when resolves a schedule's time.
func (p *planner) when(inMinutes float64, at string) (time.Time, error) {
	var t time.Time
	switch {
	case at != "":
		parsed, err := time.Parse(time.RFC3339, at)
		if err != nil {
			return t, errPlan{"at is not an RFC 3339 time: " + at}
		}
		t = parsed
	case inMinutes > 0:
		t = p.now.Add(time.Duration(inMinutes * float64(time.Minute)))
	default:
		return t, errPlan{"give in_minutes (positive) or at"}
	}
	if !t.After(p.now) {
		return t, errPlan{"that time has passed; it is now " + p.now.Format(time.RFC3339)}
	}
	if t.Sub(p.now) > maxSchedule {
		return t, errPlan{"that is more than a year ahead"}
	}
	return t, nil
}

// addText adds the model's plain text answer as a send.
func (p *planner) addText(text string) {
	if text = strings.TrimSpace(text); text != "" {
		p.steps = append(p.steps, step{kind: mynah.TaskSend, text: text})
	}
}

// parts turns a plan into outbox parts, keyed turn/<turn id>/<n> in order. A send longer
// than a Telegram message becomes several parts; the turn's first message replies to
// what the turn answers unless the model chose another target; with typing on, a send
// is preceded by a wait as long as typing it would take. Parts run in order; a part
// depends on the last part of each step the model said it depends on, and each further
// piece of a long message on the piece before it.
func (r *Runner) parts(t mynah.Turn, steps []step) []mynah.OutPart {
	var (
		parts   []mynah.OutPart
		last    = make([]string, len(steps)) // key of each step's last part
		replied bool
	)
	add := func(p mynah.OutPart, deps []string) string {
		p.Agent, p.Chat, p.ThreadID = r.agent.Name, t.Chat, t.ThreadID
		p.Key = fmt.Sprintf("turn/%d/%d", t.ID, len(parts))
		p.Created = r.opts.Now()
		p.DependsOn = deps
		parts = append(parts, p)
		return p.Key
	}
	for i, s := range steps {
		var deps []string
		for _, d := range s.deps {
			deps = append(deps, last[d])
		}
		switch s.kind {
		case mynah.TaskSend:
			if r.agent.TypingDelay && t.Static == "" {
				d := min(max(time.Duration(utf8.RuneCountInString(s.text))*typingRate, minTyping), maxTyping)
				deps = []string{add(mynah.OutPart{Kind: mynah.TaskWait, Wait: d}, deps)}
			}
			for j, piece := range r.opts.Format(s.text) {
				p := mynah.OutPart{HTML: piece.HTML, Plain: piece.Plain}
				if j == 0 {
					p.ReplyTo = s.replyTo
					if p.ReplyTo == 0 && !replied {
						p.ReplyTo = t.ReplyTo
					}
					if t.Static != "" {
						p.Buttons, p.Edit = t.Buttons, t.Edit
					} else if !replied && t.Preview != 0 {
						p.Edit = t.Preview // the streamed preview becomes the answer
					}
					replied = true
				}
				deps = []string{add(p, deps)}
			}
		case mynah.TaskSticker:
			deps = []string{add(mynah.OutPart{Kind: s.kind, StickerSet: s.set, Emoji: s.emoji}, deps)}
		case mynah.TaskReact:
			deps = []string{add(mynah.OutPart{Kind: s.kind, Emoji: s.emoji, Target: s.target}, deps)}
		case mynah.TaskWait:
			deps = []string{add(mynah.OutPart{Kind: s.kind, Wait: s.wait}, deps)}
		case mynah.TaskSchedule:
			deps = []string{add(mynah.OutPart{Kind: s.kind, Plain: s.text, At: s.at}, deps)}
		}
		if len(deps) > 0 {
			last[i] = deps[0]
		}
	}
	return parts
}

// reactionList holds the emoji a bot may react with (Bot API ReactionTypeEmoji).
const reactionList = "❤ 👍 👎 🔥 🥰 👏 😁 🤔 🤯 😱 🤬 😢 🎉 🤩 🤮 💩 🙏 👌 🕊 🤡 🥱 🥴 😍 🐳 ❤‍🔥 🌚 🌭 💯 🤣 ⚡ 🍌 🏆 💔 🤨 😐 🍓 🍾 💋 🖕 😈 😴 😭 🤓 👻 👨‍💻 👀 🎃 🙈 😇 😨 🤝 ✍ 🤗 🫡 🎅 🎄 ☃ 💅 🤪 🗿 🆒 💘 🙉 🦄 😘 💊 🙊 😎 👾 🤷‍♂ 🤷 🤷‍♀ 😡"

// allowedReaction reports whether Telegram accepts emoji as a bot's reaction. Models
// often add the emoji variation selector (U+FE0F), which the list leaves out.
func allowedReaction(emoji string) (string, bool) {
	emoji = strings.ReplaceAll(emoji, "\ufe0f", "")
	return emoji, emoji != "" && slices.Contains(strings.Fields(reactionList), emoji)
}
