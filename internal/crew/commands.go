package crew

import (
	"context"
	"fmt"
	"strings"

	"github.com/mynah-ai/mynah"
)

// Commands are the crew commands, answered in a crew's chat instead of the agent's own
// (/stop there ends the cycle; elsewhere it is /mute's alias).
var Commands = []string{"agents", "next", "stop", "crew"}

// IsCommand reports whether name (lower case, without '/') is a crew command.
func IsCommand(name string) bool {
	for _, c := range Commands {
		if c == name {
			return true
		}
	}
	return false
}

// Command answers crew command cmd (lower case, without '/'), which member agent's bot
// received in msg's chat, and applies it: /agents shows the members, their order, whose
// turn it is and the mode; /next skips the member whose turn it is (an answer it is
// writing is dropped); /stop ends the cycle now; /crew reset starts a new crew session
// (every member's conversation starts after the command; nothing is deleted).
// handled is false when agent is in no crew in that chat, or cmd is no crew command.
//
// A command sent to every bot (/agents, not /agents@bot) is answered by one member only,
// the first of the crew, with reply "" for the others; its effect is applied once,
// however many members receive it.
//
// A command that changes the crew's state (/next, /stop, /crew reset) is answered by the
// crew itself: its reply is queued in the transaction that saves the change, and reply is
// "" (the caller queues nothing). So the reply is sent exactly once, also when the update
// is delivered again after a crash, and the member a /next hands the turn to is asked
// only once the reply is delivered: the group sees "Skipped X." before that member's
// message, whichever bots send them (see advance).
func (e *Engine) Command(ctx context.Context, agent string, msg *mynah.Message, cmd string, explicit bool) (reply string, handled bool, err error) {
	if !IsCommand(cmd) || !msg.Chat.IsGroup() {
		return "", false, nil
	}
	c, ok, err := e.crewIn(ctx, agent, msg.Chat.ID)
	if err != nil || !ok {
		return "", false, err
	}
	if !explicit && c.Members[0].Agent != agent {
		return "", true, nil
	}
	arg := ""
	if f := strings.Fields(msg.Text); len(f) > 1 {
		arg = strings.ToLower(f[1])
	}
	if cmd == "crew" && arg != "reset" {
		return "Usage: /crew reset (starts a new crew session; nothing is deleted). /agents shows the crew, /next skips the member whose turn it is, /stop ends the cycle.", true, nil
	}
	if cmd == "agents" {
		st, err := e.store.CrewState(ctx, c.Name, msg.Chat.ID)
		if err != nil {
			return "", true, err
		}
		syncMembers(c, &st)
		return e.describe(c, st), true, nil
	}
	var dropAgent string // the member whose turn, dropTurn, the command dropped
	var dropTurn int64
	err = e.updateReset(ctx, c, msg.Chat.ID, func(st *mynah.CrewState) (*mynah.Turn, mynah.MessageID, error) {
		dropAgent, dropTurn = "", 0
		if msg.ID <= st.Command {
			return nil, 0, errNoChange // applied already, and answered with it
		}
		st.Command = msg.ID
		if st.Active && st.Turn != 0 && st.Outcome == "" {
			dropAgent, dropTurn = st.Members[st.Next].Agent, st.Turn // unanswered yet
		}
		var note, skipped string
		var next *mynah.Turn
		var reset mynah.MessageID
		switch {
		case !st.Active && cmd != "crew":
			note = "No cycle is under way."
		case cmd == "next":
			skipped = st.Members[st.Next].Agent
			note = "Skipped " + skipped + "."
			next = e.skip(c, st)
		case cmd == "stop":
			note = "Stopped."
			e.end(c, st, endStop) // a stopped cycle starts no other
		default: // /crew reset
			if st.Active {
				e.end(c, st, endReset)
			}
			st.Session, reset = msg.ID, msg.ID
			st.Target, st.Replied = max(st.Target, msg.ID), max(st.Replied, msg.ID)
			for i := range st.Members {
				st.Members[i].Turns = 0
			}
			note = "Started a new crew session: the members keep the earlier messages stored, but won't look at them from now on."
		}
		t := &mynah.Turn{Agent: e.replier(agent, skipped, next), Chat: msg.Chat.ID, ThreadID: msg.ThreadID,
			Target: msg.ID, Sender: msg.Sender.ID, ReplyTo: msg.ID, Created: e.opts.Now(),
			Static: note + "\n\n" + e.describe(c, *st)}
		return t, reset, nil
	})
	if err == nil && dropTurn != 0 {
		// Whatever the member would answer is dropped (Answered): its lane need not wait
		// for it.
		e.drop(dropAgent, dropTurn)
	}
	return "", true, err
}

// replier returns the member whose bot sends the reply to a command agent's bot received:
// agent, unless the command skipped agent's own turn and handed it on to next (/next):
// agent's lane may be busy with that turn for as long as its model takes, and next's
// turn waits for the reply, so next's bot sends it, just before next speaks.
func (e *Engine) replier(agent, skipped string, next *mynah.Turn) string {
	if agent == skipped && next != nil {
		return next.Agent
	}
	return agent
}

// skip moves past the member whose turn it is in st without waiting for its turn, and
// returns the next member's turn (nil when the cycle ends).
func (e *Engine) skip(c Crew, st *mynah.CrewState) *mynah.Turn {
	st.Next++
	if st.Closing || st.Next >= len(st.Members) {
		// Skipping the last member of a round ends the round as if it had passed.
		if st.Closing || len(st.Spoke) == 0 || st.Round >= c.MaxRounds {
			return e.end(c, st, endSilent)
		}
		st.Round, st.Next = st.Round+1, 0
		st.Spoke, st.Passed, st.Failed = nil, nil, nil
	}
	return e.queue(c, st)
}

// describe is /agents: the crew, its order and mode, and where its cycle stands.
func (e *Engine) describe(c Crew, st mynah.CrewState) string {
	var b strings.Builder
	bots := e.botsOf()
	fmt.Fprintf(&b, "Crew %s (%s, at most %d rounds, pass %s):\n", c.Name, c.mode(), c.MaxRounds, c.Pass)
	for i, m := range c.Members {
		fmt.Fprintf(&b, "\n%d. %s", i+1, m.Agent)
		if u := bots[m.Agent]; u.Username != "" {
			fmt.Fprintf(&b, " @%s", u.Username)
		}
		if i < len(st.Members) && st.Members[i].Turns > 0 {
			fmt.Fprintf(&b, " (%d turns)", st.Members[i].Turns)
		}
		if st.Active && i == st.Next {
			b.WriteString(" ← speaking")
		}
	}
	if !st.Active {
		b.WriteString("\n\nNo cycle under way: write to a member to start one.")
		if st.Ended != "" {
			fmt.Fprintf(&b, " The last ended: %s.", st.Ended)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "\n\nCycle %d, round %d of %d", st.Cycle, st.Round, c.MaxRounds)
	if st.Closing {
		b.WriteString(" (closing)")
	}
	b.WriteString(".")
	if len(st.Passed) > 0 {
		fmt.Fprintf(&b, " Passed this round: %s.", strings.Join(st.Passed, ", "))
	}
	if len(st.Failed) > 0 {
		fmt.Fprintf(&b, " Failed this round: %s.", strings.Join(st.Failed, ", "))
	}
	return b.String()
}
