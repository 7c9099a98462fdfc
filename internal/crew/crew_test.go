package crew_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/crew"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/prompt"
)

func team(maxRounds int, names ...string) crew.Crew {
	c := crew.Crew{Name: "team", Chat: group.ID, MaxRounds: maxRounds}
	for _, n := range names {
		c.Members = append(c.Members, crew.Member{Agent: n, Role: "the " + strings.ToLower(n)})
	}
	return c
}

// speaks answers "<name> <n>" for the first rounds calls, then passes.
func speaks(name string, rounds int) reply {
	return func(_ llm.Request, n int) (string, error) {
		if n < rounds {
			return fmt.Sprintf("%s says %d", name, n+1), nil
		}
		return " ..... \n", nil
	}
}

// turnsText flattens a request's turns as "<role> text" lines.
func turnsText(req llm.Request) string {
	var b strings.Builder
	for _, t := range req.Turns {
		for _, p := range t.Parts {
			fmt.Fprintf(&b, "<%s> %s\n", t.Role, p.Text)
		}
	}
	return b.String()
}

// TestCycleInOrder: a message mentioning one member starts a cycle in which every member
// speaks once per round, in order, each seeing the user's message and what the members
// before it said as user turns with their names in [meta]; passes are not sent; the cycle
// ends when every member passes in a round.
func TestCycleInOrder(t *testing.T) {
	r := newRig(t, team(3, "Ann", "Ben", "Cat"), map[string]reply{
		"Ann": speaks("Ann", 1), "Ben": speaks("Ben", 1), "Cat": speaks("Cat", 1),
	})
	ask := r.say("@ben_bot plan a picnic for saturday")
	st := r.waitEnded("team", 1)

	want := []string{"Ann: Ann says 1", "Ben: Ben says 1", "Cat: Cat says 1"}
	if diff := cmp.Diff(r.tg.lines(), want); diff != "" {
		t.Errorf("sent (-got +want):\n%s", diff)
	}
	if st.Ended != "every member passed" || st.Round != 2 {
		t.Errorf("cycle ended in round %d: %q, want round 2: every member passed", st.Round, st.Ended)
	}
	// Ben, second, saw the question and Ann's message as a user's, never as its own words.
	ben := r.models["Ben"].requests()[0]
	text := turnsText(ben)
	for _, s := range []string{"plan a picnic", `name="Ann" username=@ann_bot`, "Ann says 1"} {
		if !strings.Contains(text, s) {
			t.Errorf("Ben's first request lacks %q:\n%s", s, text)
		}
	}
	for _, turn := range ben.Turns {
		if turn.Role == llm.Assistant {
			t.Errorf("Ben's first request has an assistant turn (%v): another member's words as its own", turn.Parts)
		}
	}
	if !strings.Contains(ben.System, `crew "team"`) || !strings.Contains(ben.System, "Cat (@cat_bot): the cat") || strings.Contains(ben.System, "Ben (@ben_bot)") {
		t.Errorf("Ben's crew layer does not name the others with their roles:\n%s", ben.System)
	}
	// Cat saw all of it; in round 2 Ann saw Ben and Cat, and its own message as its own.
	if cat := turnsText(r.models["Cat"].requests()[0]); !strings.Contains(cat, "Ben says 1") || !strings.Contains(cat, "Ann says 1") {
		t.Errorf("Cat's request lacks the earlier members:\n%s", cat)
	}
	ann := r.models["Ann"].requests()[1]
	if got := turnsText(ann); !strings.Contains(got, "<assistant> Ann says 1") || !strings.Contains(got, "Cat says 1") {
		t.Errorf("Ann's second request:\n%s", got)
	}
	// The first member replied to the question; the others did not reply to anything.
	r.tg.mu.Lock()
	replies := []mynah.MessageID{r.tg.log[0].replyTo, r.tg.log[1].replyTo, r.tg.log[2].replyTo}
	r.tg.mu.Unlock()
	if !cmp.Equal(replies, []mynah.MessageID{ask, 0, 0}) {
		t.Errorf("replied to %v, want [%d 0 0]", replies, ask)
	}
	// Every member's view holds every message of the chat, exactly once.
	for _, name := range r.names {
		hist, err := r.db.History(t.Context(), name, group.ID, 0, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range hist {
			got = append(got, fmt.Sprintf("%d %s %v", m.ID, m.Text, m.Outgoing))
		}
		want := []string{fmt.Sprintf("%d @ben_bot plan a picnic for saturday false", ask),
			fmt.Sprintf("%d Ann says 1 %v", ask+1, name == "Ann"),
			fmt.Sprintf("%d Ben says 1 %v", ask+2, name == "Ben"),
			fmt.Sprintf("%d Cat says 1 %v", ask+3, name == "Cat")}
		if diff := cmp.Diff(got, want); diff != "" {
			t.Errorf("%s's view (-got +want):\n%s", name, diff)
		}
	}
	for i, m := range st.Members {
		if m.Turns != 1 || m.LastSeen < ask+mynah.MessageID(i) {
			t.Errorf("member %s: %d turns, last seen %d", m.Agent, m.Turns, m.LastSeen)
		}
	}
}

// TestMaxRounds: members who always have more to say stop after max_rounds rounds.
func TestMaxRounds(t *testing.T) {
	r := newRig(t, team(2, "Ann", "Ben"), map[string]reply{"Ann": speaks("Ann", 9), "Ben": speaks("Ben", 9)})
	r.say("@ann_bot talk")
	st := r.waitEnded("team", 1)
	want := []string{"Ann: Ann says 1", "Ben: Ben says 1", "Ann: Ann says 2", "Ben: Ben says 2"}
	if diff := cmp.Diff(r.tg.lines(), want); diff != "" {
		t.Errorf("sent (-got +want):\n%s", diff)
	}
	if st.Ended != "the last round (max_rounds) is over" {
		t.Errorf("ended: %q", st.Ended)
	}
}

// TestMemberFailsOrTimesOut: a member whose model fails, or does not answer within the
// crew's timeout, is skipped for the round (no apology is sent) and the others go on; a
// round in which every member failed ends the cycle.
func TestMemberFailsOrTimesOut(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	c := team(2, "Ann", "Ben", "Cat")
	c.Timeout = 300 * time.Millisecond
	r := newRig(t, c, map[string]reply{
		"Ann": speaks("Ann", 1),
		"Ben": func(llm.Request, int) (string, error) { return "", &llm.Error{Status: 400, Message: "bad request"} },
		"Cat": func(_ llm.Request, n int) (string, error) {
			<-release // hangs past the timeout
			return "too late", nil
		},
	})
	r.say("@ann_bot go")
	st := r.waitEnded("team", 1)
	if diff := cmp.Diff(r.tg.lines(), []string{"Ann: Ann says 1"}); diff != "" {
		t.Errorf("sent (-got +want):\n%s", diff)
	}
	if st.Ended != "nobody had more to say" {
		t.Errorf("ended: %q (round %d)", st.Ended, st.Round)
	}

	// Nobody can answer: the cycle ends after one round.
	r2 := newRig(t, team(3, "Ann", "Ben"), map[string]reply{
		"Ann": func(llm.Request, int) (string, error) { return "", errors.New("connection refused") },
		"Ben": func(llm.Request, int) (string, error) { return "", &llm.Error{Status: 401, Message: "no key"} },
	})
	r2.say("@ann_bot go")
	if st := r2.waitEnded("team", 1); st.Ended != "every member failed (error or timeout)" || st.Round != 1 {
		t.Errorf("ended in round %d: %q", st.Round, st.Ended)
	}
	if lines := r2.tg.lines(); len(lines) != 0 {
		t.Errorf("sent %q, want nothing (no apologies in a crew)", lines)
	}
}

// TestInterjection: a user's message during a cycle starts no second cycle; the next
// member to speak sees it and answers it.
func TestInterjection(t *testing.T) {
	annWrites := make(chan struct{})
	annGo := make(chan struct{})
	r := newRig(t, team(1, "Ann", "Ben", "Cat"), map[string]reply{
		"Ann": func(_ llm.Request, n int) (string, error) {
			if n == 0 {
				close(annWrites)
				<-annGo
			}
			return "Ann here", nil
		},
		"Ben": speaks("Ben", 1), "Cat": speaks("Cat", 1),
	})
	r.say("@ann_bot first question")
	<-annWrites
	second := r.say("@cat_bot and one more thing")
	// Cat's lane hands the interjection to the crew; Ann finishes once it has.
	r.waitFor("the interjection reaches the crew", func() bool { return r.state("team").Target == second })
	close(annGo)
	st := r.waitEnded("team", 1)
	if st.Cycle != 1 {
		t.Errorf("%d cycles, want 1", st.Cycle)
	}
	if diff := cmp.Diff(r.tg.lines(), []string{"Ann: Ann here", "Ben: Ben says 1", "Cat: Cat says 1"}); diff != "" {
		t.Errorf("sent (-got +want):\n%s", diff)
	}
	ben := r.models["Ben"].requests()
	if len(ben) != 1 || !strings.Contains(turnsText(ben[0]), "one more thing") ||
		!strings.Contains(turnsText(ben[0]), fmt.Sprintf("message_id %d.", second)) {
		t.Errorf("Ben's request does not answer the interjection:\n%s", turnsText(ben[0]))
	}
	if n := len(r.models["Cat"].requests()); n != 1 {
		t.Errorf("Cat was asked %d times, want once", n)
	}
}

// TestModerator: the moderator opens each round and closes the cycle by ending its
// message with the pass token, which is not sent.
func TestModerator(t *testing.T) {
	c := team(3, "Ann", "Ben", "Mod")
	c.Moderator = "Mod"
	r := newRig(t, c, map[string]reply{
		"Ann": speaks("Ann", 9), "Ben": speaks("Ben", 9),
		"Mod": func(_ llm.Request, n int) (string, error) {
			if n == 0 {
				return "Ann, then Ben: go.", nil
			}
			return "Done, thanks all. .....", nil
		},
	})
	r.say("@mod_bot organise it")
	st := r.waitEnded("team", 1)
	want := []string{"Mod: Ann, then Ben: go.", "Ann: Ann says 1", "Ben: Ben says 1", "Mod: Done, thanks all."}
	if diff := cmp.Diff(r.tg.lines(), want); diff != "" {
		t.Errorf("sent (-got +want):\n%s", diff)
	}
	if st.Ended != "the moderator closed it" {
		t.Errorf("ended: %q", st.Ended)
	}
	if !strings.Contains(r.models["Mod"].requests()[0].System, "end your message with .....") {
		t.Error("the moderator is not told how to close")
	}
}

// TestCommands: /agents shows the crew, whose turn it is and the mode; /next skips the
// member whose turn it is, and the group sees its reply before the next member speaks,
// whichever bot sends it; /stop ends the cycle; /crew reset starts a new crew session; a
// bare command is answered by one member only.
func TestCommands(t *testing.T) {
	benGo := make(chan struct{})
	var once sync.Once
	r := newRig(t, team(3, "Ann", "Ben", "Cat"), map[string]reply{
		"Ann": speaks("Ann", 9),
		"Ben": func(_ llm.Request, n int) (string, error) {
			<-benGo
			return "Ben late", nil
		},
		"Cat": speaks("Cat", 9),
	})
	defer once.Do(func() { close(benGo) })
	r.say("@ann_bot start")
	r.waitFor("Ben's turn", func() bool { st := r.state("team"); return st.Active && st.Next == 1 })
	r.say("/agents")
	r.waitFor("the /agents reply", func() bool { return len(r.tg.lines()) == 2 })
	if got := r.tg.lines()[1]; !strings.HasPrefix(got, "Ann: Crew team (round robin, at most 3 rounds, pass .....):") ||
		!strings.Contains(got, "2. Ben @ben_bot ← speaking") || !strings.Contains(got, "round 1 of 3") {
		t.Errorf("/agents answered %q", got)
	}
	// A bare /next is answered by Ann's bot, and Cat, on its own bot, speaks after it.
	r.say("/next")
	r.waitFor("Cat's turn after /next", func() bool { return slices.Contains(r.tg.lines(), "Cat: Cat says 1") })
	if got := firstLines(r.tg.lines()[2:4]); !slices.Equal(got, []string{"Ann: Skipped Ben.", "Cat: Cat says 1"}) {
		t.Errorf("after /next the group saw %q, want the reply first", got)
	}
	// Ben's model call was stopped when it was skipped, so Ben's lane takes its second
	// turn (its model still never answers).
	r.waitFor("Ben's second turn", func() bool { st := r.state("team"); return st.Active && st.Round == 2 && st.Next == 1 })
	r.waitFor("Ben's model asked again", func() bool { return len(r.models["Ben"].requests()) == 2 })
	// /next sent to the bot of the member it skips: the next member's bot answers, and
	// then speaks.
	r.say("/next@ben_bot")
	r.waitFor("Cat's turn after /next@ben_bot", func() bool { return slices.Contains(r.tg.lines(), "Cat: Cat says 2") })
	if got := firstLines(r.tg.lines()[4:7]); !slices.Equal(got, []string{"Ann: Ann says 2", "Cat: Skipped Ben.", "Cat: Cat says 2"}) {
		t.Errorf("after /next@ben_bot the group saw %q, want Cat's reply first", got)
	}
	r.waitFor("Ann's third turn", func() bool { return slices.Contains(r.tg.lines(), "Ann: Ann says 3") })
	r.say("/stop")
	st := r.waitEnded("team", 1)
	r.waitFor("the /stop reply", func() bool { return countPrefix(r.tg.lines(), "Stopped.") >= 1 })
	if st.Ended != "stopped with /stop" {
		t.Errorf("ended: %q", st.Ended)
	}
	once.Do(func() { close(benGo) }) // Ben's skipped turns were never answered
	r.say("/crew reset")
	r.waitFor("the reset", func() bool { return r.state("team").Session != 0 })
	r.waitFor("the /crew reset reply", func() bool { return countPrefix(r.tg.lines(), "Started a new crew session") == 1 })
	for _, name := range r.names {
		sess, err := r.db.Session(t.Context(), name, group.ID, 0)
		if err != nil || sess.Start != r.state("team").Session {
			t.Errorf("%s's session: %+v, %v", name, sess, err)
		}
	}
	lines := r.tg.lines()
	for _, l := range lines {
		if strings.HasPrefix(l, "Ben:") {
			t.Errorf("Ben spoke after it was skipped: %q", l)
		}
	}
	// Each command answered once: /agents, both /next, /stop, /crew reset.
	for s, want := range map[string]int{"Crew team": 1, "Skipped Ben.": 2, "Stopped.": 1, "Started a new crew session": 1} {
		if n := countPrefix(lines, s); n != want {
			t.Errorf("%q sent %d times, want %d:\n%s", s, n, want, strings.Join(lines, "\n"))
		}
	}
}

// TestMessageRightAfterStop: a message right after /stop starts a new cycle, but its
// first member speaks only after the group has seen "Stopped.", though another bot sends
// that reply and its send is slow. Ben's model answers only once the test is over, so
// the cycle is still under way when /stop comes (with three instant members, a busy
// machine let the round end first).
func TestMessageRightAfterStop(t *testing.T) {
	benGo := make(chan struct{})
	var benOnce sync.Once
	r := newRig(t, team(1, "Ann", "Ben", "Cat"), map[string]reply{"Ann": speaks("Ann", 9), "Cat": speaks("Cat", 9),
		"Ben": func(_ llm.Request, n int) (string, error) {
			<-benGo
			return "Ben late", nil
		}})
	defer benOnce.Do(func() { close(benGo) })
	r.say("@ann_bot start")
	r.waitFor("Ben's turn", func() bool { st := r.state("team"); return st.Active && st.Next >= 1 })
	sending, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	r.tg.mu.Lock()
	r.tg.hold = func(text string) {
		if strings.HasPrefix(text, "Stopped.") {
			once.Do(func() { close(sending) })
			<-release
		}
	}
	r.tg.mu.Unlock()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	r.say("/stop@cat_bot")
	select {
	case <-sending:
	case <-time.After(10 * time.Second):
		t.Fatalf("the /stop reply was never sent; the group saw %q", r.tg.lines())
	}
	asked := len(r.models["Ann"].requests())
	r.say("@ann_bot again")
	r.waitFor("the second cycle", func() bool { return r.state("team").Cycle == 2 })
	// Ann must not be asked while "Stopped." is on its way; without the order she answers
	// within milliseconds, so a second is ample to see it.
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) && len(r.models["Ann"].requests()) == asked {
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(r.models["Ann"].requests()); n != asked {
		t.Errorf("Ann was asked %d more times before the /stop reply was sent", n-asked)
	}
	close(release)
	annAfterStop := func() bool {
		lines := r.tg.lines()
		stopped := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "Cat: Stopped.") })
		return stopped >= 0 && slices.ContainsFunc(lines[stopped:], func(l string) bool { return strings.HasPrefix(l, "Ann:") })
	}
	r.waitFor("Ann speaking after \"Stopped.\"", annAfterStop)
}

// TestNextAcrossRestart: mynah stopped while a member was speaking, and /next came before
// it ran again (as when it dies right after saving the command): the command's reply and
// whose turn it is wait in the store, the next member's turn is not queued yet; after the
// restart the group sees the reply, then the next member, once each, and the skipped
// member is not asked again.
func TestNextAcrossRestart(t *testing.T) {
	benGo := make(chan struct{})
	t.Cleanup(func() { close(benGo) })
	r := newRig(t, team(1, "Ann", "Ben", "Cat"), map[string]reply{
		"Ann": speaks("Ann", 9),
		"Ben": func(_ llm.Request, n int) (string, error) {
			<-benGo
			return "Ben late", nil
		},
		"Cat": speaks("Cat", 9),
	})
	r.say("@ann_bot start")
	r.waitFor("Ben's model asked", func() bool { return len(r.models["Ben"].requests()) == 1 })
	r.stopAll()
	r.say("/next")
	st := r.state("team")
	if !st.Active || st.Members[st.Next].Agent != "Cat" {
		t.Fatalf("after /next: %+v, want Cat's turn", st)
	}
	for _, name := range r.names {
		turns, err := r.db.PendingTurns(t.Context(), name, time.Now(), 10)
		if err != nil {
			t.Fatal(err)
		}
		var static []string
		for _, turn := range turns {
			if turn.Static != "" {
				static = append(static, firstLines([]string{turn.Static})[0])
			}
		}
		switch {
		case name == "Ann" && (len(static) != 1 || static[0] != "Skipped Ben."):
			t.Errorf("Ann's pending replies: %q, want the /next reply", static)
		case name == "Cat" && len(turns) != 0:
			t.Errorf("Cat's turn was queued before the /next reply was sent: %+v", turns)
		}
	}
	r.start()
	st = r.waitEnded("team", 1)
	want := []string{"Ann: Ann says 1", "Ann: Skipped Ben.", "Cat: Cat says 1"}
	if diff := cmp.Diff(firstLines(r.tg.lines()), want); diff != "" {
		t.Errorf("the group saw (-got +want):\n%s", diff)
	}
	if n := len(r.models["Ben"].requests()); n != 1 {
		t.Errorf("Ben's model was asked %d times, want once (before it was skipped)", n)
	}
	if st.Ended != "the last round (max_rounds) is over" {
		t.Errorf("ended: %q", st.Ended)
	}
}

// firstLines returns the first line of each of lines.
func firstLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i], _, _ = strings.Cut(l, "\n")
	}
	return out
}

func countPrefix(lines []string, s string) int {
	n := 0
	for _, l := range lines {
		_, text, _ := strings.Cut(l, ": ")
		if strings.HasPrefix(text, s) {
			n++
		}
	}
	return n
}

// TestResumeAfterStop: the engine and lanes stop in the middle of a cycle (as a process
// killed would); started again on the same store, the cycle goes on at the member whose
// turn it was, nobody speaking twice or being left out.
func TestResumeAfterStop(t *testing.T) {
	benStarted := make(chan struct{}, 1)
	r := newRig(t, team(1, "Ann", "Ben", "Cat"), map[string]reply{
		"Ann": speaks("Ann", 1),
		"Ben": func(req llm.Request, n int) (string, error) {
			select {
			case benStarted <- struct{}{}:
			default:
			}
			if n == 0 {
				time.Sleep(100 * time.Millisecond) // stopped meanwhile: the answer is lost
			}
			return "Ben says " + fmt.Sprint(n+1), nil
		},
		"Cat": speaks("Cat", 1),
	})
	r.say("@ann_bot go")
	<-benStarted
	r.stopAll()
	r.start()
	r.waitEnded("team", 1)
	lines := r.tg.lines()
	for _, name := range r.names {
		n := 0
		for _, l := range lines {
			if strings.HasPrefix(l, name+":") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s spoke %d times, want once:\n%s", name, n, strings.Join(lines, "\n"))
		}
	}
	if !slices.IsSortedFunc(lines, func(a, b string) int { return strings.Compare(a[:3], b[:3]) }) {
		t.Errorf("order: %q", lines)
	}
}

// TestMemberHistoryPolicy: a member with history delta sees only what came after its own
// last message (and the message it answers), with a pointer to what is left out.
func TestMemberHistoryPolicy(t *testing.T) {
	c := team(2, "Ann", "Ben")
	c.Members[0].History = &prompt.Policy{Kind: prompt.PolicyDelta}
	r := newRig(t, c, map[string]reply{"Ann": speaks("Ann", 9), "Ben": speaks("Ben", 9)})
	r.say("@ann_bot the original question")
	r.waitEnded("team", 1)
	second := turnsText(r.models["Ann"].requests()[1])
	if strings.Contains(second, "<assistant>") || !strings.Contains(second, "Ben says 1") || !strings.Contains(second, "You last spoke") {
		t.Errorf("Ann's second request under delta:\n%s", second)
	}
	if full := turnsText(r.models["Ben"].requests()[1]); !strings.Contains(full, "original question") {
		t.Errorf("Ben's second request (full history) lacks the question:\n%s", full)
	}
}

// TestMessageAsCycleEnds: a message written while the last member of the last round is
// answering, which no member's turn was asked about, starts the next cycle as the first
// ends: it is answered, not lost.
func TestMessageAsCycleEnds(t *testing.T) {
	catWrites := make(chan struct{})
	catGo := make(chan struct{})
	var once sync.Once
	r := newRig(t, team(1, "Ann", "Ben", "Cat"), map[string]reply{
		"Ann": speaks("Ann", 9), "Ben": speaks("Ben", 9),
		"Cat": func(_ llm.Request, n int) (string, error) {
			if n == 0 {
				once.Do(func() { close(catWrites) })
				<-catGo
			}
			return fmt.Sprintf("Cat says %d", n+1), nil
		},
	})
	r.say("@ann_bot first")
	<-catWrites
	r.say("@ben_bot second, just as Cat answers")
	close(catGo)
	r.waitEnded("team", 2)
	want := []string{"Ann: Ann says 1", "Ben: Ben says 1", "Cat: Cat says 1", "Ann: Ann says 2", "Ben: Ben says 2", "Cat: Cat says 2"}
	if diff := cmp.Diff(r.tg.lines(), want); diff != "" {
		t.Errorf("sent (-got +want):\n%s", diff)
	}
}
