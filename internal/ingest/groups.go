package ingest

import (
	"context"
	"fmt"
	"sync"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
)

// Groups without a configured list of groups (access.Policy.ApprovedGroups) are answered
// only once approved: the bot was added by a user the owner approved (an admin, an
// allowlisted or paired user), an admin ran /activation there, or the operator approved
// the group (`mynah pair approve-group`). Until then messages are stored and never
// answered, and the owner is told once per group, in the log, how to approve it.

// approveGroupCommand is the command that approves chat for agent, as the log shows it.
func approveGroupCommand(agent string, chat mynah.ChatID) string {
	return fmt.Sprintf("mynah pair approve-group %d --agent %s", chat, agent)
}

// groupApproved reports whether chat was approved at runtime. An approval is remembered:
// none is withdrawn while mynah runs, and a miss is asked again every time, so an approval
// made by another process (the CLI) takes effect with the group's next message.
func (in *Ingester) groupApproved(ctx context.Context, chat mynah.ChatID) (bool, error) {
	if in.approvedGroups.has(chat) {
		return true, nil
	}
	g, err := in.state.GroupApproval(ctx, in.agent.Name, chat)
	if err != nil {
		return false, err
	}
	ok := !g.Approved.IsZero()
	if !ok && g.AddedBy.ID != 0 {
		if ok, err = in.approves(ctx, g.AddedBy); err != nil {
			return false, err
		}
	}
	if ok {
		in.approvedGroups.add(chat)
	}
	return ok, nil
}

// approves reports whether user is one the owner approved (access.Policy.Approves).
func (in *Ingester) approves(ctx context.Context, user mynah.User) (bool, error) {
	if in.policy.Block.Contains(user) || in.policy.Approves(user, false) {
		return in.policy.Approves(user, false), nil
	}
	return in.isPaired(ctx, user.ID)
}

// noticeGroup tells the owner, once per group, that chat waits for approval.
func (in *Ingester) noticeGroup(ctx context.Context, chat mynah.Chat, addedBy mynah.User) error {
	if in.noticedGroups.has(chat.ID) {
		return nil
	}
	first, err := in.state.NoticeGroup(ctx, in.agent.Name, chat, in.now())
	if err != nil {
		return err
	}
	in.noticedGroups.add(chat.ID)
	if first {
		args := []any{"chat", chat.ID, "title", chat.Title}
		if addedBy.ID != 0 {
			args = append(args, "added_by", addedBy.ID, "added_by_name", addedBy.Name())
		}
		in.log.Warn("group not approved: its messages are stored, never answered",
			append(args, "approve", approveGroupCommand(in.agent.Name, chat.ID))...)
	}
	return nil
}

// memberChange records who added the bot to a group and, when the group needs approval,
// tells the owner whether it is answered from now on or waits for them.
func (in *Ingester) memberChange(ctx context.Context, chat mynah.Chat, c mynah.MemberChange) error {
	if !chat.IsGroup() || !c.Joined() {
		return nil
	}
	if err := in.state.GroupAdded(ctx, in.agent.Name, chat, c.By, in.now()); err != nil {
		return err
	}
	if !in.policy.NeedsGroupApproval() {
		return nil
	}
	ok, err := in.groupApproved(ctx, chat.ID)
	switch {
	case err != nil:
		return err
	case ok:
		in.log.Info("added to a group by an approved user: answering there", "chat", chat.ID, "title", chat.Title,
			"added_by", c.By.ID)
		return nil
	}
	return in.noticeGroup(ctx, chat, c.By)
}

// activateGroup approves chat, where admin ran /activation.
func (in *Ingester) activateGroup(ctx context.Context, am access.Message) error {
	if !in.policy.NeedsGroupApproval() || am.GroupApproved {
		return nil
	}
	if _, err := in.state.ApproveGroup(ctx, in.agent.Name, am.Chat.ID, am.Sender.ID, in.now()); err != nil {
		return err
	}
	in.approvedGroups.add(am.Chat.ID)
	in.log.Info("group approved by an admin's /activation", "chat", am.Chat.ID, "title", am.Chat.Title, "admin", am.Sender.ID)
	return nil
}

// syncSet is a set that is safe for concurrent use; the zero value is empty.
type syncSet[K comparable] struct {
	mu sync.Mutex
	m  map[K]bool
}

func (s *syncSet[K]) has(k K) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[k]
}

func (s *syncSet[K]) add(k K) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[K]bool{}
	}
	s.m[k] = true
}
