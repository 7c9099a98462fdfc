package ingest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
)

// fakeState keeps pairings, chat modes and group approvals in memory, like the store.
type fakeState struct {
	pending  map[mynah.UserID]mynah.Pairing
	approved map[mynah.UserID]bool
	modes    map[mynah.ChatID]mynah.ChatMode
	groups   map[mynah.ChatID]mynah.GroupApproval
	lookups  int
	err      error
}

func newFakeState() *fakeState {
	return &fakeState{pending: map[mynah.UserID]mynah.Pairing{}, approved: map[mynah.UserID]bool{},
		modes: map[mynah.ChatID]mynah.ChatMode{}, groups: map[mynah.ChatID]mynah.GroupApproval{}}
}

func (f *fakeState) GroupApproval(_ context.Context, agent string, chat mynah.ChatID) (mynah.GroupApproval, error) {
	g, ok := f.groups[chat]
	if !ok {
		g = mynah.GroupApproval{Agent: agent, Chat: mynah.Chat{ID: chat}}
	}
	return g, f.err
}

func (f *fakeState) GroupAdded(ctx context.Context, agent string, chat mynah.Chat, by mynah.User, when time.Time) error {
	g, _ := f.GroupApproval(ctx, agent, chat.ID)
	g.Chat.Title, g.AddedBy, g.Added = chat.Title, by, when
	f.groups[chat.ID] = g
	return f.err
}

func (f *fakeState) ApproveGroup(ctx context.Context, agent string, chat mynah.ChatID, by mynah.UserID, now time.Time) (mynah.GroupApproval, error) {
	g, _ := f.GroupApproval(ctx, agent, chat)
	if g.Approved.IsZero() {
		g.Approved, g.ApprovedBy = now, by
	}
	f.groups[chat] = g
	return g, f.err
}

func (f *fakeState) NoticeGroup(ctx context.Context, agent string, chat mynah.Chat, now time.Time) (bool, error) {
	g, _ := f.GroupApproval(ctx, agent, chat.ID)
	first := g.Noticed.IsZero()
	if first {
		g.Noticed = now
	}
	f.groups[chat.ID] = g
	return first, f.err
}

func (f *fakeState) RequestPairing(_ context.Context, agent string, u mynah.User, code string, now time.Time, ttl time.Duration, maxPending int) (mynah.Pairing, bool, error) {
	if f.err != nil {
		return mynah.Pairing{}, false, f.err
	}
	if p, ok := f.pending[u.ID]; ok && p.Expires.After(now) {
		return p, false, nil
	}
	if len(f.pending) >= maxPending {
		return mynah.Pairing{}, false, mynah.ErrPairingsFull
	}
	p := mynah.Pairing{Agent: agent, Code: code, User: u, Created: now, Expires: now.Add(ttl)}
	f.pending[u.ID] = p
	return p, true, nil
}

func (f *fakeState) Approved(_ context.Context, _ string, u mynah.UserID) (bool, error) {
	f.lookups++
	return f.approved[u], f.err
}

func (f *fakeState) ChatMode(_ context.Context, agent string, chat mynah.ChatID) (mynah.ChatMode, error) {
	m, ok := f.modes[chat]
	if !ok {
		m = mynah.ChatMode{Agent: agent, Chat: chat}
	}
	return m, f.err
}

func (f *fakeState) SetChatMode(_ context.Context, m mynah.ChatMode) error {
	f.modes[m.Chat] = m
	return f.err
}

func TestAccessFlow(t *testing.T) {
	var (
		owner     = mynah.User{ID: 1, FirstName: "Owner"}
		bob       = mynah.User{ID: 2, FirstName: "Bob"}
		mallory   = mynah.User{ID: 3, FirstName: "Mallory"}
		friend    = mynah.User{ID: 4, FirstName: "Friend", Username: "friend"}
		dm        = func(u mynah.User) mynah.Chat { return mynah.Chat{ID: mynah.ChatID(u.ID), Type: mynah.ChatPrivate} }
		strange   = mynah.Chat{ID: -100999, Type: mynah.ChatGroup, Title: "Elsewhere"}
		strangers = []mynah.User{{ID: 11}, {ID: 12}, {ID: 13}}
	)
	allow, _ := access.ParseUsers([]string{"@friend"})
	block, _ := access.ParseUsers([]string{"3"})
	policy := access.Policy{
		Private: access.Pairing, Allow: allow, Block: block,
		Admins: map[mynah.UserID]bool{owner.ID: true},
		Groups: map[mynah.ChatID]bool{group.ID: true},
		Limit:  access.RateLimit{Messages: 2, Per: time.Hour},
	}
	state := newFakeState()
	inbox := &fakeInbox{}
	clock := now
	in := New(Agent{Name: "Mynah", Bot: bot, Names: []string{"Mynah"}, Model: "openai/test", Texts: Texts{Start: "hi", Help: "help", Reset: "reset done"}},
		inbox, Options{Now: func() time.Time { return clock }, Policy: policy, State: state,
			Random: bytes.NewReader(bytes.Repeat([]byte{0, 1, 2, 3, 4, 5, 6, 7}, 10))})

	cmdEnt := func(text string) []mynah.Entity {
		w, _, _ := strings.Cut(text, " ")
		return []mynah.Entity{{Type: "bot_command", Length: len(w)}}
	}
	var update int64
	steps := []struct {
		name   string
		chat   mynah.Chat
		from   mynah.User
		text   string
		ents   []mynah.Entity
		stored bool
		reply  string // "": no turn; "MODEL": a model turn; else a substring of the static reply
	}{
		{"stranger gets a code", dm(bob), bob, "hello", nil, true, "ABCDEFGH (valid for 1 hour)"},
		{"stranger again: silence", dm(bob), bob, "hello??", nil, true, ""},
		{"stranger's /start repeats the code", dm(bob), bob, "/start", cmdEnt("/start"), true, "ABCDEFGH"},
		{"allowlisted by username", dm(friend), friend, "hi", nil, true, "MODEL"},
		{"blocked: not even stored", dm(mallory), mallory, "spam", nil, false, ""},
		{"three pending at most", dm(strangers[0]), strangers[0], "hi", nil, true, "valid for"},
		{"two", dm(strangers[1]), strangers[1], "hi", nil, true, "valid for"},
		{"the fourth is told to wait", dm(strangers[2]), strangers[2], "hi", nil, true, "try again"},
		{"group not allowed: stored only", strange, friend, "@mynah_bot hi", []mynah.Entity{mention("@mynah_bot hi", "@mynah_bot")}, true, ""},
		{"admin /status where not allowed", strange, owner, "/status", cmdEnt("/status"), true, "not on the group allowlist"},
		{"non-admin /stop", group, friend, "/stop", cmdEnt("/stop"), true, ""},
		{"non-admin /mute", group, friend, "/mute", cmdEnt("/mute"), true, ""},
		{"chatter", group, friend, "lunch?", nil, true, ""},
		{"admin /activation always", group, owner, "/activation always", cmdEnt("/activation"), true, "Activation: always"},
		{"now chatter is answered", group, friend, "lunch?", nil, true, "MODEL"},
		{"over the limit (one private, one here): a notice", group, friend, "and dinner?", nil, true, "faster than"},
		{"over the limit: silence", group, friend, "breakfast?", nil, true, ""},
		{"over the limit: silence", group, friend, "brunch?", nil, true, ""},
		{"admins are not limited", group, owner, "Mynah, status?", nil, true, "MODEL"},
		{"admin /mute", group, owner, "/mute@mynah_bot", cmdEnt("/mute@mynah_bot"), true, "Muted"},
		{"stopped: mention stored only", group, owner, "@mynah_bot hi", []mynah.Entity{mention("@mynah_bot hi", "@mynah_bot")}, true, ""},
		{"stopped: /help stored only", group, friend, "/help", cmdEnt("/help"), true, ""},
		{"stopped: /status still works", group, owner, "/status", cmdEnt("/status"), true, "trigger always, stopped"},
		{"bad /activation", group, owner, "/activation sometimes", cmdEnt("/activation"), true, "Usage: /activation"},
		{"/activation mention resumes", group, owner, "/activation mention", cmdEnt("/activation"), true, "Activation: mention"},
		{"owner in private", dm(owner), owner, "/stop", cmdEnt("/stop"), true, "works in groups"},
	}
	for _, s := range steps {
		update++
		msg := &mynah.Message{Chat: s.chat, ID: mynah.MessageID(update), Sender: s.from, Text: s.text, Entities: s.ents}
		if err := in.Handle(t.Context(), mynah.Update{ID: update, Chat: s.chat, Message: msg, Users: []mynah.User{s.from}}); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got := inbox.intakes[len(inbox.intakes)-1]
		if (got.Message != nil) != s.stored {
			t.Errorf("%s: stored = %t, want %t", s.name, got.Message != nil, s.stored)
		}
		if !s.stored && (len(got.Users) > 0 || got.Chat.ID != 0) {
			t.Errorf("%s: an ignored message still records %+v", s.name, got)
		}
		switch {
		case s.reply == "" && got.Turn != nil:
			t.Errorf("%s: queued %+v, want nothing", s.name, got.Turn)
		case s.reply == "MODEL" && (got.Turn == nil || got.Turn.Static != ""):
			t.Errorf("%s: turn %+v, want a model turn", s.name, got.Turn)
		case s.reply != "" && s.reply != "MODEL" && (got.Turn == nil || !strings.Contains(got.Turn.Static, s.reply)):
			t.Errorf("%s: turn %+v, want a reply containing %q", s.name, got.Turn, s.reply)
		}
		clock = clock.Add(time.Second)
	}
	if m := state.modes[group.ID]; m.Trigger != "mention" || m.Stopped || m.Agent != "Mynah" {
		t.Errorf("group mode = %+v, want mention, running", m)
	}

	// Approval takes effect with the next message, and is remembered.
	state.approved[bob.ID] = true
	for i := range 2 {
		update++
		msg := &mynah.Message{Chat: dm(bob), ID: mynah.MessageID(update), Sender: bob, Text: "am I in?"}
		if err := in.Handle(t.Context(), mynah.Update{ID: update, Chat: dm(bob), Message: msg}); err != nil {
			t.Fatal(err)
		}
		if got := inbox.intakes[len(inbox.intakes)-1].Turn; got == nil || got.Static != "" {
			t.Errorf("message %d after approval: turn %+v, want a model turn", i, got)
		}
	}
	lookups := state.lookups
	state.approved[bob.ID] = false // never withdrawn while running: not asked again
	update++
	if err := in.Handle(t.Context(), mynah.Update{ID: update, Chat: dm(bob), Message: &mynah.Message{Chat: dm(bob), ID: mynah.MessageID(update), Sender: bob, Text: "x"}}); err != nil {
		t.Fatal(err)
	}
	if state.lookups != lookups {
		t.Errorf("an approved user was looked up again")
	}
}

func TestAccessStateErrorFailsUpdate(t *testing.T) {
	state := newFakeState()
	state.err = errors.New("disk full")
	inbox := &fakeInbox{}
	in := New(Agent{Name: "Mynah", Bot: bot}, inbox, Options{Policy: access.Policy{Private: access.Pairing}, State: state})
	msg := &mynah.Message{Chat: private, ID: 1, Sender: alice, Text: "hi"}
	if err := in.Handle(t.Context(), mynah.Update{ID: 1, Chat: private, Message: msg}); err == nil {
		t.Fatal("Handle succeeded although the pairing lookup failed")
	}
	if len(inbox.intakes) != 0 {
		t.Error("the update was accepted although its access decision failed: it would be lost")
	}
}

func TestBlockedEditNotStored(t *testing.T) {
	block, _ := access.ParseUsers([]string{"42"})
	inbox := &fakeInbox{}
	in := New(Agent{Name: "Mynah", Bot: bot}, inbox, Options{Policy: access.Policy{Block: block}})
	msg := &mynah.Message{Chat: private, ID: 1, Sender: alice, Text: "edited"}
	if err := in.Handle(t.Context(), mynah.Update{ID: 1, Chat: private, Message: msg, Edited: true, Users: []mynah.User{alice}}); err != nil {
		t.Fatal(err)
	}
	if got := inbox.intakes[0]; got.Message != nil || len(got.Users) != 0 {
		t.Errorf("a blocked user's edit was stored: %+v", got)
	}
}

func TestNoStateStoresStrangers(t *testing.T) {
	inbox := &fakeInbox{}
	in := New(Agent{Name: "Mynah", Bot: bot}, inbox, Options{Policy: access.Policy{Private: access.Pairing}})
	msg := &mynah.Message{Chat: private, ID: 1, Sender: alice, Text: "hi"}
	if err := in.Handle(t.Context(), mynah.Update{ID: 1, Chat: private, Message: msg}); err != nil {
		t.Fatal(err)
	}
	if got := inbox.intakes[0]; got.Message == nil || got.Turn != nil {
		t.Errorf("without state a stranger should be stored only: %+v", got)
	}
}
