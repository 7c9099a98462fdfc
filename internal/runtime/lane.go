package runtime

import (
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

// lane is the work of one chat (or forum topic) taken from one scan: undelivered parts
// first, then turns in order. Only one lane per key runs at a time, which keeps each chat
// strictly ordered.
type lane struct {
	r     *Runner
	key   laneKey
	parts []mynah.OutPart
	turns []mynah.Turn
}

// backoff is how long a lane waits after a transient failure.
const backoff = 2 * time.Second

// run delivers the pending parts, drops the model turns a newer one makes moot, then
// handles the first turn left and delivers what it enqueued. The runner rescans after
// each lane, so later turns get a fresh view.
func (l *lane) run(ctx context.Context) laneResult {
	res := laneResult{key: l.key}
	parts := l.replan(ctx)
	if !l.deliverAll(ctx, parts, &res) {
		return res
	}
	// Replanning: the newest model turn sees the whole history, so the older ones of the
	// lane are finished without a model call — a burst of messages gets one answer.
	last := -1
	for i, t := range l.turns {
		if t.Static == "" {
			last = i
		}
	}
	var turns []mynah.Turn
	for i, t := range l.turns {
		if t.Static != "" || i == last {
			turns = append(turns, t)
			continue
		}
		if _, err := l.r.store.FinishTurn(ctx, t.ID, nil); err != nil {
			l.r.log.Error("finishing superseded turn", "chat", l.key.chat, "err", err)
			res.retry = l.r.opts.Now().Add(backoff)
			return res
		}
	}
	if len(turns) == 0 {
		return res
	}
	turn := turns[0]
	if l.r.opts.Now().Before(turn.NotBefore) {
		res.retry, res.held = turn.NotBefore, turn.ID // the rest of a split message may still come
		return res
	}
	planned, err := l.r.handle(ctx, turn)
	if err != nil {
		l.r.log.Error("turn failed, will retry", "chat", l.key.chat, "turn", turn.ID, "err", err)
		res.retry = l.r.opts.Now().Add(backoff)
		return res
	}
	l.deliverAll(ctx, planned, &res)
	return res
}

// replan drops what an earlier plan of the lane still waits to do when a newer message
// is to be answered: the new turn sees the whole conversation and plans afresh, so a
// plan pausing in a wait does not carry on as if nothing was said. Only the parts from
// the first pending wait of an older turn onwards go; a reply already under way (the
// rest of a long message) is finished. It returns the parts left to deliver.
func (l *lane) replan(ctx context.Context) []mynah.OutPart {
	var newest int64
	for _, t := range l.turns {
		if t.Static == "" {
			newest = t.ID
		}
	}
	cut := slices.IndexFunc(l.parts, func(p mynah.OutPart) bool {
		return p.Kind == mynah.TaskWait && p.TurnID != 0 && p.TurnID < newest
	})
	if newest == 0 || cut < 0 {
		return l.parts
	}
	var keep []mynah.OutPart
	dropped := 0
	for i, p := range l.parts {
		if i < cut || p.TurnID == 0 || p.TurnID >= newest {
			keep = append(keep, p)
			continue
		}
		l.r.endWait(p.ID)
		if err := l.r.store.MarkFailed(ctx, p.ID, "replaced by the plan for a newer message"); err != nil {
			l.r.log.Error("dropping a replaced plan", "chat", l.key.chat, "part", p.Key, "err", err)
			keep = append(keep, p)
			continue
		}
		dropped++
	}
	l.r.log.Info("newer message: dropped the rest of the earlier plan", "chat", l.key.chat, "tasks", dropped)
	return keep
}

// deliverAll carries out parts in order. A part whose dependency was given up is given up
// too; a part Telegram rejects for good is given up and the rest goes on. On another
// failure the part is tried again after Agent.TaskRetryDelay (res.retry is set), and
// past Agent.TaskRetries tries the lane's whole plan is dropped — later tasks may depend
// on the failed one — and the lane waits for the next message. It reports whether the
// lane may go on to its turns.
func (l *lane) deliverAll(ctx context.Context, parts []mynah.OutPart, res *laneResult) bool {
	r := l.r
	failed := map[string]bool{}
	for i, p := range parts {
		if slices.ContainsFunc(p.DependsOn, func(k string) bool { return failed[k] }) {
			r.opts.Metrics.Task(kindOf(p), "dropped")
			r.giveUp(ctx, p, "a task it depends on failed")
			failed[p.Key] = true
			continue
		}
		var next *mynah.OutPart
		if i+1 < len(parts) {
			next = &parts[i+1]
		}
		err := r.perform(ctx, p, next)
		var w waiting
		switch {
		case err == nil:
			r.opts.Metrics.Task(kindOf(p), "done")
			continue
		case errors.As(err, &w):
			res.retry, res.held = w.until, p.TurnID // a newer message ends the wait early
			return false
		case errors.Is(err, ErrBlocked):
			r.dropBlocked(ctx, parts[i:])
			return false
		case ctx.Err() != nil:
			return false
		case errors.Is(err, ErrRejected):
			r.log.Warn("telegram rejected a task; giving it up", "chat", l.key.chat, "part", p.Key, "kind", kindOf(p), "err", err)
			r.opts.Metrics.Task(kindOf(p), "rejected")
			r.giveUp(ctx, p, err.Error())
			failed[p.Key] = true
			continue
		}
		r.opts.Metrics.Task(kindOf(p), "retried")
		n, rerr := r.store.RetryPart(ctx, p.ID, err.Error())
		if rerr != nil {
			r.log.Error("counting a failed task", "chat", l.key.chat, "part", p.Key, "err", rerr)
		}
		if n >= r.agent.TaskRetries {
			r.log.Error("task failed for good; dropping the rest of the plan", "chat", l.key.chat, "part", p.Key,
				"kind", kindOf(p), "attempts", n, "tasks", len(parts)-i, "err", err)
			for _, q := range parts[i:] {
				r.opts.Metrics.Task(kindOf(q), "dropped")
				r.giveUp(ctx, q, fmt.Sprintf("task %s failed %d times: %v", p.Key, n, err))
			}
			return true
		}
		r.log.Warn("task failed, will retry", "chat", l.key.chat, "part", p.Key, "kind", kindOf(p),
			"attempt", n, "of", r.agent.TaskRetries, "err", err)
		res.retry = r.opts.Now().Add(r.agent.TaskRetryDelay)
		return false
	}
	return true
}

// giveUp marks p failed with reason.
func (r *Runner) giveUp(ctx context.Context, p mynah.OutPart, reason string) {
	r.endWait(p.ID)
	if err := r.store.MarkFailed(ctx, p.ID, reason); err != nil {
		r.log.Error("marking a task failed", "part", p.Key, "err", err)
	}
}

func kindOf(p mynah.OutPart) mynah.TaskKind {
	if p.Kind == "" {
		return mynah.TaskSend
	}
	return p.Kind
}

// handle answers one turn and enqueues its plan, atomically with finishing it, returning
// the parts to deliver. A static turn's plan is its text.
func (r *Runner) handle(ctx context.Context, t mynah.Turn) ([]mynah.OutPart, error) {
	steps := []step{{kind: mynah.TaskSend, text: t.Static}}
	if t.Static == "" {
		var err error
		if steps, err = r.answer(ctx, &t); err != nil {
			return nil, err
		}
	}
	return r.store.FinishTurn(ctx, t.ID, r.parts(t, steps))
}

// answer asks the model about t and returns its plan. The model may call tools: plan
// tools add tasks, the agent's other tools (memory, …) run at once and the model is asked
// again with their results, up to Agent.ToolRounds calls. A provider failure becomes the
// apology (logged) unless the model had planned something already; only store errors are
// returned, so the turn is retried rather than lost.
//
// A preview of the answer that streaming posted is recorded in t.Preview.
func (r *Runner) answer(ctx context.Context, t *mynah.Turn) ([]step, error) {
	if blocked, err := r.store.Blocked(ctx, r.agent.Name, t.Chat); err == nil && blocked {
		// A new message from the user means they unblocked the bot.
		if err := r.store.SetBlocked(ctx, r.agent.Name, t.Chat, false); err != nil {
			return nil, err
		}
	}
	req, comp, err := r.request(ctx, *t)
	if err != nil {
		return nil, err
	}
	p := &planner{turn: *t, now: r.opts.Now(), stickerSets: r.agent.StickerSets}
	stopTyping := r.typing(ctx, t.Chat, t.ThreadID)
	defer stopTyping()
	var total mynah.Usage
	for round := 1; ; round++ {
		started := time.Now()
		resp, err := r.generate(ctx, req, t)
		if err != nil {
			r.opts.Metrics.ModelCall(err, mynah.Usage{}, time.Since(started))
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			r.log.Error("model call failed", "chat", t.Chat, "turn", t.ID, "model", r.agent.ModelName, "round", round, "err", err)
			r.recordPrompt(ctx, *t, comp, total)
			if len(p.steps) == 0 {
				p.addText(r.agent.Apology)
			}
			return p.steps, nil
		}
		u := mynah.Usage{
			Agent: r.agent.Name, Chat: t.Chat, Model: r.agent.ModelName,
			InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens,
			CachedTokens: resp.Usage.CachedTokens, Time: r.opts.Now(),
		}
		r.opts.Metrics.ModelCall(nil, u, time.Since(started))
		if err := r.store.RecordUsage(ctx, u); err != nil {
			r.log.Error("recording usage", "err", err)
		}
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
	r.recordPrompt(ctx, *t, comp, total)
	if len(p.steps) == 0 {
		r.log.Warn("model returned an empty answer", "chat", t.Chat, "turn", t.ID)
	}
	return p.steps, nil
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
	req, comp, err := r.agent.Prompt.Assemble(ctx, prompt.Turn{Chat: t.Chat, Thread: t.ThreadID, Target: t.Target})
	if err != nil {
		return llm.Request{}, comp, err
	}
	req.Model = r.agent.ModelID
	req.MaxTokens = r.agent.ReplyTokens
	req.CacheSystem = true
	req.Tools = append(planTools(r.agent.StickerSets), r.agent.Tools.Specs()...)
	return req, comp, nil
}

// typing shows "typing…" in the chat until the returned stop function is called; Telegram
// shows it for about five seconds, so it is repeated every four.
func (r *Runner) typing(ctx context.Context, chat mynah.ChatID, thread int64) (stop func()) {
	loop, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// The first indication is not cut short by stop: a fast answer must not overtake
		// it, or Telegram would show "typing…" after the reply.
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

// typingTimeout bounds how long a reply may wait for its first typing indication.
const typingTimeout = 2 * time.Second

func (r *Runner) sendTyping(ctx context.Context, chat mynah.ChatID, thread int64) {
	if err := r.tg.Typing(ctx, chat, thread); err != nil && ctx.Err() == nil {
		r.log.Debug("typing indicator", "chat", chat, "err", err)
	}
}

// recordPrompt keeps what the turn's prompt contained, for `mynah context explain`. A
// failure to record is logged, never fatal: the reply matters more than its explanation.
func (r *Runner) recordPrompt(ctx context.Context, t mynah.Turn, comp prompt.Composition, u mynah.Usage) {
	data, err := json.Marshal(comp)
	if err == nil {
		err = r.store.RecordPrompt(ctx, mynah.PromptRecord{
			Agent: r.agent.Name, Chat: t.Chat, Turn: t.ID, Model: r.agent.ModelName,
			Composition: data, Usage: u, Time: r.opts.Now(),
		})
	}
	if err != nil {
		r.log.Error("recording the prompt's composition", "chat", t.Chat, "turn", t.ID, "err", err)
	}
}
