package lane

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/tool"
)

// finisher is a store that finishes a turn with everything it leaves behind in one
// transaction (mynah.TurnOutcome). Without it a turn's usage, prompt record and plan are
// committed one by one.
type finisher interface {
	FinishTurnWith(ctx context.Context, turnID int64, o mynah.TurnOutcome) ([]mynah.OutPart, error)
}

// handle answers one turn and finishes it, enqueueing its plan atomically with marking it
// done — and, with a finisher store, with the usage of its model calls and the record of
// its prompt: an answered message costs one transaction besides its delivery. It returns
// the parts to deliver. A static turn's plan is its text. The plan is committed before
// anything of it is sent, so a crash at any moment after the commit resends exactly
// these parts, and a crash before it answers the turn anew.
//
// When the store refuses to finish the turn, the answer is kept (in memory) for the next
// try, which then only stores it: a failing store never costs another model call. A turn
// no model answered for now fails with retryLater.
func (r *Runner) handle(ctx context.Context, t mynah.Turn) ([]mynah.OutPart, error) {
	o, kept := r.keptAnswer(t.ID)
	if kept && !shown(ctx) {
		return nil, unanswered{errSuperseded, o.Usage}
	}
	if !kept {
		steps := []step{{kind: mynah.TaskSend, text: t.Static}}
		if t.Static == "" {
			ct := CrewTurn{}
			if r.opts.Crew != nil {
				var err error
				if ct, err = r.opts.Crew.Take(ctx, r.agent.Name, t); err != nil {
					return nil, err
				}
				if ct.Role != CrewNone && !shown(ctx) {
					return nil, errSuperseded // the crew's turns are the crew's to replace
				}
			}
			var err error
			switch ct.Role {
			case CrewTaken:
				steps = nil
			case CrewMember:
				steps, err = r.answerMember(ctx, &t, ct, &o)
			default:
				steps, err = r.answer(ctx, &t, &o)
			}
			if err != nil {
				return nil, unanswered{err, o.Usage}
			}
			if !shown(ctx) {
				// the answer came, but a newer message replaced it first
				return nil, unanswered{errSuperseded, o.Usage}
			}
		}
		o.Parts = r.parts(t, steps)
	}
	f, ok := r.store.(finisher)
	if !ok {
		return r.finishApart(ctx, t, o)
	}
	planned, err := f.FinishTurnWith(ctx, t.ID, o)
	if err != nil {
		r.keepAnswer(t.ID, o)
		return nil, err
	}
	r.forget(t.ID)
	return planned, nil
}

// unanswered ends a turn whose answer was not stored — a newer message replaced it, the
// model call was cancelled or failed — with the usage of the model calls it made before:
// paid for, so recorded all the same (see lane.replaced and lane.run).
type unanswered struct {
	err   error
	usage []mynah.Usage
}

func (e unanswered) Error() string { return e.err.Error() }
func (e unanswered) Unwrap() error { return e.err }

// usageOf returns the usage an unanswered turn's err carries.
func usageOf(err error) []mynah.Usage {
	if u, ok := errors.AsType[unanswered](err); ok {
		return u.usage
	}
	return nil
}

// recordUsage records usage apart from any turn, even as ctx ends (shutdown): the calls
// were paid for.
func (r *Runner) recordUsage(ctx context.Context, usage []mynah.Usage) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	for _, u := range usage {
		if err := r.store.RecordUsage(ctx, u); err != nil {
			r.log.Error("recording usage", "err", err)
		}
	}
}

// finishApart finishes t on a store without FinishTurnWith: the usage and the prompt
// record first (a failure is logged: the reply matters more), then the plan.
func (r *Runner) finishApart(ctx context.Context, t mynah.Turn, o mynah.TurnOutcome) ([]mynah.OutPart, error) {
	r.recordUsage(ctx, o.Usage)
	if o.Prompt != nil {
		if err := r.store.RecordPrompt(ctx, *o.Prompt); err != nil {
			r.log.Error("recording the prompt's composition", "chat", t.Chat, "turn", t.ID, "err", err)
		}
	}
	o.Usage, o.Prompt = nil, nil // recorded: a retry of the finish does not record them again
	stored, err := r.store.FinishTurn(ctx, t.ID, o.Parts)
	if err != nil {
		r.keepAnswer(t.ID, o)
		return nil, err
	}
	r.forget(t.ID)
	return stored, nil
}

// retryLater is the failure of a turn no model answered, within Options.RetryWindow:
// the turn stays queued and is tried again at the time given.
type retryLater struct {
	at  time.Time
	err error
}

func (e retryLater) Error() string {
	return "no model answered; trying again at " + e.at.Format(time.RFC3339) + ": " + e.err.Error()
}

func (e retryLater) Unwrap() error { return e.err }

// answer asks the model about t and returns its plan; the usage of its calls and the
// record of its prompt go into o. The model may call tools: plan tools add tasks, the
// agent's other tools (memory, …) run at once and the model is asked again with their
// results, up to Agent.ToolRounds calls. When no model answers the first
// call and some failure was retryable, the turn fails with retryLater while
// Options.RetryWindow lasts; past it, or after a later call fails, the failure becomes
// the apology (logged) unless the model had planned something already. Store errors are
// returned, so the turn is retried rather than lost.
//
// A preview of the answer that streaming posted is recorded in t.Preview.
func (r *Runner) answer(ctx context.Context, t *mynah.Turn, o *mynah.TurnOutcome) ([]step, error) {
	if err := r.unblock(ctx, t.Chat); err != nil {
		return nil, err
	}
	req, comp, err := r.request(ctx, *t)
	if err != nil {
		return nil, err
	}
	p := &planner{turn: *t, now: r.opts.Now(), stickerSets: r.agent.StickerSets,
		maxTasks: r.agent.MaxTasks, maxReminders: r.agent.MaxReminders, scheduled: -1,
		reminders: func() (int, error) { return r.pendingReminders(ctx, t.Chat) }}
	stopTyping := r.typing(ctx, t.Chat, t.ThreadID)
	defer stopTyping()
	var total mynah.Usage
	for round := 1; ; round++ {
		r.waitingModel.Add(1)
		r.signal() // a lane waiting for the model frees a place for another (see dispatch)
		resp, u, err := r.call(ctx, req, t)
		r.waitingModel.Add(-1)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if memberTurn(ctx) != nil && len(p.steps) == 0 {
				o.Prompt = r.promptRecord(*t, comp, total)
				return nil, memberFailed{err} // the crew skips the member; no apology
			}
			var failed noAnswer
			if errors.As(err, &failed) && failed.retryable && round == 1 {
				if at, ok := r.modelFailed(t.ID, r.opts.Now()); ok {
					r.log.Warn("no model answered; the turn stays queued", "chat", t.Chat, "turn", t.ID, "retry_at", at, "err", err)
					return nil, retryLater{at: at, err: err}
				}
			}
			apology := r.agent.Apology
			if e, ok := errors.AsType[*llm.Error](err); ok && (e.Status == 401 || e.Status == 403) {
				// Trying again cannot help: the operator must fix the key. Say so in the
				// log plainly, and to the user honestly, without the details.
				r.log.Error("the model provider refused the API key: fix the provider's key in the configuration (mynah check --online tries it)",
					"chat", t.Chat, "turn", t.ID, "err", err)
				apology = cmp.Or(r.agent.SetupApology, "Sorry, I can't answer at the moment: my connection to my language model isn't set up right. The person who runs me has been told.")
			} else {
				r.log.Error("model call failed", "chat", t.Chat, "turn", t.ID, "round", round, "err", err)
			}
			o.Prompt = r.promptRecord(*t, comp, total)
			if len(p.steps) == 0 {
				p.addText(apology)
			}
			return p.steps, nil
		}
		o.Usage = append(o.Usage, u)
		total.Agent, total.Chat, total.Model, total.Time = u.Agent, u.Chat, u.Model, u.Time
		total.InputTokens += u.InputTokens
		total.OutputTokens += u.OutputTokens
		total.CachedTokens += u.CachedTokens

		text := prompt.StripMeta(resp.Text)
		p.addText(text)
		results, again := r.runTools(ctx, *t, p, resp.ToolCalls)
		if !again || round >= r.agent.ToolRounds {
			if again {
				r.log.Warn("tool rounds exhausted", "chat", t.Chat, "turn", t.ID, "rounds", round)
			}
			break
		}
		calls := make([]llm.Part, 0, len(resp.ToolCalls)+1)
		if text != "" {
			calls = append(calls, llm.Part{Text: text})
		}
		for _, c := range resp.ToolCalls {
			calls = append(calls, llm.Part{ToolCall: &c})
		}
		req.Turns = append(req.Turns, llm.Turn{Role: llm.Assistant, Parts: calls}, llm.Turn{Role: llm.ToolRole, Parts: results})
	}
	o.Prompt = r.promptRecord(*t, comp, total)
	if len(p.steps) == 0 {
		r.log.Warn("model returned an empty answer", "chat", t.Chat, "turn", t.ID)
	}
	return p.steps, nil
}

// noAnswer is the failure of every model asked for one call: the last one's error (the
// others are logged), and whether some failure was retryable, so that the turn may
// succeed later.
type noAnswer struct {
	err       error
	retryable bool
}

func (e noAnswer) Error() string { return e.err.Error() }
func (e noAnswer) Unwrap() error { return e.err }

// call sends req to the agent's models in order until one answers, each under its own
// ID, and returns the answer and its usage, whose Model is the Name of the model that
// gave it. Every call is reported to Metrics; every failure but the last is logged as it
// moves the call on. When no model answers, the error is a noAnswer, or ctx's error
// when it is done.
func (r *Runner) call(ctx context.Context, req llm.Request, t *mynah.Turn) (*llm.Response, mynah.Usage, error) {
	var failed noAnswer
	for i, m := range r.agent.Models {
		req.Model = m.ID
		started := time.Now()
		resp, err := r.generate(ctx, m.Model, req, t)
		u := mynah.Usage{Agent: r.agent.Name, Chat: t.Chat, Model: m.Name, Time: r.opts.Now()}
		if err == nil {
			u.InputTokens, u.OutputTokens, u.CachedTokens = resp.Usage.InputTokens, resp.Usage.OutputTokens, resp.Usage.CachedTokens
			r.opts.Metrics.ModelCall(nil, u, time.Since(started))
			if m.Observe != nil {
				m.Observe(req, u.InputTokens)
			}
			return resp, u, nil
		}
		if ctx.Err() != nil {
			// Cancelled (a newer message replaced the turn, or shutdown): no failure of
			// the model's, whatever the adapter made of it.
			r.opts.Metrics.ModelCall(ctx.Err(), u, time.Since(started))
			return nil, u, ctx.Err()
		}
		r.opts.Metrics.ModelCall(err, u, time.Since(started))
		var le *llm.Error
		failed.err = fmt.Errorf("model %s: %w", m.Name, err)
		failed.retryable = failed.retryable || errors.As(err, &le) && le.Retryable()
		if i+1 < len(r.agent.Models) {
			r.log.Warn("model call failed; falling back to the next model", "chat", t.Chat, "turn", t.ID,
				"model", m.Name, "next", r.agent.Models[i+1].Name, "err", err)
		}
	}
	return nil, mynah.Usage{}, failed
}

// runTools handles the tool calls of one response: plan tools add to p, other tools run.
// It returns the results for the model and whether the model must be asked again: only
// when a tool it called returned something it has not seen — a response of plan tools
// alone is the whole answer, which costs no second call.
func (r *Runner) runTools(ctx context.Context, t mynah.Turn, p *planner, calls []llm.ToolCall) ([]llm.Part, bool) {
	var (
		results []llm.Part
		again   bool
		call    *tool.Call // built on the first non-plan tool call
	)
	for _, c := range calls {
		res := llm.ToolResult{CallID: c.ID, Name: c.Name}
		if isPlanTool(c.Name) {
			out, err := p.add(c)
			res.Content, res.IsError = out, err != nil
			if err != nil {
				res.Content, again = err.Error(), true // let the model correct the call
				r.log.Info("plan tool call refused", "chat", t.Chat, "turn", t.ID, "tool", c.Name, "err", err)
			}
			results = append(results, llm.Part{ToolResult: &res})
			continue
		}
		again = true
		tl, ok := r.agent.Tools.Lookup(c.Name)
		if !ok {
			res.Content, res.IsError = "no tool is called "+c.Name, true
			results = append(results, llm.Part{ToolResult: &res})
			continue
		}
		// A tool that may change what lasts (remember) makes the turn stay from here; one
		// that only reads (memory_search) leaves it replaceable: a newer message cancels
		// the read with the rest of the turn, and the newer turn reads again.
		if !tool.IsReadOnly(tl) && !shown(ctx) || ctx.Err() != nil {
			res.Content, res.IsError = errSuperseded.Error(), true
			results = append(results, llm.Part{ToolResult: &res})
			continue
		}
		if call == nil {
			call = r.toolCall(ctx, t)
		}
		cl := *call
		cl.Args = c.Arguments
		out, err := tl.Run(ctx, cl)
		res.Content = out
		if err != nil {
			res.Content, res.IsError = err.Error(), true
			r.log.Info("tool call failed", "chat", t.Chat, "turn", t.ID, "tool", c.Name, "err", err)
		}
		results = append(results, llm.Part{ToolResult: &res})
	}
	return results, again
}

// toolCall is the turn as tools see it: the chat and the author of the message answered.
func (r *Runner) toolCall(ctx context.Context, t mynah.Turn) *tool.Call {
	c := &tool.Call{Agent: r.agent.Name, Chat: mynah.Chat{ID: t.Chat}, Thread: t.ThreadID, Target: t.Target, Now: r.opts.Now()}
	if m, err := r.store.Message(ctx, r.agent.Name, t.Chat, t.Target); err == nil {
		c.Chat, c.Sender = m.Chat, m.Sender
	}
	if c.Chat.Type == "" {
		if chat, err := r.store.Chat(ctx, r.agent.Name, t.Chat); err == nil {
			c.Chat = chat
		}
	}
	return c
}

// request builds the model request for t.
func (r *Runner) request(ctx context.Context, t mynah.Turn) (llm.Request, prompt.Composition, error) {
	pt := prompt.Turn{Chat: t.Chat, Thread: t.ThreadID, Target: t.Target}
	ct := memberTurn(ctx)
	if ct != nil {
		pt.Layer, pt.Policy = ct.Layer, ct.Policy
	}
	req, comp, err := r.agent.Prompt.Assemble(ctx, pt)
	if err != nil {
		return llm.Request{}, comp, err
	}
	if ct != nil && len(comp.Messages) > 0 {
		ct.seen = slices.Max(comp.Messages)
	}
	req.MaxTokens = r.agent.ReplyTokens
	req.CacheSystem = true
	req.Tools = r.tools // shared, read-only: the same for every turn
	return req, comp, nil
}

// typing shows "typing…" in the chat until the returned stop function is called, from
// TypingAfter on: an answer ready sooner goes without it, as the Bot API recommends the
// action only "when a response from the bot will take a noticeable amount of time to
// arrive" (and a fast answer spares a call). Telegram shows it for about five seconds,
// so it is repeated every four.
func (r *Runner) typing(ctx context.Context, chat mynah.ChatID, thread int64) (stop func()) {
	loop, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait := time.NewTimer(TypingAfter)
		select {
		case <-loop.Done():
			wait.Stop()
			return
		case <-wait.C:
		}
		// The first indication is not cut short by stop: an answer that comes meanwhile
		// must not overtake it, or Telegram would show "typing…" after the reply.
		first, cancelFirst := context.WithTimeout(ctx, typingTimeout)
		r.sendTyping(first, chat, thread)
		cancelFirst()
		tick := time.NewTicker(4 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-loop.Done():
				return
			case <-tick.C:
				r.sendTyping(loop, chat, thread)
			}
		}
	}()
	return func() { cancel(); <-done }
}

// TypingAfter is how long a turn runs before it shows "typing…".
const TypingAfter = 500 * time.Millisecond

// typingTimeout bounds how long a reply may wait for its first typing indication.
const typingTimeout = 2 * time.Second

func (r *Runner) sendTyping(ctx context.Context, chat mynah.ChatID, thread int64) {
	if err := r.tg.Typing(ctx, chat, thread); err != nil && ctx.Err() == nil {
		r.log.Debug("typing indicator", "chat", chat, "err", err)
	}
}

// promptRecord is what the turn's prompt contained and the model that answered it last
// (u.Model; the first model when none did), for `mynah context explain`; nil, logged, when
// it cannot be encoded: the reply matters more than its explanation.
func (r *Runner) promptRecord(t mynah.Turn, comp prompt.Composition, u mynah.Usage) *mynah.PromptRecord {
	model := u.Model
	if model == "" {
		model = r.agent.Models[0].Name
	}
	data, err := json.Marshal(comp)
	if err != nil {
		r.log.Error("recording the prompt's composition", "chat", t.Chat, "turn", t.ID, "err", err)
		return nil
	}
	return &mynah.PromptRecord{Agent: r.agent.Name, Chat: t.Chat, Turn: t.ID, Model: model,
		Composition: data, Usage: u, Time: r.opts.Now()}
}
