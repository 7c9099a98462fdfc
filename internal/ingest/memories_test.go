package ingest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
)

// fakeFacts keeps facts in memory, oldest first, with the store's owner check and
// once-only removals.
type fakeFacts struct {
	facts   []mynah.Fact
	removed map[string]mynah.Fact
	nextID  int64
}

func (f *fakeFacts) add(user mynah.UserID, texts ...string) {
	for _, t := range texts {
		f.nextID++
		f.facts = append(f.facts, mynah.Fact{ID: f.nextID, Agent: "Mynah", User: user, Text: t})
	}
}

func (f *fakeFacts) of(user mynah.UserID) []mynah.Fact {
	var out []mynah.Fact
	for _, x := range f.facts {
		if x.User == user {
			out = append(out, x)
		}
	}
	return out
}

func (f *fakeFacts) ListFacts(_ context.Context, _ string, user mynah.UserID, offset, limit int) ([]mynah.Fact, int, error) {
	all := f.of(user)
	if offset >= len(all) || limit <= 0 {
		return nil, len(all), nil
	}
	return all[offset:min(len(all), offset+limit)], len(all), nil
}

func (f *fakeFacts) RemoveFact(_ context.Context, _ string, user mynah.UserID, id int64, once string) (mynah.Fact, error) {
	if r, ok := f.removed[once]; ok && once != "" {
		return mynah.Fact{ID: r.ID, User: r.User}, nil
	}
	for i, x := range f.facts {
		if x.ID == id && x.User == user {
			f.facts = append(f.facts[:i], f.facts[i+1:]...)
			if once != "" {
				f.removed[once] = x
			}
			return x, nil
		}
	}
	return mynah.Fact{}, mynah.ErrNotFound
}

func (f *fakeFacts) RemoveAllFacts(_ context.Context, _ string, user mynah.UserID, once string) (int, error) {
	if r, ok := f.removed[once]; ok && once != "" {
		return int(r.ID), nil
	}
	n := len(f.of(user))
	var keep []mynah.Fact
	for _, x := range f.facts {
		if x.User != user {
			keep = append(keep, x)
		}
	}
	f.facts = keep
	if once != "" {
		f.removed[once] = mynah.Fact{ID: int64(n)}
	}
	return n, nil
}

var carol = mynah.User{ID: 77, FirstName: "Carol"}

// memoriesRig is an ingester with facts, recording the answers to button presses and
// what the inbox held when each was given.
type memoriesRig struct {
	in      *Ingester
	inbox   *fakeInbox
	facts   *fakeFacts
	answers []string
	update  int64
	// asked is who sent the last command in each chat: the agent's answer replies to
	// them, and a press on it says so, as Telegram's callback queries do.
	asked map[mynah.ChatID]mynah.User
}

func newMemoriesRig(t *testing.T, policy access.Policy) *memoriesRig {
	r := &memoriesRig{inbox: &fakeInbox{}, facts: &fakeFacts{removed: map[string]mynah.Fact{}}, asked: map[mynah.ChatID]mynah.User{}}
	r.in = New(Agent{Name: "Mynah", Bot: bot}, r.inbox, Options{
		Now: func() time.Time { return now }, Policy: policy, Facts: r.facts,
		Answer: func(_ context.Context, id, text string) error {
			if len(r.inbox.seen) == 0 || !r.inbox.seen[r.update] {
				t.Errorf("press %s answered before it was stored", id)
			}
			r.answers = append(r.answers, text)
			return nil
		},
	})
	return r
}

// command sends text from sender as a command message and returns the queued turn.
func (r *memoriesRig) command(t *testing.T, chat mynah.Chat, sender mynah.User, id mynah.MessageID, text string) *mynah.Turn {
	t.Helper()
	word, _, _ := strings.Cut(text, " ")
	r.update++
	msg := &mynah.Message{Chat: chat, ID: id, Sender: sender, Text: text, Entities: []mynah.Entity{{Type: "bot_command", Length: len(word)}}}
	if err := r.in.Handle(t.Context(), mynah.Update{ID: r.update, Chat: chat, Message: msg, Users: []mynah.User{sender}}); err != nil {
		t.Fatal(err)
	}
	r.asked[chat.ID] = sender
	return r.inbox.intakes[len(r.inbox.intakes)-1].Turn
}

// press presses the button with data under the agent's message id and returns the queued
// turn (nil for none) and the answer.
func (r *memoriesRig) press(t *testing.T, chat mynah.Chat, from mynah.User, id mynah.MessageID, data string) (*mynah.Turn, string) {
	t.Helper()
	cb := &mynah.Callback{ID: fmt.Sprint("q", r.update+1), From: from, Message: id, Data: data}
	if asker, ok := r.asked[chat.ID]; ok && chat.IsGroup() {
		cb.ReplyTo = &mynah.ReplyRef{Sender: asker}
	}
	return r.pressCallback(t, chat, cb)
}

// pressCallback delivers cb in chat as the next update and returns the queued turn (nil
// for none) and the answer.
func (r *memoriesRig) pressCallback(t *testing.T, chat mynah.Chat, cb *mynah.Callback) (*mynah.Turn, string) {
	t.Helper()
	r.update++
	from, data := cb.From, cb.Data
	n := len(r.answers)
	if err := r.in.Handle(t.Context(), mynah.Update{ID: r.update, Chat: chat, Users: []mynah.User{from}, Callback: cb}); err != nil {
		t.Fatal(err)
	}
	if len(r.answers) != n+1 {
		t.Fatalf("press of %q answered %d times, want once", data, len(r.answers)-n)
	}
	in := r.inbox.intakes[len(r.inbox.intakes)-1]
	if in.Message != nil {
		t.Errorf("a press stored a message: %+v", in.Message)
	}
	return in.Turn, r.answers[n]
}

// buttonData lists buttons as "text data", checking Telegram's limit on data.
func buttonData(t *testing.T, rows [][]mynah.Button) []string {
	t.Helper()
	var out []string
	for _, row := range rows {
		for _, b := range row {
			out = append(out, b.Text+" "+b.Data)
			if len(b.Data) > 64 {
				t.Errorf("callback data %q is longer than Telegram's 64 bytes", b.Data)
			}
		}
	}
	return out
}

func TestMemoriesPages(t *testing.T) {
	r := newMemoriesRig(t, access.Policy{})
	for i := 1; i <= 23; i++ {
		r.facts.add(alice.ID, fmt.Sprintf("fact %d", i))
	}
	r.facts.add(carol.ID, "carol's secret")

	turn := r.command(t, private, alice, 10, "/memories")
	if turn == nil || turn.Edit != 0 {
		t.Fatalf("/memories queued %+v, want a new message", turn)
	}
	for _, want := range []string{"about Alice (23)", "1\\. fact 1\n", "10\\. fact 10\n", "Page 1 of 3"} {
		if !strings.Contains(turn.Static, want) {
			t.Errorf("page 1 lacks %q:\n%s", want, turn.Static)
		}
	}
	if strings.Contains(turn.Static, "fact 11") || strings.Contains(turn.Static, "carol") {
		t.Errorf("page 1 shows more than alice's first ten:\n%s", turn.Static)
	}
	if got := buttonData(t, turn.Buttons); !cmp.Equal(got, []string{"▶ m:p:42:2"}) {
		t.Errorf("page 1 buttons = %q", got)
	}

	const shown = 501 // the agent's message with the page
	turn, answer := r.press(t, private, alice, shown, "m:p:42:2")
	if turn == nil || turn.Edit != shown || turn.Chat != private.ID || answer != "" {
		t.Fatalf("page 2 press: turn %+v, answer %q; want an edit of %d", turn, answer, shown)
	}
	if !strings.Contains(turn.Static, "11\\. fact 11\n") || !strings.Contains(turn.Static, "Page 2 of 3") {
		t.Errorf("page 2:\n%s", turn.Static)
	}
	if got := buttonData(t, turn.Buttons); !cmp.Equal(got, []string{"◀ m:p:42:1", "▶ m:p:42:3"}) {
		t.Errorf("page 2 buttons = %q", got)
	}
	turn, _ = r.press(t, private, alice, shown, "m:p:42:3")
	if !strings.Contains(turn.Static, "23\\. fact 23") || !cmp.Equal(buttonData(t, turn.Buttons), []string{"◀ m:p:42:2"}) {
		t.Errorf("last page: %q\n%s", buttonData(t, turn.Buttons), turn.Static)
	}

	// Somebody else pressing alice's buttons gets a refusal and changes nothing.
	n := len(r.inbox.intakes)
	turn, answer = r.press(t, private, carol, shown, "m:p:42:1")
	if turn != nil || answer != notYourMemories || len(r.inbox.intakes) != n+1 {
		t.Errorf("carol's press: turn %+v, answer %q", turn, answer)
	}
	// Data that is not ours, or a message Telegram no longer shows, is answered too.
	if turn, answer = r.press(t, private, alice, shown, "something:else"); turn != nil || answer != "" {
		t.Errorf("foreign data: turn %+v, answer %q", turn, answer)
	}
	if turn, answer = r.press(t, private, alice, 0, "m:p:42:2"); turn != nil || answer != staleButton {
		t.Errorf("inaccessible message: turn %+v, answer %q", turn, answer)
	}

	// Carol's own list, in her private chat, has only her fact; no buttons for one page.
	turn = r.command(t, mynah.Chat{ID: mynah.ChatID(carol.ID), Type: mynah.ChatPrivate}, carol, 11, "/memories")
	if !strings.Contains(turn.Static, "carol's secret") || strings.Contains(turn.Static, "fact 1") || turn.Buttons != nil {
		t.Errorf("carol's memories: %q\n%s", buttonData(t, turn.Buttons), turn.Static)
	}
}

func TestMemoriesInGroups(t *testing.T) {
	r := newMemoriesRig(t, access.Policy{})
	r.facts.add(alice.ID, "told in private")
	r.facts.nextID++
	r.facts.facts = append(r.facts.facts, mynah.Fact{ID: r.facts.nextID, Agent: "Mynah", User: alice.ID, Text: "likes *bold* claims & <tags>", Chat: group.ID, Scope: mynah.FactChat})
	turn := r.command(t, group, alice, 30, "/memories@mynah_bot")
	if turn == nil || turn.ReplyTo != 30 || !strings.Contains(turn.Static, `likes \*bold\* claims \& \<tags\>`) {
		t.Fatalf("/memories@mynah_bot in a group: %+v", turn)
	}
	// What alice said in private is not shown to the group, nor reachable by its number.
	if strings.Contains(turn.Static, "told in private") || !strings.Contains(turn.Static, "1 more memory stays private") {
		t.Errorf("/memories in a group shows or does not count the private fact:\n%s", turn.Static)
	}
	if turn := r.command(t, group, alice, 33, "/forget 2"); turn == nil || strings.Contains(turn.Static, "told in private") || len(r.facts.of(alice.ID)) != 2 {
		t.Errorf("/forget 2 in the group reached the private fact: %+v", turn)
	}
	if turn := r.command(t, group, alice, 31, "/memories@other_bot"); turn != nil {
		t.Errorf("/memories@other_bot queued %+v", turn)
	}
	turn = r.command(t, group, carol, 32, "/memories")
	if !strings.Contains(turn.Static, "don't remember anything") {
		t.Errorf("carol's empty memories: %q", turn.Static)
	}
}

// TestMemoriesShowScopes: /memories heads each run of facts with where they are shown.
func TestMemoriesShowScopes(t *testing.T) {
	r := newMemoriesRig(t, access.Policy{})
	r.facts.add(alice.ID, "said in private", "also in private")
	for _, f := range []mynah.Fact{
		{Text: "said in the group", Chat: group.ID, Scope: mynah.FactChat},
		{Text: "said in another group", Chat: -1009, Scope: mynah.FactChat},
		{Text: "asked to share", Chat: group.ID, Scope: mynah.FactShared},
	} {
		r.facts.nextID++
		f.ID, f.Agent, f.User = r.facts.nextID, "Mynah", alice.ID
		r.facts.facts = append(r.facts.facts, f)
	}
	turn := r.command(t, private, alice, 30, "/memories")
	want := "What I remember about Alice (5):\n" +
		"\n_Private: shown only in our private chat_\n1\\. said in private\n2\\. also in private\n" +
		"\n_From a group: shown there and in our private chat_\n3\\. said in the group\n4\\. said in another group\n" +
		"\n_Shared: shown in every chat with you_\n5\\. asked to share\n"
	if turn == nil || !strings.HasPrefix(turn.Static, want) {
		t.Errorf("/memories in private:\n%s\nwant it to start with:\n%s", turn.Static, want)
	}
	// The group sees what was learned in it and what alice shared, and a count of the rest.
	turn = r.command(t, group, alice, 31, "/memories")
	want = "What I remember about Alice (2):\n" +
		"\n_From this group: shown here and in our private chat_\n1\\. said in the group\n" +
		"\n_Shared: shown in every chat with you_\n2\\. asked to share\n" +
		"\n_3 more memories stay private: /memories in a private chat shows them\\._\n"
	if turn == nil || !strings.HasPrefix(turn.Static, want) {
		t.Errorf("/memories in the group:\n%s\nwant it to start with:\n%s", turn.Static, want)
	}
}

func TestForget(t *testing.T) {
	r := newMemoriesRig(t, access.Policy{})
	r.facts.add(alice.ID, "one", "two", "three", "four")
	r.facts.add(carol.ID, "carol's")

	for _, tc := range []struct{ text, want string }{
		{"/forget", forgetUsage},
		{"/forget everything", forgetUsage},
		{"/forget 0", forgetUsage},
		{"/forget 9", "There is no memory number 9: I remember 4 things about you."},
	} {
		if turn := r.command(t, private, alice, 5, tc.text); !strings.HasPrefix(turn.Static, tc.want) {
			t.Errorf("%s: %q, want %q", tc.text, turn.Static, tc.want)
		}
	}
	turn := r.command(t, private, alice, 10, "/forget 2")
	if turn.Static != "Forgot: two" {
		t.Errorf("/forget 2: %q", turn.Static)
	}
	left := func(u mynah.UserID) []string {
		var out []string
		for _, f := range r.facts.of(u) {
			out = append(out, f.Text)
		}
		return out
	}
	if got := left(alice.ID); !cmp.Equal(got, []string{"one", "three", "four"}) {
		t.Fatalf("after /forget 2: %q", got)
	}

	// The store failed after the fact was removed, so Telegram delivers the command
	// again: "three" is now number 2 and must stay.
	r.inbox.err = errors.New("disk full")
	r.update++
	msg := &mynah.Message{Chat: private, ID: 11, Sender: alice, Text: "/forget 2", Entities: []mynah.Entity{{Type: "bot_command", Length: 7}}}
	if err := r.in.Handle(t.Context(), mynah.Update{ID: r.update, Chat: private, Message: msg}); err == nil {
		t.Fatal("Handle succeeded with a failing store")
	}
	r.inbox.err = nil
	if err := r.in.Handle(t.Context(), mynah.Update{ID: r.update, Chat: private, Message: msg}); err != nil {
		t.Fatal(err)
	}
	if got := left(alice.ID); !cmp.Equal(got, []string{"one", "four"}) {
		t.Errorf("after a redelivered /forget 2: %q, want [one four]", got)
	}
	if got := r.inbox.intakes[len(r.inbox.intakes)-1].Turn.Static; got != "Forgot: three" && got != "Forgot memory number 2." {
		t.Errorf("reply to the redelivered command: %q", got)
	}
	if got := left(carol.ID); len(got) != 1 {
		t.Errorf("carol's facts after alice's /forget: %q", got)
	}
}

func TestForgetAll(t *testing.T) {
	r := newMemoriesRig(t, access.Policy{})
	r.facts.add(alice.ID, "one", "two", "three")
	r.facts.add(carol.ID, "carol's")

	turn := r.command(t, group, alice, 40, "/forget@mynah_bot all")
	if !strings.Contains(turn.Static, "Forget all 3 things") || !cmp.Equal(buttonData(t, turn.Buttons), []string{"Forget all m:a:42", "Cancel m:c:42"}) {
		t.Fatalf("/forget all: %q %q", turn.Static, buttonData(t, turn.Buttons))
	}
	if n := len(r.facts.of(alice.ID)); n != 3 {
		t.Fatalf("/forget all removed facts before confirmation: %d left", n)
	}
	const confirm = 601
	if turn, answer := r.press(t, group, carol, confirm, "m:a:42"); turn != nil || answer != notYourMemories || len(r.facts.of(alice.ID)) != 3 {
		t.Errorf("carol confirming alice's /forget all: turn %+v, answer %q, %d left", turn, answer, len(r.facts.of(alice.ID)))
	}
	turn, answer := r.press(t, group, alice, confirm, "m:a:42")
	if turn == nil || turn.Edit != confirm || turn.Buttons != nil || !strings.Contains(turn.Static, "Forgot all 3 things") || answer == "" {
		t.Errorf("alice confirming: turn %+v, answer %q", turn, answer)
	}
	if n := len(r.facts.of(alice.ID)); n != 0 {
		t.Errorf("%d facts left after forgetting all", n)
	}
	if n := len(r.facts.of(carol.ID)); n != 1 {
		t.Errorf("carol's facts after alice forgot all: %d", n)
	}

	r.facts.add(alice.ID, "new")
	if turn = r.command(t, private, alice, 41, "/forget all"); turn.Buttons == nil {
		t.Fatalf("/forget all of one fact has no buttons: %q", turn.Static)
	}
	turn, _ = r.press(t, private, alice, 602, "m:c:42")
	if turn == nil || turn.Edit != 602 || !strings.HasPrefix(turn.Static, "Kept everything") || len(r.facts.of(alice.ID)) != 1 {
		t.Errorf("cancel: %+v, %d left", turn, len(r.facts.of(alice.ID)))
	}
	if turn := r.command(t, private, carol, 42, "/forget all"); turn.Buttons == nil {
		t.Errorf("carol's /forget all has no confirmation buttons: %q", turn.Static)
	}
	r.facts.facts = nil
	if turn := r.command(t, private, carol, 43, "/forget all"); turn.Buttons != nil || !strings.Contains(turn.Static, "don't remember anything") {
		t.Errorf("/forget all with nothing remembered: %+v", turn)
	}
}

func TestMemoriesPolicy(t *testing.T) {
	block, _ := access.ParseUsers([]string{"77"})
	r := newMemoriesRig(t, access.Policy{Block: block})
	r.facts.add(carol.ID, "blocked carol's")
	if turn, answer := r.press(t, private, carol, 5, "m:p:77:1"); turn != nil || answer != "" {
		t.Errorf("blocked user's press: %+v, %q", turn, answer)
	}
	plain := New(Agent{Name: "Mynah", Bot: bot}, &fakeInbox{}, Options{Now: func() time.Time { return now }})
	inbox := plain.inbox.(*fakeInbox)
	msg := &mynah.Message{Chat: private, ID: 1, Sender: alice, Text: "/memories", Entities: []mynah.Entity{{Type: "bot_command", Length: 9}}}
	if err := plain.Handle(t.Context(), mynah.Update{ID: 1, Chat: private, Message: msg}); err != nil {
		t.Fatal(err)
	}
	if got := inbox.intakes[0].Turn; got == nil || got.Static != noFactStore {
		t.Errorf("/memories without a fact store: %+v", got)
	}
	// Without Answer configured, a press is still stored, and edits nothing.
	if err := plain.Handle(t.Context(), mynah.Update{ID: 2, Chat: private, Callback: &mynah.Callback{ID: "q", From: alice, Message: 3, Data: "m:p:42:1"}}); err != nil {
		t.Fatal(err)
	}
	if len(inbox.intakes) != 2 || inbox.intakes[1].Turn != nil {
		t.Errorf("press without a fact store: %+v", inbox.intakes)
	}
}

func TestCallbackDataRoundTrip(t *testing.T) {
	for _, data := range []string{pageData(9223372036854775807, 2147483647), forgetAllData(-1001234567890), cancelData(1)} {
		if len(data) > 64 {
			t.Errorf("%q is %d bytes, Telegram allows 64", data, len(data))
		}
		if _, _, _, ok := parseCallback(data); !ok {
			t.Errorf("parseCallback(%q) failed", data)
		}
	}
	for _, bad := range []string{"", "m:", "m:p:42", "m:p:42:0", "m:p:x:1", "m:a:0", "m:z:42", "m:a:42:1", "x:p:42:1"} {
		if _, _, _, ok := parseCallback(bad); ok {
			t.Errorf("parseCallback(%q) accepted", bad)
		}
	}
}
