package main

import (
	"strings"
	"testing"

	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// TestSecondServeRefused: a second `mynah serve` on the same data dir exits with a clear
// message instead of answering every message a second time, while the first keeps
// answering and offline commands keep working beside it.
func TestSecondServeRefused(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.echo()
	h.start()
	out, code := mynahCLI(t, h, "serve", "--config", h.dir)
	if code == 0 || !strings.Contains(out, "another mynah is running on it") {
		t.Fatalf("second serve: exit %d, output:\n%s\nwant a non-zero exit saying another mynah runs on the data dir", code, out)
	}
	if strings.Contains(out, strings.SplitN(telegramtest.DefaultToken, ":", 2)[1]) {
		t.Errorf("the refusal shows the bot token:\n%s", out)
	}
	h.emu.SendPrivate(alice, "still there?")
	h.waitSent(alice.ID, 1)
	if n := len(h.llm.Requests()); n != 1 {
		t.Errorf("%d model calls for one message, want 1", n)
	}
	mustCLI(t, h, "memory", "search", "--config", h.dir, "--query", "still there")
	h.stop()
}
