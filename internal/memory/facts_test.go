package memory_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/tool"
)

var (
	factsGroup = mynah.Chat{ID: -100500, Type: mynah.ChatSupergroup, Title: "Birders"}
	factsDM    = mynah.Chat{ID: 42, Type: mynah.ChatPrivate}
	alice      = mynah.User{ID: 42, FirstName: "Alice", LastName: "Liddell", Username: "alice"}
	carol      = mynah.User{ID: 7, FirstName: "Carol"}
	dave       = mynah.User{ID: 8, FirstName: "Dave", Username: "dave"}
	agentBot   = mynah.User{ID: 999, FirstName: "Mynah", Username: "mynah_bot", IsBot: true}
	otherBot   = mynah.User{ID: 998, FirstName: "Helper", Username: "helper_bot", IsBot: true}
	t0         = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
)

// remember stores facts about u as an operator adds them: private.
func remember(t *testing.T, db *sqlite.DB, u mynah.User, texts ...string) []mynah.Fact {
	t.Helper()
	return rememberIn(t, db, u, 0, mynah.FactPrivate, texts...)
}

// rememberIn stores facts about u learned in chat, with scope.
func rememberIn(t *testing.T, db *sqlite.DB, u mynah.User, chat mynah.ChatID, scope mynah.FactScope, texts ...string) []mynah.Fact {
	t.Helper()
	var out []mynah.Fact
	for _, text := range texts {
		f, _, err := db.AddFact(t.Context(), mynah.Fact{Agent: "Mynah", User: u.ID, Text: text, Chat: chat, Scope: scope, Created: t0}, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

func itemIDs(items []prompt.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}

func msg(chat mynah.Chat, id int, from mynah.User, text string) mynah.Message {
	return mynah.Message{Agent: "Mynah", Chat: chat, ID: mynah.MessageID(id), Sender: from, Text: text, Outgoing: from.ID == agentBot.ID}
}

func TestFactsPrivateChat(t *testing.T) {
	db := openStore(t)
	fa := remember(t, db, alice, "has a cat called Miso", "works night shifts")
	remember(t, db, carol, "carol's fact")
	target := msg(factsDM, 3, alice, "hi")
	items, err := memory.NewFacts(db).Items(t.Context(), prompt.Query{Agent: "Mynah", Chat: factsDM, Target: target,
		Window: []mynah.Message{msg(factsDM, 1, alice, "x"), msg(factsDM, 2, agentBot, "y"), target}})
	if err != nil {
		t.Fatal(err)
	}
	want := []prompt.Item{
		{ID: fmt.Sprintf("fact:%d", fa[0].ID), Text: fmt.Sprintf("About Alice Liddell (@alice, id 42): has a cat called Miso (fact %d)", fa[0].ID), Time: t0},
		{ID: fmt.Sprintf("fact:%d", fa[1].ID), Text: fmt.Sprintf("About Alice Liddell (@alice, id 42): works night shifts (fact %d)", fa[1].ID), Time: t0},
	}
	if diff := cmp.Diff(items, want); diff != "" {
		t.Errorf("items (-got +want):\n%s", diff)
	}
}

// TestFactsGroup: the facts of the people taking part, the target's author first, then
// the others by how recently they spoke; never of bots, nor of people who did not speak.
func TestFactsGroup(t *testing.T) {
	db := openStore(t)
	in := func(u mynah.User, texts ...string) []mynah.Fact {
		return rememberIn(t, db, u, factsGroup.ID, mynah.FactChat, texts...)
	}
	fa := in(alice, "alice 1", "alice 2")
	fc := in(carol, "carol 1")
	in(dave, "dave is not in this window")
	in(otherBot, "a bot's fact")
	target := msg(factsGroup, 14, carol, "@mynah_bot what do you know about us?")
	window := []mynah.Message{
		msg(factsGroup, 10, dave, "old") /* dave left the window below */, msg(factsGroup, 11, alice, "hello"),
		msg(factsGroup, 12, agentBot, "hi"), msg(factsGroup, 13, otherBot, "beep"), target,
	}
	items, err := memory.NewFacts(db).Items(t.Context(), prompt.Query{Agent: "Mynah", Chat: factsGroup, Target: target, Window: window[1:]})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{fmt.Sprintf("fact:%d", fc[0].ID), fmt.Sprintf("fact:%d", fa[0].ID), fmt.Sprintf("fact:%d", fa[1].ID)}
	if got := itemIDs(items); !cmp.Equal(got, want) {
		t.Errorf("group items = %v, want %v", got, want)
	}
	if len(items) > 0 && !strings.HasPrefix(items[0].Text, "About Carol (id 7): carol 1") {
		t.Errorf("carol's fact reads %q", items[0].Text)
	}
	// Another agent remembers nothing of these people.
	items, err = memory.NewFacts(db).Items(t.Context(), prompt.Query{Agent: "Other", Chat: factsGroup, Target: target, Window: window})
	if err != nil || len(items) != 0 {
		t.Errorf("another agent's items = %v, %v", items, err)
	}
}

func TestRememberTool(t *testing.T) {
	db := openStore(t)
	remember := memory.NewRemember(db, 2)
	call := func(sender mynah.User, args string) (string, error) {
		return remember.Run(t.Context(), tool.Call{Agent: "Mynah", Chat: factsGroup, Sender: sender, Target: 55, Args: json.RawMessage(args), Now: t0})
	}
	out, err := call(alice, `{"fact":"Has a cat called Miso."}`)
	if err != nil || !strings.HasPrefix(out, "Remembered about Alice Liddell (@alice, id 42) (fact ") {
		t.Fatalf("remember: %q, %v", out, err)
	}
	out, err = call(alice, `{"fact":"has a cat called miso"}`)
	if err != nil || !strings.HasPrefix(out, "Already remembered about Alice") {
		t.Errorf("remember again: %q, %v", out, err)
	}
	list, _, _ := db.ListFacts(t.Context(), "Mynah", alice.ID, 0, 10)
	if len(list) != 1 || list[0].Chat != factsGroup.ID || list[0].Message != 55 || !list[0].Created.Equal(t0) {
		t.Errorf("stored: %+v, want one fact from message 55 of the group", list)
	}
	for _, bad := range []struct {
		sender mynah.User
		args   string
	}{
		{alice, `{"fact":"  "}`},
		{alice, `{"fact":` + fmt.Sprintf("%q", strings.Repeat("x", mynah.MaxFactLength+1)) + `}`},
		{alice, `{"fact":3}`},
		{alice, `not json`},
		{otherBot, `{"fact":"a bot's fact"}`},
		{mynah.User{}, `{"fact":"nobody's fact"}`},
	} {
		if out, err := call(bad.sender, bad.args); err == nil {
			t.Errorf("remember %s from %d = %q, want an error", bad.args, bad.sender.ID, out)
		}
	}
	// The cap evicts the oldest.
	for _, f := range []string{"second", "third"} {
		if _, err := call(alice, `{"fact":"`+f+`"}`); err != nil {
			t.Fatal(err)
		}
	}
	list, total, _ := db.ListFacts(t.Context(), "Mynah", alice.ID, 0, 10)
	if total != 2 || list[0].Text != "second" {
		t.Errorf("after three facts with a cap of 2: %+v", list)
	}
	if spec := remember.Spec(); spec.Name != "remember" || !json.Valid(spec.Parameters) {
		t.Errorf("spec: %+v", spec)
	}
}

func TestForgetTool(t *testing.T) {
	db := openStore(t)
	fa := remember(t, db, alice, "has a cat called Miso", "works night shifts at the bakery", "works weekends")
	fc := remember(t, db, carol, "carol has a dog")
	forget := memory.NewForget(db)
	call := func(sender mynah.User, args string) (string, error) {
		return forget.Run(t.Context(), tool.Call{Agent: "Mynah", Chat: factsDM, Sender: sender, Args: json.RawMessage(args), Now: t0})
	}
	// Alice cannot make the agent forget Carol's fact.
	if out, err := call(alice, fmt.Sprintf(`{"fact_id":%d}`, fc[0].ID)); err == nil {
		t.Errorf("alice forgetting carol's fact: %q", out)
	}
	if out, err := call(alice, `{"text":"carol has a dog"}`); err == nil {
		t.Errorf("alice forgetting carol's fact by text: %q", out)
	}
	if list, _, _ := db.ListFacts(t.Context(), "Mynah", carol.ID, 0, 10); len(list) != 1 {
		t.Fatalf("carol's fact is gone: %v", list)
	}
	out, err := call(alice, fmt.Sprintf(`{"fact_id":%d}`, fa[0].ID))
	if err != nil || !strings.Contains(out, "has a cat called Miso") {
		t.Errorf("forget by id: %q, %v", out, err)
	}
	// "works" matches two facts: the model is asked to choose.
	out, err = call(alice, `{"text":"works"}`)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("fact %d", fa[1].ID)) || !strings.Contains(err.Error(), fmt.Sprintf("fact %d", fa[2].ID)) {
		t.Errorf("ambiguous text: %q, %v", out, err)
	}
	if out, err = call(alice, `{"text":"Works weekends."}`); err != nil || !strings.Contains(out, "works weekends") {
		t.Errorf("forget by exact text: %q, %v", out, err)
	}
	if out, err = call(alice, `{"text":"bakery"}`); err != nil || !strings.Contains(out, "night shifts") {
		t.Errorf("forget by a unique part: %q, %v", out, err)
	}
	for _, bad := range []string{`{}`, `{"text":"astronaut"}`, `{"fact_id":"x"}`} {
		if out, err := call(alice, bad); err == nil {
			t.Errorf("forget %s = %q, want an error", bad, out)
		}
	}
	if list, total, _ := db.ListFacts(t.Context(), "Mynah", alice.ID, 0, 10); total != 0 {
		t.Errorf("alice's facts left: %v", list)
	}
}

// TestMemoryLayerInPrompt: curated notes and facts reach the prompt the model gets.
func TestMemoryLayerInPrompt(t *testing.T) {
	db := openStore(t)
	ctx := t.Context()
	in := &mynah.Message{Chat: factsDM, ID: 1, Sender: alice, Time: t0, Text: "what do you know about me?"}
	if _, err := db.Accept(ctx, "Mynah", 1, mynah.Intake{Chat: factsDM, Users: []mynah.User{alice}, Message: in}); err != nil {
		t.Fatal(err)
	}
	remember(t, db, alice, "keeps bees on the roof")
	dir := t.TempDir()
	writeNote(t, dir, "house.md", "The owner of this bot is Dmitry.")
	a := prompt.NewAssembler(prompt.Agent{Name: "Mynah", Bot: agentBot, Budget: 8000, Shares: prompt.DefaultShares()}, db,
		prompt.Sources{Memory: memory.LongTerm{memory.NewCurated(dir), memory.NewFacts(db)}}, func() time.Time { return t0 })
	req, comp, err := a.Assemble(ctx, prompt.Turn{Chat: factsDM.ID, Target: 1})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(req)
	for _, want := range []string{"The owner of this bot is Dmitry.", "About Alice Liddell (@alice, id 42): keeps bees on the roof"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the prompt lacks %q:\n%s", want, body)
		}
	}
	recorded, _ := json.Marshal(comp)
	if !strings.Contains(string(recorded), "curated:house.md") || !strings.Contains(string(recorded), "fact:") {
		t.Errorf("the composition does not record the memory items: %s", recorded)
	}
}
