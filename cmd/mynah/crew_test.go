package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
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

func newCrewHarness(t testing.TB, crewYAML string, reply func(member string, n int, r llmtest.Recorded) llmtest.Reply) *crewHarness {
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
	for quiet := 0; ; {
		// Twice in a row: a turn's end and the next member's turn are one transaction, but
		// an update is between the emulator and the store a moment before it is a turn.
		if h.busy() == 0 {
			if quiet++; quiet == 2 {
				return
			}
		} else {
			quiet = 0
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

// busy counts the crew cycles under way, the turns not done and the parts not delivered.
func (h *crewHarness) busy() int {
	n := len(h.query("SELECT crew FROM crew_states WHERE active = 1"))
	n += len(h.query("SELECT id FROM turns WHERE done_at IS NULL"))
	return n + len(h.query("SELECT id FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL"))
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

// TestCrewCommands: in the crew's group /agents shows the members, their order, whose
// turn it is and the mode; /next skips the member whose turn it is (its answer, still
// being written, is never sent); /stop ends the cycle; /crew reset starts a new crew
// session; a bare command is answered once, by the first member; context show prints
// what a member would see, crew layer included.
func TestCrewCommands(t *testing.T) {
	h := newCrewHarness(t, teamYAML, func(member string, n int, r llmtest.Recorded) llmtest.Reply {
		text := requestText(r)
		switch {
		case member == "Coder" && n == 0:
			return llmtest.Reply{Text: "Coder late", Delay: 4 * time.Second}
		case strings.Contains(text, "second job") && member == "Coder":
			return llmtest.Reply{Text: "Coder slow", Delay: 4 * time.Second}
		}
		return llmtest.Reply{Text: fmt.Sprintf("%s #%d", member, n+1)}
	})
	h.start()
	h.emu.SendGroup(crewRoom, alice, "@analyst_bot build the importer")
	h.waitSaid(1)
	h.waitRequestsOf("Coder", 1)
	out, err := h.mynah("context", "show", "--config", h.dir, "--agent", "Coder", "--chat", fmt.Sprint(crewRoom.ID))
	if err != nil || !strings.Contains(out, "crew team: cycle 1, round 1, Coder's turn") || !strings.Contains(out, `Crew \"team\"`) ||
		!strings.Contains(out, "Analyst #1") {
		t.Errorf("context show for the member whose turn it is: %v\n%s", err, out)
	}
	h.emu.SendGroup(crewRoom, alice, "/agents")
	s := h.waitSaid(2)
	if !strings.HasPrefix(s[1], "Analyst: Crew team (round robin") || !strings.Contains(s[1], "2. Coder @coder_bot ← speaking") ||
		!strings.Contains(s[1], "Cycle 1, round 1 of 2") {
		t.Errorf("/agents answered %q", s[1])
	}
	h.emu.SendGroup(crewRoom, alice, "/next")
	h.waitQuiet()
	got := firstLines(h.said())
	want := []string{"Analyst: Analyst #1", "Analyst: Crew team (round robin, at most 2 rounds, pass .....):", "Analyst: Skipped Coder.",
		"Critic: Critic #1", "Analyst: Analyst #2", "Coder: Coder #2", "Critic: Critic #2"}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("after /next (-got +want):\n%s", diff)
	}

	// /stop ends a cycle at once.
	h.emu.SendGroup(crewRoom, alice, "@analyst_bot second job")
	h.waitRequestsOf("Coder", 3)
	h.emu.SendGroup(crewRoom, alice, "/stop")
	h.waitQuiet()
	if got := firstLines(h.said())[7:]; !slices.Equal(got, []string{"Analyst: Analyst #3", "Analyst: Stopped."}) {
		t.Errorf("the stopped cycle: %q", got)
	}
	// /crew reset: a new session for every member, turn counts from zero; /agents@bot
	// names the member that answers.
	h.emu.SendGroup(crewRoom, alice, "/crew reset")
	s = h.waitSaid(10)
	if !strings.HasPrefix(s[9], "Analyst: Started a new crew session") {
		t.Errorf("/crew reset answered %q", s[9])
	}
	rows := h.query("SELECT agent, max(start_id) FROM sessions WHERE chat_id = ? GROUP BY agent ORDER BY agent", crewRoom.ID)
	if len(rows) != 3 || rows[0][1] != rows[1][1] || rows[1][1] != rows[2][1] || rows[0][1] == "0" {
		t.Errorf("sessions after /crew reset: %v, want one new session for every member", rows)
	}
	h.emu.SendGroup(crewRoom, alice, "/agents@critic_bot")
	if s = h.waitSaid(11); !strings.HasPrefix(s[10], "Critic: Crew team") || strings.Contains(s[10], "turns)") {
		t.Errorf("/agents@critic_bot answered %q", s[10])
	}
	time.Sleep(200 * time.Millisecond) // Coder's dropped answers would arrive now
	for _, line := range h.said() {
		if strings.Contains(line, "Coder late") || strings.Contains(line, "Coder slow") {
			t.Errorf("a skipped or stopped member's answer was sent: %q", line)
		}
	}
	h.stop()
}

// waitRequestsOf waits until member's model was asked n times.
func (h *crewHarness) waitRequestsOf(member string, n int) {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(h.requests(member)) < n {
		if time.Now().After(deadline) {
			h.t.Fatalf("%s was asked %d times, want %d\n%s", member, len(h.requests(member)), n, h.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCrewInterjection: a message written during a cycle starts no second cycle; the next
// member to speak sees it and answers it.
func TestCrewInterjection(t *testing.T) {
	h := newCrewHarness(t, teamYAML, func(member string, n int, r llmtest.Recorded) llmtest.Reply {
		if member == "Analyst" && n == 0 {
			return llmtest.Reply{Text: "Analyst thinking", Delay: time.Second}
		}
		return talks(1)(member, n, r)
	})
	h.start()
	h.emu.SendGroup(crewRoom, alice, "@analyst_bot first question")
	h.waitRequestsOf("Analyst", 1)
	extra := h.emu.SendGroup(crewRoom, alice, "@critic_bot and also the edge cases")
	h.waitQuiet()
	want := []string{"Analyst: Analyst thinking", "Coder: Coder #1", "Critic: Critic #1"}
	if diff := cmp.Diff(h.said(), want); diff != "" {
		t.Errorf("the group saw (-got +want):\n%s", diff)
	}
	coder := requestText(h.requests("Coder")[0])
	if !strings.Contains(coder, "also the edge cases") || !strings.Contains(coder, fmt.Sprintf("message_id %d.", extra.MessageID)) {
		t.Errorf("Coder's request does not answer the interjection:\n%s", coder)
	}
	if rows := h.query("SELECT cycle FROM crew_states WHERE crew = 'team'"); len(rows) != 1 || rows[0][0] != "1" {
		t.Errorf("cycles: %v, want one", rows)
	}
	h.stop()
}

// TestCrewTimeoutModeratorFailures: a moderated crew. The moderator opens, a member that
// does not answer within the crew's timeout is skipped for the round, the moderator closes
// the cycle by ending its message with the pass token (not sent). Then a message no member
// can answer ends the cycle after one round, with no apology sent.
func TestCrewTimeoutModeratorFailures(t *testing.T) {
	h := newCrewHarness(t, `crews:
  - name: team
    chat: "*"
    members: [Analyst, Coder, Critic]
    moderator: Critic
    timeout: 1s
`, func(member string, n int, r llmtest.Recorded) llmtest.Reply {
		text := requestText(r)
		switch {
		case strings.Contains(text, "nobody can"):
			return llmtest.Reply{Status: 400, Message: "invalid request"}
		case member == "Analyst":
			return llmtest.Reply{Text: "too late", Delay: 5 * time.Second}
		case member == "Critic" && n == 0:
			return llmtest.Reply{Text: "Coder, go."}
		case member == "Critic":
			return llmtest.Reply{Text: "Good enough. ....."}
		}
		return llmtest.Reply{Text: "Coder done"}
	})
	h.start()
	// A "*" crew works in any group where every member is present.
	for _, b := range h.bots {
		h.emu.SendGroup(crewRoom, alice, "hello "+b.name, telegramtest.ToBot(b.token))
	}
	h.waitQuiet()
	h.emu.SendGroup(crewRoom, alice, "@coder_bot ship it")
	h.waitQuiet()
	want := []string{"Critic: Coder, go.", "Coder: Coder done", "Critic: Good enough."}
	if diff := cmp.Diff(h.said(), want); diff != "" {
		t.Errorf("the group saw (-got +want):\n%s", diff)
	}
	if rows := h.query("SELECT ended FROM crew_states"); len(rows) != 1 || rows[0][0] != "the moderator closed it" {
		t.Errorf("ended: %v", rows)
	}
	h.emu.SendGroup(crewRoom, alice, "@coder_bot nobody can answer this")
	h.waitQuiet()
	if got := h.said(); len(got) != 3 {
		t.Errorf("after a round of failures the group saw %q, want nothing more", got[3:])
	}
	if rows := h.query("SELECT ended, round FROM crew_states"); len(rows) != 1 || rows[0][0] != "every member failed (error or timeout)" || rows[0][1] != "1" {
		t.Errorf("ended: %v", rows)
	}
	h.stop()
}

// firstLines keeps the first line of each message.
func firstLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i], _, _ = strings.Cut(l, "\n")
	}
	return out
}

var crewKills = flag.Int("crew.kills", 6, "SIGKILLs of TestCrewKill")

var taskRE = regexp.MustCompile(`task (\d+)`)

// TestCrewKill kills mynah with SIGKILL at random moments during crew cycles (members
// take 150-400 ms to answer) and restarts it at once: every cycle completes, each member
// answering each task exactly once, in order, apart from the documented duplicate window
// of delivery (a message Telegram accepted just before the kill, sent again after it).
//
//	go test -run TestCrewKill ./cmd/mynah -crew.kills=30
func TestCrewKill(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>32))
	var mu sync.Mutex
	h := newCrewHarness(t, teamYAML, answersTasks(func() time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return time.Duration(150+rng.IntN(250)) * time.Millisecond
	}))
	t.Cleanup(func() {
		if h.proc != nil {
			_ = h.proc.Process.Kill()
			<-h.exited
			h.proc = nil
		}
	})
	kills := *crewKills
	cycles := kills
	h.spawn()
	for i := 1; i <= cycles; i++ {
		h.emu.SendGroup(crewRoom, alice, fmt.Sprintf("@analyst_bot task %d", i))
		mu.Lock()
		alive := time.Duration(rng.IntN(1200)) * time.Millisecond
		mu.Unlock()
		time.Sleep(alive) // the deliberate, random moment of the kill
		fmt.Fprintf(h.logs, "=== crew kill %d after %v\n", i, alive)
		h.killNow()
		h.spawn()
		h.waitQuiet()
	}
	h.waitStarted() // the crew may have been quiet before the last restart
	h.stop()
	counts := map[string]int{}
	var order []string
	for _, line := range h.said() {
		counts[line]++
		if counts[line] == 1 {
			order = append(order, line)
		}
	}
	duplicates := 0
	for i := 1; i <= cycles; i++ {
		for j, b := range h.bots {
			line := fmt.Sprintf("%s: %s on task %d", b.name, b.name, i)
			n := counts[line]
			if n == 0 {
				t.Errorf("%q missing", line)
			}
			duplicates += max(n-1, 0)
			if at := slices.Index(order, line); at < 0 || order[(i-1)*3+j] != line {
				t.Errorf("%q at %d of %q", line, at, order)
			}
		}
	}
	if len(order) != 3*cycles {
		t.Errorf("the group saw %d different messages, want %d: %q", len(order), 3*cycles, order)
	}
	if duplicates > kills {
		t.Errorf("%d duplicates after %d kills", duplicates, kills)
	}
	t.Logf("kills: %d; cycles: %d; member messages: %d; duplicates (sent, killed before recorded, sent again): %d", kills, cycles, len(h.said()), duplicates)
}

// answersTasks is the model of a crew's members for tests of numbered tasks: it answers
// the latest "task N" of a request as "<member> on task N" after delay(), and passes
// (".....", after a quarter of it) once the member said that, in the cycle's next round.
func answersTasks(delay func() time.Duration) func(string, int, llmtest.Recorded) llmtest.Reply {
	return func(member string, _ int, r llmtest.Recorded) llmtest.Reply {
		text := requestText(r)
		task := 0
		for _, m := range taskRE.FindAllStringSubmatch(text, -1) {
			task = max(task, atoi(m[1]))
		}
		d := delay()
		if strings.Contains(text, fmt.Sprintf("%s on task %d", member, task)) {
			return llmtest.Reply{Text: ".....", Delay: d / 4}
		}
		return llmtest.Reply{Text: fmt.Sprintf("%s on task %d", member, task), Delay: d}
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestPlayCrew: mynah play --crew runs every member in one terminal: each line goes to
// the crew, whose members answer in turn, each line of output prefixed with its speaker.
func TestPlayCrew(t *testing.T) {
	h := newCrewHarness(t, teamYAML, talks(1))
	cmd := exec.Command(os.Args[0], "play", "--config", h.dir, "--crew", "team")
	cmd.Args[0] = "mynah"
	cmd.Env = playEnv(h.harness)
	cmd.Stdin = strings.NewReader("plan the picnic\n/agents\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mynah play --crew: %v\n%s", err, out)
	}
	var said []string
	agents := 0
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Analyst: Crew team (round robin, at most 2 rounds, pass .....):") {
			agents++ // the /agents reply, whenever it came
			continue
		}
		for _, b := range h.bots {
			if strings.HasPrefix(line, b.name+": ") {
				said = append(said, line)
			}
		}
	}
	want := []string{"Analyst: Analyst #1", "Coder: Coder #1", "Critic: Critic #1"}
	if !slices.Equal(said, want) || agents != 1 {
		t.Errorf("play --crew printed (want %q in order, and the /agents reply once):\n%s", want, out)
	}
	if !strings.Contains(string(out), "You are in a group with the crew team: Analyst, Coder, Critic.") {
		t.Errorf("play --crew does not say who is there:\n%s", out)
	}
	nope := exec.Command(os.Args[0], "play", "--config", h.dir, "--crew", "nope")
	nope.Args[0] = "mynah"
	nope.Env = playEnv(h.harness)
	if out, err := nope.CombinedOutput(); err == nil || !strings.Contains(string(out), `--crew "nope": no such crew in mynah.yaml (crews: team)`) {
		t.Errorf("play --crew nope: %v\n%s", err, out)
	}
}

// fakeClaude is a fake Claude Code for the tests: it records its arguments and the prompt
// it reads in $FAKE_AGENT_DIR and answers in stream-json, resuming the session --resume
// names or starting a new one.
const fakeClaude = `#!/bin/sh
dir="$FAKE_AGENT_DIR"
n=$(ls "$dir" | grep -c args)
n=$((n + 1))
printf '%s\n' "$@" > "$dir/$n.args"
cat > "$dir/$n.stdin"
session="sess-$n"
prev=""
for a in "$@"; do
	if [ "$prev" = "--resume" ]; then session="$a"; fi
	prev="$a"
done
echo '{"type":"system","subtype":"init","session_id":"'"$session"'","model":"fake-claude"}'
echo '{"type":"assistant","message":{"content":[{"type":"text","text":"cli answer '"$n"'"}]},"session_id":"'"$session"'"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"cli answer '"$n"'","session_id":"'"$session"'","usage":{"input_tokens":10,"output_tokens":3}}'
`

// TestCrewCLIMember: a crew member whose model is a command-line agent (a fake Claude
// Code): its first turn starts a session with its instructions and the whole
// conversation; later turns, also after a restart, resume the stored session and send
// only the messages it has not seen.
func TestCrewCLIMember(t *testing.T) {
	agentDir := t.TempDir()
	calls := t.TempDir()
	script := filepath.Join(agentDir, "claude")
	if err := os.WriteFile(script, []byte(fakeClaude), 0o755); err != nil {
		t.Fatal(err)
	}
	h := newCrewHarness(t, `providers:
  claude-code:
    kind: cli
    command: `+script+` -p --output-format stream-json --verbose
    format: claude
    timeout: 30s
crews:
  - name: team
    chat: -1001234567890
    members: [Analyst, Coder, Critic]
    max_rounds: 1
`, func(member string, n int, r llmtest.Recorded) llmtest.Reply {
		return llmtest.Reply{Text: fmt.Sprintf("%s #%d", member, n+1)}
	})
	write(t, filepath.Join(h.dir, "agents", "Coder.md"), "---\ntelegram_token: ${CODER_TOKEN}\nmodel: cli/claude-code\n---\nCoder of the team: writes the code.\nYou are Coder.\n")
	h.env = append(h.env, "FAKE_AGENT_DIR="+calls)
	h.start()
	h.emu.SendGroup(crewRoom, alice, "@analyst_bot task one")
	h.waitQuiet()
	h.emu.SendGroup(crewRoom, alice, "@analyst_bot task two")
	h.waitQuiet()
	h.stop()
	h.start()
	h.emu.SendGroup(crewRoom, alice, "@analyst_bot task three")
	h.waitQuiet()
	h.stop()

	want := []string{"Analyst: Analyst #1", "Coder: cli answer 1", "Critic: Critic #1",
		"Analyst: Analyst #2", "Coder: cli answer 2", "Critic: Critic #2",
		"Analyst: Analyst #3", "Coder: cli answer 3", "Critic: Critic #3"}
	if diff := cmp.Diff(h.said(), want); diff != "" {
		t.Errorf("the group saw (-got +want):\n%s", diff)
	}
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(calls, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if args, stdin := read("1.args"), read("1.stdin"); strings.Contains(args, "--resume") || !strings.Contains(stdin, "You are Coder.") ||
		!strings.Contains(stdin, "task one") || !strings.Contains(stdin, "Analyst #1") {
		t.Errorf("the first call started no new session with everything (args %q):\n%s", args, stdin)
	}
	for _, n := range []string{"2", "3"} {
		args, stdin := read(n+".args"), read(n+".stdin")
		if !strings.Contains(args, "--resume\nsess-1\n") {
			t.Errorf("call %s did not resume the session: %q", n, args)
		}
		if strings.Contains(stdin, "You are Coder.") || strings.Contains(stdin, "task one") || !strings.Contains(stdin, "## New messages") {
			t.Errorf("call %s was sent what the session has seen:\n%s", n, stdin)
		}
	}
	if stdin := read("3.stdin"); !strings.Contains(stdin, "task three") || !strings.Contains(stdin, "Analyst #3") || strings.Contains(stdin, "task two") {
		t.Errorf("after the restart the session got:\n%s", stdin)
	}
	if rows := h.query("SELECT session_id, turns FROM model_sessions"); len(rows) != 1 || rows[0][0] != "sess-1" || rows[0][1] != "3" {
		t.Errorf("stored sessions: %v", rows)
	}
}

// BenchmarkCrewLoad: a crew of three members, each answering in 200 ms, and 100 user
// messages in one group, each sent when the cycle of the one before has ended. Every
// cycle must complete in order with each member's message once, and each member's request
// must hold the user's message and every earlier member's message of its cycle. It
// reports the CPU time mynah spends per member turn (the members' 200 ms are the fake
// provider's, not mynah's).
//
//	go test -run '^$' -bench CrewLoad -benchtime 1x ./cmd/mynah
func BenchmarkCrewLoad(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc")
	}
	messages := 100
	if n, err := strconv.Atoi(os.Getenv("MYNAH_CREW_MESSAGES")); err == nil {
		messages = n
	}
	for range b.N {
		var mu sync.Mutex
		var missing []string
		h := newCrewHarness(b, strings.Replace(teamYAML, "max_rounds: 2", "max_rounds: 1", 1), func(member string, _ int, r llmtest.Recorded) llmtest.Reply {
			text := requestText(r)
			task := 0
			for _, m := range taskRE.FindAllStringSubmatch(text, -1) {
				task = max(task, atoi(m[1]))
			}
			for _, earlier := range []string{"Analyst", "Coder", "Critic"} {
				if earlier == member {
					break
				}
				if want := fmt.Sprintf("%s on task %d", earlier, task); !strings.Contains(text, want) {
					mu.Lock()
					missing = append(missing, member+" lacks "+want)
					mu.Unlock()
				}
			}
			return llmtest.Reply{Text: fmt.Sprintf("%s on task %d", member, task), Delay: 200 * time.Millisecond}
		})
		h.env = append(h.env, "MYNAH_LOG_LEVEL=warn")
		var args []string
		if prof := os.Getenv("MYNAH_LOAD_CPUPROFILE"); prof != "" {
			args = append(args, "--cpuprofile", prof)
		}
		h.start(args...)
		pid := h.proc.Process.Pid
		time.Sleep(time.Second) // start-up settles
		idle0 := cpuTime(b, pid)
		time.Sleep(5 * time.Second)
		idle := (cpuTime(b, pid) - idle0) / 5 // per second, with nothing to do
		cpu0 := cpuTime(b, pid)
		started := time.Now()
		for i := 1; i <= messages; i++ {
			h.emu.SendGroup(crewRoom, alice, fmt.Sprintf("@coder_bot task %d", i))
			h.waitSent(crewRoom.ID, 3*i)
		}
		h.waitQuiet()
		elapsed := time.Since(started)
		cpu := cpuTime(b, pid) - cpu0
		h.stop()
		said := h.said()
		dup := 0
		seen := map[string]bool{}
		for _, s := range said {
			if seen[s] {
				dup++
			}
			seen[s] = true
		}
		var order []string
		for i := 1; i <= messages; i++ {
			for _, m := range []string{"Analyst", "Coder", "Critic"} {
				order = append(order, fmt.Sprintf("%s: %s on task %d", m, m, i))
			}
		}
		if !slices.Equal(said, order) {
			b.Errorf("the group saw %d member messages (%d duplicates), not the %d expected in order", len(said), dup, len(order))
		}
		if len(missing) > 0 {
			b.Errorf("%d member requests lacked an earlier message of their cycle, e.g. %s", len(missing), missing[0])
		}
		turns := 3 * messages
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(turns), "cpu-ms/turn")
		b.ReportMetric(float64((cpu-time.Duration(elapsed.Seconds()*float64(idle))).Microseconds())/1000/float64(turns), "cpu-ms/turn-over-idle")
		b.ReportMetric(elapsed.Seconds()/float64(messages), "s/cycle")
		b.ReportMetric(float64(dup), "duplicates")
		b.ReportMetric(float64(len(order)-len(seen)), "missing")
	}
}

// cpuTime is pid's CPU time so far (user + system, all threads), from /proc.
func cpuTime(b *testing.B, pid int) time.Duration {
	f, err := readProc(pid)
	if err != nil {
		b.Fatal(err)
	}
	return f.cpu
}
