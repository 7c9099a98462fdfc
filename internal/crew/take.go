package crew

import (
	"context"
	"errors"
	"fmt"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/lane"
)

// crewIn returns the crew agent works in in chat: the crew of that chat, or a crew of any
// group ("*") whose members have all seen chat.
func (e *Engine) crewIn(ctx context.Context, agent string, chat mynah.ChatID) (Crew, bool, error) {
	var anyGroup *Crew
	for i, c := range e.crews {
		if c.index(agent) < 0 {
			continue
		}
		if c.Chat == chat {
			return c, true, nil
		}
		if c.Chat == 0 && chat < 0 && anyGroup == nil {
			anyGroup = &e.crews[i]
		}
	}
	if anyGroup == nil {
		return Crew{}, false, nil
	}
	ok, err := e.allPresent(ctx, *anyGroup, chat)
	return *anyGroup, ok, err
}

// InCrew reports whether agent works in a crew in chat.
func (e *Engine) InCrew(ctx context.Context, agent string, chat mynah.ChatID) (bool, error) {
	_, ok, err := e.crewIn(ctx, agent, chat)
	return ok, err
}

// allPresent reports whether every member of c has seen chat. A yes is remembered.
func (e *Engine) allPresent(ctx context.Context, c Crew, chat mynah.ChatID) (bool, error) {
	key := presence{c.Name, chat}
	e.mu.Lock()
	known := e.present[key]
	e.mu.Unlock()
	if known {
		return true, nil
	}
	for _, m := range c.Members {
		_, err := e.store.Chat(ctx, m.Agent, chat)
		if errors.Is(err, mynah.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
	e.mu.Lock()
	e.present[key] = true
	e.mu.Unlock()
	return true, nil
}

// Take is lane.Crew's: it is asked about every model turn of agent. In a crew's chat the
// turn is either the member's turn of the cycle under way, answered with the crew's layer,
// or a message addressed to a member, which the crew takes over: it starts a cycle, or,
// during one, becomes what the next member answers. Messages of the members' own bots,
// and messages the crew has seen already (a message addressed to several members), start
// nothing.
func (e *Engine) Take(ctx context.Context, agent string, t mynah.Turn) (lane.CrewTurn, error) {
	c, ok, err := e.crewIn(ctx, agent, t.Chat)
	if err != nil || !ok {
		return lane.CrewTurn{}, err
	}
	st, err := e.store.CrewState(ctx, c.Name, t.Chat)
	if err != nil {
		return lane.CrewTurn{}, err
	}
	if st.Active && st.Turn == t.ID {
		i := c.index(agent)
		return lane.CrewTurn{Role: lane.CrewMember, Layer: c.Layer(agent, e.botsOf()), Policy: c.Members[i].History,
			Timeout: c.Timeout, Pass: c.Pass, Moderator: c.Moderator == agent}, nil
	}
	msg, err := e.store.Message(ctx, agent, t.Chat, t.Target)
	if err != nil {
		return lane.CrewTurn{}, fmt.Errorf("crew %s: reading the message addressed to it: %w", c.Name, err)
	}
	taken := lane.CrewTurn{Role: lane.CrewTaken}
	if e.isMember(c, msg.Sender) || msg.ID <= st.Target {
		return taken, nil
	}
	// Every member sees what was addressed to the crew, whether its bot got it or not.
	if err := e.store.ShareMessage(ctx, c.names(), msg); err != nil {
		return lane.CrewTurn{}, err
	}
	err = e.update(ctx, c, t.Chat, func(st *mynah.CrewState) (*mynah.Turn, error) {
		if msg.ID <= st.Target {
			return nil, errNoChange
		}
		st.Target = msg.ID
		if st.Active {
			// The next member to speak answers it; no second cycle runs beside this one.
			return nil, nil
		}
		st.Thread = msg.ThreadID
		pending, err := e.replyPending(ctx, st)
		if err != nil {
			return nil, err
		}
		if pending {
			// A command's reply ("Stopped.") is still on its way through its bot's lane:
			// the cycle starts now, and its first member is asked once the reply is
			// delivered (advance, as after /next), so the group sees them in that order.
			e.begin(c, st)
			return nil, nil
		}
		return e.start(c, st), nil
	})
	if err != nil {
		return lane.CrewTurn{}, err
	}
	return taken, nil
}

// isMember reports whether u is the bot of one of c's members.
func (e *Engine) isMember(c Crew, u mynah.User) bool {
	if u.ID == 0 {
		return false
	}
	bots := e.botsOf()
	for _, m := range c.Members {
		if bots[m.Agent].ID == u.ID {
			return true
		}
	}
	return false
}

// Answered is lane.Crew's: it records how member agent's turn t ended, and what the
// member had seen, when t is still the turn the cycle waits for; it reports whether it
// is (a member skipped with /next, or a cycle stopped, has its answer dropped).
func (e *Engine) Answered(ctx context.Context, agent string, t mynah.Turn, outcome string, seen mynah.MessageID) (bool, error) {
	c, ok, err := e.crewIn(ctx, agent, t.Chat)
	if err != nil || !ok {
		return false, err
	}
	wanted := false
	err = e.update(ctx, c, t.Chat, func(st *mynah.CrewState) (*mynah.Turn, error) {
		wanted = st.Active && st.Turn == t.ID
		if !wanted {
			return nil, errNoChange // skipped or stopped meanwhile
		}
		st.Outcome = outcome
		m := &st.Members[c.index(agent)]
		m.LastSeen = max(m.LastSeen, seen)
		if outcome == mynah.CrewSpoke || outcome == mynah.CrewClosed {
			st.Replied = max(st.Replied, t.ReplyTo)
		}
		return nil, nil
	})
	e.poke()
	return wanted && err == nil, err
}
