package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// crewRoom is the group of the crew tests.
var crewRoom = telegramtest.Supergroup(-1001234567890, "Crew room")

// crewBot is one member of a test crew: its agent, bot account and token.
type crewBot struct {
	name  string
	user  telegramtest.BotUser
	token string
}

// crewHarness is the harness with a crew of three agents, each on its own bot, beside
// the harness's own agent Mynah, who is in no crew. reply answers each member's requests
// (n counts the member's requests from 0).
type crewHarness struct {
	*harness
	bots []crewBot

	mu   sync.Mutex
	reqs map[string][]llmtest.Recorded
}

func newCrewHarness(t *testing.T, crewYAML string, reply func(member string, n int, r llmtest.Recorded) llmtest.Reply) *crewHarness {
	t.Helper()
	h := &crewHarness{harness: newHarness(t, harnessOptions{YAML: "defaults:\n  debounce: 0s\n" + crewYAML}), reqs: map[string][]llmtest.Recorded{}}
	for i, name := range []string{"Analyst", "Coder", "Critic"} {
		id := int64(7100001 + i)
		token := fmt.Sprintf("%d:%s", id, (strings.ToUpper(name) + "-TOKEN-" + strings.Repeat("A", 35))[:35])
		b := crewBot{name: name, token: token,
			user: telegramtest.BotUser{ID: id, FirstName: name, Username: strings.ToLower(name) + "_bot", CanReadAllGroupMessages: true}}
		h.emu.AddBot(token, b.user)
		env := strings.ToUpper(name) + "_TOKEN"
		write(t, filepath.Join(h.dir, "agents", name+".md"), fmt.Sprintf("---\ntelegram_token: ${%s}\nmodel: openai/test-model\n---\n%s of the team: %s.\nYou are %s.\n",
			env, name, map[string]string{"Analyst": "finds out what is needed", "Coder": "writes the code", "Critic": "finds what is wrong"}[name], name))
		h.env = append(h.env, env+"="+token)
		h.bots = append(h.bots, b)
	}
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		member := "Mynah"
		for _, b := range h.bots {
			if strings.Contains(r.System, "You are "+b.name+".") {
				member = b.name
			}
		}
		h.mu.Lock()
		n := len(h.reqs[member])
		h.reqs[member] = append(h.reqs[member], r)
		h.mu.Unlock()
		return reply(member, n, r)
	})
	return h
}

// requests returns what member's model was asked, in order.
func (h *crewHarness) requests(member string) []llmtest.Recorded {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.reqs[member])
}

// said returns the group's messages from the bots, as "Name: text".
func (h *crewHarness) said() []string {
	var out []string
	for _, s := range h.emu.Sent(crewRoom.ID) {
		name := "?"
		for _, b := range h.bots {
			if b.user.ID == s.BotID {
				name = b.name
			}
		}
		if s.BotID == botUser.ID {
			name = "Mynah"
		}
		out = append(out, name+": "+s.Text)
	}
	return out
}

// waitSaid waits until the group has n messages from the bots.
func (h *crewHarness) waitSaid(n int) []string {
	h.t.Helper()
	h.waitSent(crewRoom.ID, n)
	return h.said()
}

// waitQuiet waits until every bot took its updates and no crew cycle is under way, read
// from the database as an operator would.
func (h *crewHarness) waitQuiet() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.t.Context(), 30*time.Second)
	defer cancel()
	for _, token := range append([]string{telegramtest.DefaultToken}, h.tokens()...) {
		if err := h.emu.WaitDelivered(ctx, token); err != nil {
			h.t.Fatalf("updates not taken: %v\n%s", err, h.logs.String())
		}
	}
	for {
		if n := h.activeCycles(); n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			h.t.Fatalf("a crew cycle is still under way; said:\n%s\n%s", strings.Join(h.said(), "\n"), h.logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (h *crewHarness) tokens() []string {
	var out []string
	for _, b := range h.bots {
		out = append(out, b.token)
	}
	return out
}

// query runs a read on the database of the harness.
func (h *crewHarness) query(q string, args ...any) [][]string {
	h.t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(h.dir, "data", "mynah.db"))
	if err != nil {
		h.t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(q, args...)
	if err != nil {
		h.t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			h.t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = fmt.Sprint(v)
		}
		out = append(out, row)
	}
	return out
}

func (h *crewHarness) activeCycles() int {
	return len(h.query("SELECT crew FROM crew_states WHERE active = 1"))
}

// talks answers each member's first rounds requests with "<member> <n>", then passes.
func talks(rounds int) func(string, int, llmtest.Recorded) llmtest.Reply {
	return func(member string, n int, _ llmtest.Recorded) llmtest.Reply {
		if n < rounds {
			return llmtest.Reply{Text: fmt.Sprintf("%s #%d", member, n+1)}
		}
		return llmtest.Reply{Text: "....."}
	}
}

const teamYAML = `crews:
  - name: team
    chat: -1001234567890
    members: [Analyst, Coder, Critic]
    max_rounds: 2
`

// TestCrewCycle: a message mentioning one member starts a cycle in which Analyst, Coder
// and Critic answer in order, each through its own bot, each seeing the message and the
// members before it as other people's messages with their names; a pass is never sent
// and a round of passes ends the cycle; members who always have more to say stop after
// max_rounds; an agent outside the crew stays out of it (issue 13).
func TestCrewCycle(t *testing.T) {
	h := newCrewHarness(t, teamYAML, func(member string, n int, r llmtest.Recorded) llmtest.Reply {
		if strings.Contains(requestText(r), "talk forever") {
			return llmtest.Reply{Text: fmt.Sprintf("%s #%d", member, n+1)}
		}
		return talks(1)(member, n, r)
	})
	h.start()
	h.emu.SendGroup(crewRoom, alice, "@coder_bot we need a CSV importer")
	h.waitQuiet()
	want := []string{"Analyst: Analyst #1", "Coder: Coder #1", "Critic: Critic #1"}
	if diff := cmp.Diff(h.said(), want); diff != "" {
		t.Fatalf("the group saw (-got +want):\n%s", diff)
	}
	coder := requestText(h.requests("Coder")[0])
	for _, s := range []string{"we need a CSV importer", `name="Analyst" username=@analyst_bot`, "Analyst #1"} {
		if !strings.Contains(coder, s) {
			t.Errorf("Coder's request lacks %q:\n%s", s, coder)
		}
	}
	if strings.Contains(coder, "<assistant>") {
		t.Errorf("Coder's request shows another member's words as its own:\n%s", coder)
	}
	if sys := h.requests("Coder")[0].System; !strings.Contains(sys, "Critic (@critic_bot): Critic of the team: finds what is wrong.") {
		t.Errorf("Coder's system prompt does not name the crew:\n%s", sys)
	}
	critic := requestText(h.requests("Critic")[0])
	if !strings.Contains(critic, "Analyst #1") || !strings.Contains(critic, "Coder #1") {
		t.Errorf("Critic's request lacks the earlier members:\n%s", critic)
	}
	if n := len(h.requests("Analyst")); n != 2 {
		t.Errorf("Analyst was asked %d times, want 2 (round 2: a pass)", n)
	}
	if n := len(h.requests("Mynah")); n != 0 {
		t.Errorf("Mynah, outside the crew, was asked %d times", n)
	}
	// Each member's view holds each member's message once, with its Telegram id.
	rows := h.query("SELECT agent, count(*), count(DISTINCT message_id) FROM messages WHERE chat_id = ? AND sender_is_bot = 1 GROUP BY agent ORDER BY agent", crewRoom.ID)
	if diff := cmp.Diff(rows, [][]string{{"Analyst", "3", "3"}, {"Coder", "3", "3"}, {"Critic", "3", "3"}}); diff != "" {
		t.Errorf("the members' messages in each view (-got +want):\n%s", diff)
	}

	// Members who always have more to say stop after max_rounds (2).
	h.emu.SendGroup(crewRoom, alice, "@analyst_bot talk forever")
	h.waitQuiet()
	got := h.said()[3:]
	want = []string{"Analyst: Analyst #3", "Coder: Coder #3", "Critic: Critic #3", "Analyst: Analyst #4", "Coder: Coder #4", "Critic: Critic #4"}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("the second cycle (-got +want):\n%s", diff)
	}
	h.emu.SendGroup(crewRoom, alice, "/agents")
	s := h.waitSaid(10)
	if !strings.HasPrefix(s[9], "Analyst: Crew team (round robin, at most 2 rounds, pass .....)") || !strings.Contains(s[9], "the last round (max_rounds) is over") {
		t.Errorf("/agents answered %q", s[9])
	}
	h.stop()
}
