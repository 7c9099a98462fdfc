package ingest

import (
	"context"
	"strings"

	"github.com/mynah-ai/mynah"
)

// Crew answers the crew commands in the groups where the agent works in a crew
// (internal/crew implements it). There /stop ends the crew's cycle; elsewhere it is
// /mute's alias.
type Crew interface {
	// InCrew reports whether agent works in a crew in chat.
	InCrew(ctx context.Context, agent string, chat mynah.ChatID) (bool, error)
	// Command answers crew command cmd (lower case, without '/') that agent's bot
	// received in msg, explicit when it named the bot (/cmd@bot), and applies it. handled
	// is false when agent is in no crew in msg's chat or cmd is not a crew command; an
	// empty reply sends nothing (another member answers, or the crew queued the reply
	// itself, with the change the command made).
	Command(ctx context.Context, agent string, msg *mynah.Message, cmd string, explicit bool) (reply string, handled bool, err error)
}

// crewCommands are the commands a Crew may answer.
var crewCommands = map[string]bool{"agents": true, "next": true, "stop": true, "crew": true}

// crewPrefix marks a crew command in access.Message.Command: the access policy treats it
// as an ordinary command (anybody who may talk to the agent there may use it, within the
// rate limit), not as the admin command /stop.
const crewPrefix = "crew:"

// crewCommand reports whether the command cmd of msg goes to the crew: the agent works in
// a crew in msg's group and cmd is one of its commands. The crew answers it (and applies
// it) only once the access policy lets it through, in answerCrew; asking here applies
// nothing.
func (in *Ingester) crewCommand(ctx context.Context, msg *mynah.Message, cmd string) (bool, error) {
	if in.crew == nil || !msg.Chat.IsGroup() || !crewCommands[cmd] {
		return false, nil
	}
	return in.crew.InCrew(ctx, in.agent.Name, msg.Chat.ID)
}

// answerCrew is the reply to a crew command the policy let through.
func (in *Ingester) answerCrew(ctx context.Context, msg *mynah.Message, cmd string) (string, error) {
	word, _, _ := strings.Cut(msg.Text, " ")
	explicit := strings.Contains(word, "@")
	reply, _, err := in.crew.Command(ctx, in.agent.Name, msg, strings.TrimPrefix(cmd, crewPrefix), explicit)
	return reply, err
}
