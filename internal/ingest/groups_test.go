package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
)

// groupRig runs an Ingester whose groups must be approved (no groups configured).
type groupRig struct {
	in     *Ingester
	inbox  *fakeInbox
	state  *fakeState
	logs   *bytes.Buffer
	update int64
}

func newGroupRig(t *testing.T) *groupRig {
	allow, err := access.ParseUsers([]string{"@friend"})
	if err != nil {
		t.Fatal(err)
	}
	r := &groupRig{inbox: &fakeInbox{}, state: newFakeState(), logs: &bytes.Buffer{}}
	r.in = New(Agent{Name: "Mynah", Bot: bot, Names: []string{"Mynah"}}, r.inbox, Options{
		Now: func() time.Time { return now }, State: r.state,
		Policy: access.Policy{Private: access.Pairing, Allow: allow, Admins: map[mynah.UserID]bool{1: true}, ApprovedGroups: true},
		Logger: slog.New(slog.NewTextHandler(r.logs, nil)),
	})
	return r
}

// added delivers a my_chat_member update: by added the bot to chat.
func (r *groupRig) added(t *testing.T, chat mynah.Chat, by mynah.User) {
	t.Helper()
	r.update++
	u := mynah.Update{ID: r.update, Kind: "my_chat_member", Chat: chat, Users: []mynah.User{by},
		Member: &mynah.MemberChange{By: by, Old: "left", New: "member"}}
	if err := r.in.Handle(t.Context(), u); err != nil {
		t.Fatal(err)
	}
}

// say delivers text from sender in chat (a command when it starts with '/') and returns the
// queued turn, nil for none.
func (r *groupRig) say(t *testing.T, chat mynah.Chat, sender mynah.User, text string) *mynah.Turn {
	t.Helper()
	r.update++
	msg := &mynah.Message{Chat: chat, ID: mynah.MessageID(r.update), Sender: sender, Text: text}
	if strings.HasPrefix(text, "@mynah_bot") {
		msg.Entities = []mynah.Entity{mention(text, "@mynah_bot")}
	}
	if word, _, _ := strings.Cut(text, " "); strings.HasPrefix(word, "/") {
		msg.Entities = []mynah.Entity{{Type: "bot_command", Length: len(word)}}
	}
	if err := r.in.Handle(t.Context(), mynah.Update{ID: r.update, Chat: chat, Message: msg, Users: []mynah.User{sender}}); err != nil {
		t.Fatal(err)
	}
	in := r.inbox.intakes[len(r.inbox.intakes)-1]
	if in.Message == nil {
		t.Errorf("%q in %d was not stored", text, chat.ID)
	}
	return in.Turn
}

func TestGroupApproval(t *testing.T) {
	var (
		owner    = mynah.User{ID: 1, FirstName: "Owner"}
		friend   = mynah.User{ID: 4, FirstName: "Friend", Username: "friend"}
		paired   = mynah.User{ID: 5, FirstName: "Paired"}
		stranger = mynah.User{ID: 6, FirstName: "Stranger"}
		chat     = func(id mynah.ChatID) mynah.Chat {
			return mynah.Chat{ID: id, Type: mynah.ChatSupergroup, Title: fmt.Sprint("Group ", -id)}
		}
	)
	r := newGroupRig(t)
	r.state.approved[paired.ID] = true

	// A stranger adds the bot and mentions it: stored, never answered; the owner is told
	// once, with the command that approves the group.
	strange := chat(-1)
	r.added(t, strange, stranger)
	for _, text := range []string{"@mynah_bot hi", "@mynah_bot hello??", "/help"} {
		if turn := r.say(t, strange, stranger, text); turn != nil {
			t.Errorf("%q in a group a stranger added: turn %+v, want none", text, turn)
		}
	}
	if n := strings.Count(r.logs.String(), "group not approved"); n != 1 {
		t.Errorf("the owner was told %d times about the waiting group, want once:\n%s", n, r.logs)
	}
	if !strings.Contains(r.logs.String(), `approve="mynah pair approve-group -1 --agent Mynah"`) || !strings.Contains(r.logs.String(), "added_by=6") {
		t.Errorf("the log does not say who added the bot and how to approve the group:\n%s", r.logs)
	}
	if got := r.say(t, strange, owner, "/status"); got == nil || !strings.Contains(got.Static, "It is not approved") {
		t.Errorf("/status in a group not approved: %+v", got)
	}

	// Added by an admin, an allowlisted or a paired user: answered at once.
	for i, by := range []mynah.User{owner, friend, paired} {
		c := chat(mynah.ChatID(-10 - i))
		r.added(t, c, by)
		if turn := r.say(t, c, stranger, "@mynah_bot hi"); turn == nil || turn.Static != "" {
			t.Errorf("group added by %s: turn %+v, want a model turn", by.FirstName, turn)
		}
	}
	// A group the bot met without my_chat_member waits, until an admin's /activation.
	quiet := chat(-20)
	if turn := r.say(t, quiet, friend, "@mynah_bot hi"); turn != nil {
		t.Errorf("a group nobody approved: turn %+v", turn)
	}
	if turn := r.say(t, quiet, friend, "/activation always"); turn != nil {
		t.Errorf("a non-admin's /activation: turn %+v", turn)
	}
	if turn := r.say(t, quiet, owner, "/activation mention"); turn == nil || !strings.HasPrefix(turn.Static, "Activation: mention") {
		t.Fatalf("an admin's /activation: %+v", turn)
	}
	if g := r.state.groups[quiet.ID]; g.Approved.IsZero() || g.ApprovedBy != owner.ID {
		t.Errorf("after /activation the group's record is %+v, want approved by the owner", g)
	}
	if turn := r.say(t, quiet, stranger, "@mynah_bot now?"); turn == nil || turn.Static != "" {
		t.Errorf("after /activation: turn %+v, want a model turn", turn)
	}
	// The operator's approval (another process) takes effect with the next message.
	r.state.groups[strange.ID] = mynah.GroupApproval{Agent: "Mynah", Chat: strange, Approved: now}
	if turn := r.say(t, strange, stranger, "@mynah_bot and now?"); turn == nil || turn.Static != "" {
		t.Errorf("after the operator approved: turn %+v, want a model turn", turn)
	}
	// Approvals are remembered; nothing is asked again.
	r.state.groups = map[mynah.ChatID]mynah.GroupApproval{}
	if turn := r.say(t, strange, stranger, "@mynah_bot still?"); turn == nil {
		t.Error("an approved group was looked up again and lost")
	}
	if n := strings.Count(r.logs.String(), "group not approved"); n != 2 {
		t.Errorf("%d notices, want 2 (the stranger's group and the quiet one)\n%s", n, r.logs)
	}
}

func TestGroupApprovalKeepsConfiguredGroups(t *testing.T) {
	stranger := mynah.User{ID: 6, FirstName: "Stranger"}
	listed := mynah.Chat{ID: -5, Type: mynah.ChatGroup}
	for _, c := range []struct {
		name   string
		policy access.Policy
		chat   mynah.Chat
		answer bool
	}{
		{"open: every group", access.Policy{}, group, true},
		{"listed", access.Policy{Groups: map[mynah.ChatID]bool{listed.ID: true}}, listed, true},
		{"not listed, even when approved", access.Policy{Groups: map[mynah.ChatID]bool{listed.ID: true}}, group, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			state := newFakeState()
			state.groups[group.ID] = mynah.GroupApproval{Approved: now}
			inbox := &fakeInbox{}
			in := New(Agent{Name: "Mynah", Bot: bot}, inbox, Options{Policy: c.policy, State: state})
			msg := &mynah.Message{Chat: c.chat, ID: 1, Sender: stranger, Text: "@mynah_bot hi", Entities: []mynah.Entity{mention("@mynah_bot hi", "@mynah_bot")}}
			if err := in.Handle(t.Context(), mynah.Update{ID: 1, Chat: c.chat, Message: msg}); err != nil {
				t.Fatal(err)
			}
			if got := inbox.intakes[0].Turn != nil; got != c.answer {
				t.Errorf("answered = %t, want %t", got, c.answer)
			}
		})
	}
}

func TestGroupNoticeFailureFailsUpdate(t *testing.T) {
	r := newGroupRig(t)
	r.state.err = errors.New("disk full")
	msg := &mynah.Message{Chat: group, ID: 1, Sender: alice, Text: "hi"}
	if err := r.in.Handle(t.Context(), mynah.Update{ID: 1, Chat: group, Message: msg}); err == nil {
		t.Fatal("Handle succeeded although the group's approval could not be read")
	}
	if len(r.inbox.intakes) != 0 {
		t.Error("the update was accepted although its access decision failed")
	}
}
