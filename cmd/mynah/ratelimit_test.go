package main

import (
	"strings"
	"testing"
)

// TestRateLimitSurvivesRestart: a user at the limit is still limited after mynah restarts;
// another user is not, and the limited user's messages are stored all the same.
func TestRateLimitSurvivesRestart(t *testing.T) {
	h := newHarness(t, harnessOptions{Access: "{private: open, rate_limit: {messages: 2, per: 1h}}"})
	h.echo()
	h.start()
	for i, text := range []string{"one", "two"} {
		h.emu.SendPrivate(alice, text)
		h.waitSent(alice.ID, i+1)
	}
	h.stop()

	h.start()
	h.emu.SendPrivate(alice, "three")
	if s := h.waitSent(alice.ID, 3); !strings.Contains(s[2].Text, "faster than") {
		t.Errorf("after the restart, a third message within the hour got %q, want the rate-limit notice", s[2].Text)
	}
	h.emu.SendPrivate(alice, "four") // refused quietly: one notice per burst
	h.emu.SendPrivate(carol, "hello from carol")
	h.waitSent(carol.ID, 1)
	h.delivered()
	h.stop()
	if got := h.texts(alice.ID); len(got) != 3 {
		t.Errorf("replies to alice = %q, want two answers and one notice", got)
	}
	if n := len(h.llm.Requests()); n != 3 {
		t.Errorf("%d model calls, want 3 (alice's two before the restart, carol's one)", n)
	}
	if got := storedTexts(t, h, alice.ID); strings.Join(got, ",") != "one,two,three,four" {
		t.Errorf("alice's stored messages = %q, want all four", got)
	}
}
