package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mynah-ai/mynah"
)

// ignoreUsageMeta leaves out of comparisons what a prompt record's Usage holds besides
// its token counts: the contract keeps the counts, and the record says the rest.
var ignoreUsageMeta = cmpopts.IgnoreFields(mynah.Usage{}, "Agent", "Chat", "Model", "Time")

// sendReply finishes turn with one part per Telegram message id in sent and marks each
// part delivered as that message.
func sendReply(t *testing.T, s mynah.Store, turn mynah.Turn, sent ...mynah.MessageID) {
	t.Helper()
	parts := make([]mynah.OutPart, len(sent))
	for i := range sent {
		parts[i] = part(turn, i, fmt.Sprintf("answer %d, part %d", turn.Target, i))
	}
	stored := finish(t, s, turn.ID, parts)
	if len(stored) != len(sent) {
		t.Fatalf("FinishTurn(%d) returned %d parts, want %d", turn.ID, len(stored), len(sent))
	}
	for i, p := range stored {
		msg := mynah.Message{ID: sent[i], Sender: bot, Time: at(int(sent[i])), Text: p.Plain}
		if err := s.MarkSent(t.Context(), p.ID, msg); err != nil {
			t.Fatalf("MarkSent(%d as %d): %v", p.ID, sent[i], err)
		}
	}
}

// promptRecord returns a record for turn with a composition naming what it says.
func promptRecord(turn mynah.Turn, model, says string, sec int) mynah.PromptRecord {
	return mynah.PromptRecord{Agent: turn.Agent, Chat: turn.Chat, Turn: turn.ID, Model: model,
		Composition: fmt.Appendf(nil, `{"layers":[{"name":"system","tokens":812}],"says":%q,"messages":[%d]}`, says, turn.Target),
		Usage:       mynah.Usage{InputTokens: 1200 + sec, OutputTokens: 80, CachedTokens: 1024},
		Time:        at(sec)}
}

func recordPrompt(t *testing.T, s mynah.Store, rec mynah.PromptRecord) {
	t.Helper()
	if err := s.RecordPrompt(t.Context(), rec); err != nil {
		t.Fatalf("RecordPrompt(%s, turn %d): %v", rec.Agent, rec.Turn, err)
	}
}

// wantPrompt fails the test unless PromptForReply returns want.
func wantPrompt(t *testing.T, s mynah.Store, agent string, chat mynah.ChatID, reply mynah.MessageID, want mynah.PromptRecord) {
	t.Helper()
	got, err := s.PromptForReply(t.Context(), agent, chat, reply)
	if err != nil {
		t.Errorf("PromptForReply(%s, %d, %d): %v", agent, chat, reply, err)
		return
	}
	if diff := cmp.Diff(got, want, cmpOpts, ignoreUsageMeta); diff != "" {
		t.Errorf("PromptForReply(%s, %d, %d) (-got +want):\n%s", agent, chat, reply, diff)
	}
}

// wantNoPrompt fails the test unless PromptForReply reports mynah.ErrNotFound.
func wantNoPrompt(t *testing.T, s mynah.Store, agent string, chat mynah.ChatID, reply mynah.MessageID) {
	t.Helper()
	if got, err := s.PromptForReply(t.Context(), agent, chat, reply); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("PromptForReply(%s, %d, %d) = turn %d, %v; want ErrNotFound", agent, chat, reply, got.Turn, err)
	}
}

// testPromptForReply: every message of a multi-part reply leads to the prompt of its turn,
// in its chat or with chat 0; anything else is not found.
func testPromptForReply(t *testing.T, b Backend) {
	s := b.Open(t)
	turns := queueTurns(t, s, agentA, group, 10, 20)
	sendReply(t, s, turns[0], 11, 12, 13)
	sendReply(t, s, turns[1], 21)
	rec := promptRecord(turns[0], "anthropic/claude", "first", 11)
	recordPrompt(t, s, rec)

	for _, reply := range []mynah.MessageID{11, 12, 13} {
		wantPrompt(t, s, agentA, group.ID, reply, rec)
		wantPrompt(t, s, agentA, 0, reply, rec)
		wantNoPrompt(t, s, agentA, dm.ID, reply)
	}
	wantNoPrompt(t, s, agentA, group.ID, 99) // never sent
	wantNoPrompt(t, s, agentA, group.ID, 10) // the question, not a reply
	wantNoPrompt(t, s, agentA, group.ID, 21) // a reply whose turn has no record
	wantNoPrompt(t, s, agentA, 0, 21)
}

// testPromptNewestReply: with chat 0, a message id sent in two chats leads to the turn of
// the newer part, even when that turn has no record; a chat picks its own.
func testPromptNewestReply(t *testing.T, b Backend) {
	s := b.Open(t)
	older := queueTurns(t, s, agentA, group, 10)[0]
	sendReply(t, s, older, 11)
	newer := queueTurns(t, s, agentA, dm, 5)[0]
	sendReply(t, s, newer, 11)
	inGroup := promptRecord(older, "openai/gpt-4.1", "in the group", 11)
	recordPrompt(t, s, inGroup)

	wantPrompt(t, s, agentA, group.ID, 11, inGroup)
	wantNoPrompt(t, s, agentA, dm.ID, 11)
	wantNoPrompt(t, s, agentA, 0, 11)

	inDM := promptRecord(newer, "openai/gpt-4.1", "in private", 12)
	recordPrompt(t, s, inDM)
	wantPrompt(t, s, agentA, 0, 11, inDM)
	wantPrompt(t, s, agentA, dm.ID, 11, inDM)
	wantPrompt(t, s, agentA, group.ID, 11, inGroup)
}

// testPromptRecordReplaces: recording a turn again (a retried turn) keeps only the latest
// record, which survives a restart.
func testPromptRecordReplaces(t *testing.T, b Backend) {
	s := b.Open(t)
	turn := queueTurns(t, s, agentA, dm, 1)[0]
	sendReply(t, s, turn, 2, 3)
	recordPrompt(t, s, promptRecord(turn, "anthropic/claude", "first try", 2))
	retry := promptRecord(turn, "gemini/flash", "the retry", 3)
	retry.Usage = mynah.Usage{InputTokens: 9, OutputTokens: 8, CachedTokens: 7}
	recordPrompt(t, s, retry)
	wantPrompt(t, s, agentA, dm.ID, 2, retry)
	wantPrompt(t, s, agentA, dm.ID, 3, retry)

	if b.Reopen == nil {
		return
	}
	s = b.Reopen(t, s)
	wantPrompt(t, s, agentA, 0, 3, retry)
}

// testPromptComposition: the composition comes back byte for byte, as the prompt package
// wrote it: key order, spacing, escapes and size untouched.
func testPromptComposition(t *testing.T, b Backend) {
	s := b.Open(t)
	turn := queueTurns(t, s, agentA, group, 1)[0]
	sendReply(t, s, turn, 2)
	for _, c := range []struct{ name, json string }{
		{"spacing and key order", "{ \"z\" : 1,\n\t\"a\":[ ],  \"n\": 1.50e3 }\n"},
		{"escapes and unicode", `{"text":"\u00e9t\u00E9 é 🐦 \"q\" \\ \n","rtl":"שלום","zwj":"👩‍👩‍👧"}`},
		{"nul escape", `{"raw":"a\u0000b"}`},
		{"large", `{"history":"` + strings.Repeat("chirp ", 200_000) + `"}`},
	} {
		rec := promptRecord(turn, "anthropic/claude", c.name, 2)
		rec.Composition = []byte(c.json)
		recordPrompt(t, s, rec)
		got, err := s.PromptForReply(t.Context(), agentA, group.ID, 2)
		if err != nil {
			t.Fatalf("%s: PromptForReply: %v", c.name, err)
		}
		if !bytes.Equal(got.Composition, rec.Composition) {
			t.Errorf("%s: composition changed in storage:\n got %.200q\nwant %.200q", c.name, got.Composition, rec.Composition)
		}
	}
}

// testPromptAgentsIsolated: two agents' bots in one chat, with the same message id, each
// find only their own prompt.
func testPromptAgentsIsolated(t *testing.T, b Backend) {
	s := b.Open(t)
	ta := queueTurns(t, s, agentA, group, 10)[0]
	tb := queueTurns(t, s, agentB, group, 10)[0]
	sendReply(t, s, ta, 11)
	sendReply(t, s, tb, 11)
	// A record of bob's under ada's turn id is not ada's record.
	stray := promptRecord(ta, "gemini/flash", "bob's stray", 13)
	stray.Agent = agentB
	recordPrompt(t, s, stray)
	wantNoPrompt(t, s, agentA, group.ID, 11)

	recA := promptRecord(ta, "anthropic/claude", "ada's", 11)
	recordPrompt(t, s, recA)
	wantPrompt(t, s, agentA, group.ID, 11, recA)
	wantNoPrompt(t, s, agentB, group.ID, 11)
	wantNoPrompt(t, s, agentB, 0, 11)

	recB := promptRecord(tb, "openai/gpt-4.1", "bob's", 12)
	recordPrompt(t, s, recB)
	wantPrompt(t, s, agentB, group.ID, 11, recB)
	wantPrompt(t, s, agentA, 0, 11, recA)
}
