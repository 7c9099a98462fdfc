package memory_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/prompt"
)

var otherGroup = mynah.Chat{ID: -100600, Type: mynah.ChatGroup, Title: "Knitters"}

// TestFactsStayWhereTheyWereSaid: what Alice tells the agent in private reaches only her
// private chat; what she says in a group reaches that group (and her private chat); what
// she asks to share reaches every chat she is in. A group turn answering Bob, with Alice
// in the window, sees only the latter two, and cannot forget, nor learn by a failed
// match, what she said in private.
func TestFactsStayWhereTheyWereSaid(t *testing.T) {
	r := newScopeRig(t, 0)
	remember := func(chat mynah.Chat, args string) string {
		t.Helper()
		out, err := r.run(t, "remember", chat, alice, args)
		if err != nil {
			t.Fatalf("remember %s in chat %d: %v", args, chat.ID, err)
		}
		return out
	}
	if out := remember(factsDM, `{"fact":"Was diagnosed with asthma."}`); strings.Contains(out, "shown") {
		t.Errorf("a private fact's result = %q, want no word on where it is shown", out)
	}
	if out := remember(factsGroup, `{"fact":"Brings the cake on Fridays."}`); !strings.Contains(out, "shown only in this chat") {
		t.Errorf("a group fact's result = %q", out)
	}
	remember(otherGroup, `{"fact":"Knits socks for the club.","scope":"chat"}`)
	if out := remember(otherGroup, `{"fact":"Prefers to be called Ali.","scope":"shared"}`); !strings.Contains(out, "shared") {
		t.Errorf("a shared fact's result = %q", out)
	}
	if out, err := r.run(t, "remember", factsGroup, alice, `{"fact":"x","scope":"everyone"}`); err == nil {
		t.Errorf("remember with scope everyone = %q, want an error", out)
	}

	memoryOf := func(chat mynah.Chat, target mynah.Message, window ...mynah.Message) string {
		t.Helper()
		items, err := r.engine.Sources().Memory.Items(t.Context(), prompt.Query{Agent: "Mynah", Chat: chat, Target: target,
			Window: append(window, target)})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(texts(items), "\n")
	}
	for _, tc := range []struct {
		name      string
		layer     string
		want, not []string
	}{
		{"alice's private chat", memoryOf(factsDM, msg(factsDM, 9, alice, "hi")),
			[]string{"asthma", "cake", "socks", "Ali"}, nil},
		{"the group, answering bob", memoryOf(factsGroup, msg(factsGroup, 9, bob, "@mynah_bot hi"), msg(factsGroup, 8, alice, "hello")),
			[]string{"cake", "Ali"}, []string{"asthma", "socks"}},
		{"the other group, answering alice", memoryOf(otherGroup, msg(otherGroup, 9, alice, "hi")),
			[]string{"socks", "Ali"}, []string{"asthma", "cake"}},
		{"bob's private chat", memoryOf(bobDM, msg(bobDM, 9, bob, "what about alice?")),
			nil, []string{"asthma", "cake", "socks", "Ali"}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.layer, w) {
				t.Errorf("%s: the memory layer lacks %q:\n%s", tc.name, w, tc.layer)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(tc.layer, n) {
				t.Errorf("%s: the memory layer shows %q:\n%s", tc.name, n, tc.layer)
			}
		}
	}

	// In the group, forget reaches only what the group sees, and says nothing of the rest.
	facts, _, err := r.store.ListFacts(t.Context(), "Mynah", alice.ID, 0, 10)
	if err != nil || len(facts) != 4 {
		t.Fatalf("alice's facts = %+v, %v", facts, err)
	}
	asthma := facts[0]
	for _, args := range []string{fmt.Sprintf(`{"fact_id":%d}`, asthma.ID), `{"text":"asthma"}`, `{"text":"a"}`} {
		out, err := r.run(t, "forget", factsGroup, alice, args)
		if err == nil || strings.Contains(err.Error(), "diagnosed") || strings.Contains(out, "diagnosed") {
			t.Errorf("forget %s in the group = %q, %v; want a refusal that does not name the private fact", args, out, err)
		}
	}
	if out, err := r.run(t, "forget", factsGroup, alice, `{"text":"cake"}`); err != nil || !strings.Contains(out, "cake") {
		t.Errorf("forget the group's fact in the group = %q, %v", out, err)
	}
	if out, err := r.run(t, "forget", factsDM, alice, fmt.Sprintf(`{"fact_id":%d}`, asthma.ID)); err != nil || !strings.Contains(out, "asthma") {
		t.Errorf("forget the private fact in private = %q, %v", out, err)
	}
}

// TestFlushFollowsTheRememberRule: the memory flush files a fact about the author of the
// message it was said in, in that chat's scope, by the remember tool's own rule; it
// refuses a fact filed under another member's id, or under a message of the agent.
func TestFlushFollowsTheRememberRule(t *testing.T) {
	db := openStore(t)
	for i := 1; i <= 60; i++ {
		from := []mynah.User{alice, agentBot, carol}[(i-1)%3]
		m := msg(factsGroup, i, from, fmt.Sprintf("message %d", i))
		m.Time = t0.Add(time.Duration(i) * time.Minute)
		if _, err := db.Accept(t.Context(), "Mynah", int64(i), mynah.Intake{Chat: factsGroup, Users: []mynah.User{from}, Message: &m}); err != nil {
			t.Fatal(err)
		}
	}
	// Message 1 is alice's, 2 the agent's, 3 carol's.
	calls := []string{
		`{"message_id":1,"fact":"Keeps bees."}`,
		`{"user_id":7,"fact":"Has diabetes."}`,
		`{"message_id":1,"user_id":7,"fact":"Has diabetes."}`,
		`{"message_id":2,"fact":"Is a bot."}`,
		`{"message_id":45,"fact":"Said it later."}`,
		`{"message_id":3,"fact":"Knits."}`,
	}
	model := &scriptModel{answer: func(n int, req llm.Request) (*llm.Response, error) {
		if len(req.Tools) == 0 {
			return &llm.Response{Text: "SUMMARY"}, nil
		}
		if len(req.Turns) > 1 {
			return &llm.Response{}, nil
		}
		var tcs []llm.ToolCall
		for i, args := range calls {
			tcs = append(tcs, llm.ToolCall{ID: fmt.Sprint(i), Name: "remember", Arguments: json.RawMessage(args)})
		}
		return &llm.Response{ToolCalls: tcs}, nil
	}}
	s := newSummarizer(db, model, func(c *memory.SummaryConfig) { c.Remember = memory.NewRemember(db, 0) })
	if !compact(t, s, shown(factsGroup.ID, 1, 31, 60)) {
		t.Fatal("no summary written")
	}
	flushes, _ := model.split()
	if len(flushes) != 2 {
		t.Fatalf("%d flush calls, want 2", len(flushes))
	}
	var errs []bool
	for _, p := range flushes[1].Turns[len(flushes[1].Turns)-1].Parts {
		errs = append(errs, p.ToolResult.IsError)
	}
	if want := []bool{false, true, true, true, true, false}; fmt.Sprint(errs) != fmt.Sprint(want) {
		t.Errorf("the calls failed %v, want %v", errs, want)
	}
	for _, tc := range []struct {
		who  mynah.User
		want string
	}{{alice, "[Keeps bees. in -100500 #1 chat]"}, {carol, "[Knits. in -100500 #3 chat]"}} {
		facts, _, err := db.ListFacts(t.Context(), "Mynah", tc.who.ID, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range facts {
			got = append(got, fmt.Sprintf("%s in %d #%d %s", f.Text, f.Chat, f.Message, f.Scope))
		}
		if fmt.Sprint(got) != tc.want {
			t.Errorf("facts about %s = %v, want %s", tc.who.FirstName, got, tc.want)
		}
	}
}
