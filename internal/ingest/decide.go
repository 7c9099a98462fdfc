package ingest

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
)

// plan decides what the agent does about a new message — answer it with the model, handle
// a command, reply with a pairing code or a notice, only store it, or not even store it —
// and records that in intake. Lookups the policy needs (pairing, the chat's mode) and the
// changes admin commands make happen here, before the intake is accepted; they are
// idempotent, so a retried update repeats them harmlessly.
func (in *Ingester) plan(ctx context.Context, intake *mynah.Intake, msg *mynah.Message) error {
	now := in.now()
	turn := &mynah.Turn{
		Agent:    in.agent.Name,
		Chat:     msg.Chat.ID,
		ThreadID: msg.ThreadID,
		Target:   msg.ID,
		Sender:   msg.Sender.ID,
		Created:  now,
	}
	if msg.Chat.IsGroup() {
		turn.ReplyTo = msg.ID
	}
	am := access.Message{Chat: msg.Chat, Sender: msg.Sender}
	cmd, isCmd := ParseCommand(msg, in.agent.Bot.Username)
	if isCmd && answers(cmd) {
		am.Command = cmd
	}
	if isCmd {
		switch crew, err := in.crewCommand(ctx, msg, cmd); {
		case err != nil:
			return err
		case crew:
			am.Command = crewPrefix + cmd // crew.go
		}
	}
	var err error
	switch {
	case msg.Chat.IsGroup() && !in.policy.Block.Contains(msg.Sender):
		am.Signals = in.trigger.Signals(msg)
		if am.Mode, err = in.state.ChatMode(ctx, in.agent.Name, msg.Chat.ID); err != nil {
			return err
		}
		if in.policy.NeedsGroupApproval() {
			if am.GroupApproved, err = in.groupApproved(ctx, msg.Chat.ID); err != nil {
				return err
			}
		}
	case msg.Chat.Type == mynah.ChatPrivate && in.policy.NeedsPairingCheck(msg.Sender):
		if am.Paired, err = in.isPaired(ctx, msg.Sender.ID); err != nil {
			return err
		}
	}
	d := access.Decide(in.policy, am, now, in.limits)
	in.log.Debug("access", "chat", msg.Chat.ID, "user", msg.Sender.ID, "message", msg.ID, "action", d.Action.String(), "reason", d.Reason)
	switch d.Action {
	case access.Ignore:
		*intake = mynah.Intake{}
		return nil
	case access.Store:
		if msg.Chat.IsGroup() && in.policy.NeedsGroupApproval() && !am.GroupApproved {
			return in.noticeGroup(ctx, msg.Chat, mynah.User{})
		}
		return nil
	case access.Pair:
		turn.Static, err = in.pair(ctx, msg.Sender, am.Command, now)
	case access.Notify:
		turn.Static = d.Notice
	case access.Command:
		if strings.HasPrefix(am.Command, crewPrefix) {
			turn.Static, err = in.answerCrew(ctx, msg, am.Command)
		} else if am.Command == "memories" || am.Command == "forget" {
			err = in.factsCommand(ctx, am.Command, msg, turn)
		} else {
			turn.Static, err = in.command(ctx, am, msg, intake)
		}
	case access.Answer:
		intake.Turn = turn
		return nil
	}
	if err != nil {
		return err
	}
	if turn.Static != "" {
		intake.Turn = turn
	}
	return nil
}

// pair returns the reply to a stranger under the pairing policy: their code when it is
// new, or when they send /start again while it is pending (otherwise they would get the
// same code for every message they send); a request to try later when too many codes are
// pending. A fresh code that collides with a stored one fails the update, which Telegram
// redelivers and a new code is drawn.
func (in *Ingester) pair(ctx context.Context, user mynah.User, cmd string, now time.Time) (string, error) {
	code, err := access.NewCode(in.random)
	if err != nil {
		return "", err
	}
	p, created, err := in.state.RequestPairing(ctx, in.agent.Name, user, code, now, access.CodeTTL, access.MaxPending)
	switch {
	case errors.Is(err, errNoState):
		return "", nil
	case errors.Is(err, mynah.ErrPairingsFull):
		in.log.Warn("pairing refused: too many pending codes", "user", user.ID, "username", user.Username)
		return access.PairingsFullNotice, nil
	case err != nil:
		return "", err
	case created:
		in.log.Info("pairing code issued", "user", user.ID, "username", user.Username,
			"name", user.Name(), "code", p.Code, "approve", access.ApproveCommand(p.Code, in.agent.ConfigDir))
	case cmd != "start":
		return "", nil
	}
	valid := max(time.Minute, p.Expires.Sub(now).Round(time.Minute))
	return access.PairingNotice(p.Code, valid, access.ApproveCommand(p.Code, in.agent.ConfigDir)), nil
}

// isPaired reports whether user was approved through pairing. Approvals are remembered:
// they are never withdrawn while mynah runs, and a miss is asked again every time, so an
// approval made by another process takes effect with the user's next message.
func (in *Ingester) isPaired(ctx context.Context, user mynah.UserID) (bool, error) {
	if in.paired.has(user) {
		return true, nil
	}
	ok, err := in.state.Approved(ctx, in.agent.Name, user)
	if err != nil {
		return false, err
	}
	if ok {
		in.paired.add(user)
	}
	return ok, nil
}

// noState stands in for a missing AccessState: nobody is paired, every chat has its
// configured mode, no group is approved at runtime, and nothing can be changed.
type noState struct{}

var errNoState = errors.New("no access state configured")

func (noState) RequestPairing(context.Context, string, mynah.User, string, time.Time, time.Duration, int) (mynah.Pairing, bool, error) {
	return mynah.Pairing{}, false, errNoState
}

func (noState) Approved(context.Context, string, mynah.UserID) (bool, error) { return false, nil }

func (noState) ChatMode(_ context.Context, agent string, chat mynah.ChatID) (mynah.ChatMode, error) {
	return mynah.ChatMode{Agent: agent, Chat: chat}, nil
}

func (noState) SetChatMode(context.Context, mynah.ChatMode) error { return errNoState }

func (noState) GroupApproval(_ context.Context, agent string, chat mynah.ChatID) (mynah.GroupApproval, error) {
	return mynah.GroupApproval{Agent: agent, Chat: mynah.Chat{ID: chat}}, nil
}

func (noState) GroupAdded(context.Context, string, mynah.Chat, mynah.User, time.Time) error {
	return nil
}

func (noState) ApproveGroup(context.Context, string, mynah.ChatID, mynah.UserID, time.Time) (mynah.GroupApproval, error) {
	return mynah.GroupApproval{}, errNoState
}

// NoticeGroup reports every group as new: the Ingester tells about it once per process.
func (noState) NoticeGroup(context.Context, string, mynah.Chat, time.Time) (bool, error) {
	return true, nil
}
