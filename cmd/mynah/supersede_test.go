package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// pendingTurns opens the stopped harness's store and returns how many turns are
// unfinished.
func pendingTurns(t *testing.T, h *harness) int {
	t.Helper()
	db, err := sqlite.Open(t.Context(), filepath.Join(h.dir, "data", "mynah.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ts, err := db.PendingTurns(t.Context(), "Mynah", time.Now(), 100)
	if err != nil {
		t.Fatal(err)
	}
	return len(ts)
}

// TestNewerMessageReplacesRunningTurn: with the defaults (no debounce), a second message
// of the same user arriving while the model still writes the answer to the first, with
// nothing of it shown, cancels that call: one reply comes, written by a call that saw
// both messages; both are stored and no turn is left unfinished.
func TestNewerMessageReplacesRunningTurn(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		if strings.Contains(r.LastUserText(), "is the museum open") {
			return llmtest.Reply{Text: "an answer to half the question", Delay: time.Hour} // until cancelled
		}
		return llmtest.Reply{Text: "yes, on sundays too"}
	})
	h.start()
	h.emu.SendPrivate(alice, "is the museum open")
	h.waitRequests(1)
	h.emu.SendPrivate(alice, "on sundays I mean")
	sent := h.waitSent(alice.ID, 1)
	if !h.waitLog("a newer message replaced the turn") {
		t.Error("the replacement was not logged")
	}
	h.stop()

	if len(sent) != 1 || sent[0].Text != "yes, on sundays too" {
		t.Errorf("sent %q, want the one answer to both messages", h.texts(alice.ID))
	}
	reqs := h.llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want the cancelled one and the answering one", len(reqs))
	}
	if text := requestText(reqs[1]); !strings.Contains(text, "is the museum open") || !strings.Contains(text, "on sundays I mean") {
		t.Errorf("the answering call did not see both messages:\n%s", text)
	}
	if got := storedTexts(t, h, alice.ID); strings.Join(got, " | ") != "is the museum open | on sundays I mean" {
		t.Errorf("stored %q, want both messages", got)
	}
	if n := pendingTurns(t, h); n != 0 {
		t.Errorf("%d turns left unfinished", n)
	}
}

// TestAnsweredMessageIsNotReplaced: a second message after the first one's answer was
// delivered gets its own answer, after the first.
func TestAnsweredMessageIsNotReplaced(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.echo()
	h.start()
	h.emu.SendPrivate(alice, "first")
	h.waitSent(alice.ID, 1)
	h.emu.SendPrivate(alice, "second")
	h.waitSent(alice.ID, 2)
	h.stop()
	if got := h.texts(alice.ID); strings.Join(got, " | ") != "re: first | re: second" {
		t.Errorf("sent %q, want both answers in order", got)
	}
}

// TestOtherMemberDoesNotReplace: in a group, another member's message arriving while the
// model answers the first member waits its turn: both are answered, in order, and no
// call is cancelled.
func TestOtherMemberDoesNotReplace(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		if strings.Contains(requestText(r), "how is the weather") {
			return llmtest.Reply{Text: "sunny"}
		}
		return llmtest.Reply{Text: "noon", Delay: time.Second} // still writing when Bob's message comes
	})
	h.start()
	group := telegramtest.Supergroup(-100321, "Club")
	h.emu.SendGroup(group, alice, "Mynah, what time is it")
	h.waitRequests(1)
	h.emu.SendGroup(group, bob, "Mynah, how is the weather")
	h.waitSent(group.ID, 2)
	h.stop()
	if got := h.texts(group.ID); strings.Join(got, " | ") != "noon | sunny" {
		t.Errorf("sent %q, want both members answered in order", got)
	}
	if n := len(h.llm.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2 (none cancelled)", n)
	}
	if strings.Contains(h.logs.String(), "a newer message replaced the turn") {
		t.Error("another member's message replaced a turn")
	}
}

// TestKeepWritingStillAnswered: a user who keeps writing, each message arriving while
// the slow model still answers the one before, gets an answer while still writing:
// turns are replaced only so many in a row.
func TestKeepWritingStillAnswered(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Reply{Text: "re: " + lastPlainLine(r.LastUserText()), Delay: 3 * time.Second}
	})
	h.start()
	const most = 30
	sent := 0
	for sent < most && len(h.emu.Sent(alice.ID)) == 0 {
		sent++
		h.emu.SendPrivate(alice, "thought "+strconv.Itoa(sent))
		time.Sleep(700 * time.Millisecond)
	}
	if sent == most {
		t.Fatalf("no answer while the user wrote %d messages\n%s", most, h.logs.String())
	}
	h.waitSent(alice.ID, 2) // what came after the answered turn is answered too
	h.stop()
	if n := strings.Count(h.logs.String(), "a newer message replaced the turn"); n == 0 {
		t.Error("no turn was replaced: the test did not exercise the cap")
	}
}
