package ingest

import (
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
)

// TestForgedPress: a press whose data names the presser, on a message that answered
// somebody else, is refused and changes nothing: the data comes from the presser's client
// and can be forged; what the message replies to comes from Telegram.
func TestForgedPress(t *testing.T) {
	r := newMemoriesRig(t, access.Policy{})
	r.facts.add(alice.ID, "alice's secret")
	r.facts.add(carol.ID, "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven")
	for i := range r.facts.facts { // carol told the group: her list pages there
		if f := &r.facts.facts[i]; f.User == carol.ID {
			f.Chat, f.Scope = group.ID, mynah.FactChat
		}
	}
	r.command(t, group, alice, 30, "/memories")
	const alicesPage = 701
	for _, c := range []struct {
		name string
		cb   *mynah.Callback
		want string
	}{
		{"carol's data on alice's message", &mynah.Callback{ID: "f1", From: carol, Message: alicesPage, Data: "m:p:77:2",
			ReplyTo: &mynah.ReplyRef{ID: 30, Sender: alice}}, notYourMemories},
		{"forget all on alice's message", &mynah.Callback{ID: "f2", From: carol, Message: alicesPage, Data: "m:a:77",
			ReplyTo: &mynah.ReplyRef{ID: 30, Sender: alice}}, notYourMemories},
		{"a group message that answered nobody", &mynah.Callback{ID: "f3", From: carol, Message: alicesPage, Data: "m:p:77:2"}, staleButton},
	} {
		t.Run(c.name, func(t *testing.T) {
			turn, answer := r.pressCallback(t, group, c.cb)
			if turn != nil || answer != c.want {
				t.Errorf("turn %+v, answer %q; want no turn and %q", turn, answer, c.want)
			}
		})
	}
	if n := len(r.facts.of(carol.ID)); n != 11 {
		t.Errorf("carol has %d facts left, want all 11", n)
	}
	// Carol's own message, answering her, works.
	turn, answer := r.pressCallback(t, group, &mynah.Callback{ID: "ok", From: carol, Message: 702, Data: "m:p:77:2",
		ReplyTo: &mynah.ReplyRef{ID: 31, Sender: carol}})
	if turn == nil || turn.Edit != 702 || answer != "" || !strings.Contains(turn.Static, "11\\. eleven") {
		t.Errorf("carol's own press: turn %+v, answer %q", turn, answer)
	}
}

// TestCommandsRateLimited: commands and button presses count against a budget of their
// own: past it, one notice, then silence, and model answers are not touched.
func TestCommandsRateLimited(t *testing.T) {
	r := newMemoriesRig(t, access.Policy{Limit: access.RateLimit{Messages: 2, Per: time.Hour, Commands: 3}})
	r.facts.add(alice.ID, "x")
	memories := func(id mynah.MessageID) string {
		t.Helper()
		switch turn := r.command(t, private, alice, id, "/memories"); {
		case turn == nil:
			return "-"
		case strings.Contains(turn.Static, "faster than"):
			return "notice"
		}
		return "page"
	}
	got := []string{memories(10), memories(11)}
	if turn, answer := r.press(t, private, alice, 501, "m:p:42:1"); turn == nil || answer != "" {
		t.Errorf("a press within the budget: turn %+v, answer %q; want an edit", turn, answer)
	}
	got = append(got, memories(12), memories(13))
	if strings.Join(got, " ") != "page page notice -" {
		t.Errorf("/memories four times around a press = %q, want two pages, one notice, then silence", got)
	}
	if turn, answer := r.press(t, private, alice, 501, "m:p:42:1"); turn != nil || answer != "" {
		t.Errorf("a press over the budget: turn %+v, answer %q; want nothing", turn, answer)
	}
	r2 := newMemoriesRig(t, access.Policy{Limit: access.RateLimit{Messages: 1, Per: time.Hour}})
	r2.facts.add(alice.ID, "x")
	r2.command(t, private, alice, 10, "/memories")
	if turn, answer := r2.press(t, private, alice, 501, "m:p:42:1"); turn != nil || !strings.Contains(answer, "faster than") {
		t.Errorf("the first press over the budget: turn %+v, answer %q; want the notice as the answer", turn, answer)
	}
	msg := &mynah.Message{Chat: private, ID: 30, Sender: alice, Text: "still answered?"}
	r.update++
	if err := r.in.Handle(t.Context(), mynah.Update{ID: r.update, Chat: private, Message: msg}); err != nil {
		t.Fatal(err)
	}
	if turn := r.inbox.intakes[len(r.inbox.intakes)-1].Turn; turn == nil || turn.Static != "" {
		t.Errorf("a message after the commands ran out: turn %+v, want a model turn", turn)
	}
}
