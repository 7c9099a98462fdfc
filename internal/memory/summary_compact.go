package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/tool"
)

// maxCompactBatch bounds the messages one compaction reads before fitting them to
// InputTokens.
const maxCompactBatch = 1000

const compactInstructions = `You maintain the running summary of a conversation you take part in. ` +
	`Older messages have scrolled out of what you can see; write the summary you will read instead of them. ` +
	`If a previous summary is given, the new summary replaces it: keep everything of it that still matters and add the new messages. ` +
	`Keep names, who said what, decisions, promises, open questions, dates and numbers. ` +
	`Write plain prose in the conversation's language, at most a few paragraphs, without preamble.`

// Compact compacts the chat topic of ref when ref, its newest prompt record, left out
// messages of the session that no rolling summary covers yet and they are worth a summary.
// The new rolling summary covers the previous one and the messages after it, up to the
// oldest message ref still included; raw messages stay stored. It reports whether it wrote
// a summary; a chat busy with another summary is skipped (false, nil).
func (s *Summarizer) Compact(ctx context.Context, ref mynah.PromptRef) (bool, error) {
	var comp prompt.Composition
	if err := json.Unmarshal(ref.Composition, &comp); err != nil {
		return false, fmt.Errorf("chat %d: reading the composition of turn %d: %w", ref.Chat, ref.Turn, err)
	}
	oldest := oldestIncluded(comp)
	if oldest == 0 {
		return false, nil
	}
	if !s.lock(ref.Chat) {
		return false, nil
	}
	defer s.unlock(ref.Chat)

	sess, err := s.store.Session(ctx, s.cfg.Agent, ref.Chat, ref.Thread)
	if err != nil {
		return false, err
	}
	after := sess.Start
	prev, err := s.store.LatestSummary(ctx, s.cfg.Agent, ref.Chat, ref.Thread, mynah.SummaryRolling)
	switch {
	case errors.Is(err, mynah.ErrNotFound), err == nil && prev.First <= sess.Start:
		prev = mynah.Summary{} // none, or of an earlier session: this session starts afresh
	case err != nil:
		return false, err
	default:
		after = max(after, prev.Last)
	}
	msgs, err := s.store.MessagesBetween(ctx, s.cfg.Agent, ref.Chat, ref.Thread, after, oldest, maxCompactBatch)
	if err != nil || len(msgs) == 0 {
		return false, err
	}
	if len(msgs) < s.cfg.MinMessages && s.cfg.Count(s.transcript(msgs)) < s.cfg.MinTokens {
		return false, nil
	}
	batch := s.fitOldest(msgs, s.cfg.InputTokens-s.cfg.Count(prev.Text))

	if s.cfg.Remember != nil {
		claimed, err := s.store.ClaimFlush(ctx, s.cfg.Agent, ref.Chat, ref.Thread, batch[0].ID, s.cfg.Now())
		if err != nil {
			return false, err
		}
		if claimed {
			s.flush(ctx, batch)
		}
	}

	req := llm.Request{System: compactInstructions}
	var in string
	if prev.Text != "" {
		in = fmt.Sprintf("Previous summary (messages %d–%d, %s):\n%s\n\n", prev.First, prev.Last, span(prev.From, prev.To, s.cfg.Location), prev.Text)
	}
	in += "Messages to add:\n" + s.transcript(batch)
	req.Turns = []llm.Turn{llm.Text(llm.User, in)}
	text, err := s.generate(ctx, ref.Chat, req)
	if err != nil {
		return false, err
	}
	sum := mynah.Summary{Agent: s.cfg.Agent, Chat: ref.Chat, Thread: ref.Thread, Kind: mynah.SummaryRolling,
		First: batch[0].ID, Last: batch[len(batch)-1].ID, From: batch[0].Time, To: batch[len(batch)-1].Time,
		Text: text, Model: s.cfg.ModelName, Created: s.cfg.Now()}
	if prev.Text != "" {
		sum.First, sum.From = prev.First, prev.From
	}
	if _, _, err := s.store.AddSummary(ctx, sum); err != nil {
		return false, err
	}
	s.cfg.Logger.Info("summaries: compacted", "agent", s.cfg.Agent, "chat", int64(ref.Chat), "thread", ref.Thread,
		"first", int64(sum.First), "last", int64(sum.Last), "messages", len(batch))
	return true, nil
}

// oldestIncluded is the oldest history message a prompt showed, not counting the target
// when it was pulled in from before the window; 0 when the prompt showed none.
func oldestIncluded(c prompt.Composition) mynah.MessageID {
	var oldest mynah.MessageID
	for _, id := range c.Messages {
		if id == c.Target && len(c.Messages) > 1 {
			continue
		}
		if oldest == 0 || id < oldest {
			oldest = id
		}
	}
	return oldest
}

// maxFlushRounds bounds the model calls of one memory flush.
const maxFlushRounds = 3

const flushInstructions = `Before the messages below scroll out of what you can see, save the lasting facts about the people in them ` +
	`that you will want to remember in later conversations: who they are, what they do, what they like, their plans, ` +
	`things they asked you to remember. Save only what a person said about themselves, one fact per call of the remember tool, ` +
	`with the message_id of the message in which they said it (the number after [# in the messages): the fact is saved about its author. ` +
	`Do not save what is already obvious, passing small talk, or facts about yourself. ` +
	`Nobody sees this turn; when you are done, answer with an empty message.`

// flush is the memory flush: one silent turn in which the model may save facts about the
// people in msgs with the remember tool. Nothing of it reaches the chat; a failure only
// costs facts the summary may still hold, so it is logged, not returned.
func (s *Summarizer) flush(ctx context.Context, msgs []mynah.Message) {
	said := map[mynah.MessageID]mynah.Message{}
	for _, m := range msgs {
		if !m.Outgoing && !m.Sender.IsBot && m.Sender.ID > 0 {
			said[m.ID] = m
		}
	}
	if len(said) == 0 {
		return
	}
	ft := &flushRemember{inner: s.cfg.Remember, said: said}
	last := msgs[len(msgs)-1]
	req := llm.Request{
		Model: s.cfg.ModelID, System: flushInstructions, Tools: []llm.Tool{ft.Spec()}, MaxTokens: s.cfg.ReplyTokens,
		Turns: []llm.Turn{llm.Text(llm.User, s.transcript(msgs))},
	}
	for round := 0; round < maxFlushRounds; round++ {
		resp, err := s.cfg.Model.Generate(ctx, req)
		if err != nil {
			s.cfg.Logger.Warn("summaries: memory flush", "agent", s.cfg.Agent, "chat", int64(last.Chat.ID), "err", err)
			return
		}
		s.recordUsage(ctx, last.Chat.ID, resp.Usage)
		if len(resp.ToolCalls) == 0 {
			return
		}
		call := llm.Turn{Role: llm.Assistant}
		if resp.Text != "" {
			call.Parts = append(call.Parts, llm.Part{Text: resp.Text})
		}
		results := llm.Turn{Role: llm.ToolRole}
		for _, tc := range resp.ToolCalls {
			call.Parts = append(call.Parts, llm.Part{ToolCall: &tc})
			out, err := ft.Run(ctx, tool.Call{Agent: s.cfg.Agent, Chat: last.Chat, Thread: last.ThreadID,
				Args: tc.Arguments, Now: s.cfg.Now()})
			res := &llm.ToolResult{CallID: tc.ID, Name: tc.Name, Content: out}
			if err != nil {
				res.Content, res.IsError = err.Error(), true
			}
			results.Parts = append(results.Parts, llm.Part{ToolResult: res})
		}
		req.Turns = append(req.Turns, call, results)
	}
}

// flushRemember is the remember tool as the memory flush offers it. The turn answers no
// one message, so the model names the message each fact was said in, and the call is the
// regular tool's as if the turn answered that message: the same rule files the fact
// about its author, in that chat's scope. A user_id, if given, must be that author.
type flushRemember struct {
	inner tool.Tool
	said  map[mynah.MessageID]mynah.Message // the messages being compacted, of people
}

func (f *flushRemember) Spec() llm.Tool {
	return llm.Tool{
		Name:        "remember",
		Description: "Save a lasting fact that one person said about themselves in these messages, to remember in later conversations with them. One short, self-contained sentence in the third person.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"message_id":{"type":"integer","description":"The id of the message in which the person said it (the number after [# in the messages); the fact is saved about its author."},` +
			`"fact":{"type":"string","description":"The fact, one sentence."}},"required":["message_id","fact"],"additionalProperties":false}`),
	}
}

func (f *flushRemember) Run(ctx context.Context, c tool.Call) (string, error) {
	var args struct {
		Message mynah.MessageID `json:"message_id"`
		User    mynah.UserID    `json:"user_id"`
		Fact    string          `json:"fact"`
	}
	if err := json.Unmarshal(c.Args, &args); err != nil {
		return "", fmt.Errorf("arguments must be an object with an integer \"message_id\" and a string \"fact\": %v", err)
	}
	m, ok := f.said[args.Message]
	switch {
	case args.Message == 0:
		return "", errors.New("give the message_id of the message in which the person said it")
	case !ok:
		return "", fmt.Errorf("message %d is not one of these messages written by a person", args.Message)
	case args.User != 0 && args.User != m.Sender.ID:
		return "", fmt.Errorf("message %d was written by user %d, not %d: a fact is saved only about the person who said it", args.Message, m.Sender.ID, args.User)
	}
	c.Chat, c.Thread, c.Sender, c.Target = m.Chat, m.ThreadID, m.Sender, m.ID
	c.Args, _ = json.Marshal(map[string]string{"fact": args.Fact})
	return f.inner.Run(ctx, c)
}
