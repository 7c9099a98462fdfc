package access

import (
	"bytes"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
)

var (
	now     = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	private = func(u mynah.User) mynah.Chat { return mynah.Chat{ID: mynah.ChatID(u.ID), Type: mynah.ChatPrivate} }
	group   = mynah.Chat{ID: -100777, Type: mynah.ChatSupergroup}
	other   = mynah.Chat{ID: -100888, Type: mynah.ChatGroup}
	channel = mynah.Chat{ID: -100999, Type: mynah.ChatChannel}
	owner   = mynah.User{ID: 1, FirstName: "Owner"}
	alice   = mynah.User{ID: 1001, FirstName: "Alice", Username: "Alice_W"}
	bob     = mynah.User{ID: 1002, FirstName: "Bob"}
	mallory = mynah.User{ID: 666, FirstName: "Mallory", Username: "mallory"}
)

func users(t *testing.T, refs ...string) Users {
	t.Helper()
	u, err := ParseUsers(refs)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestDecide(t *testing.T) {
	base := Policy{
		Private: Pairing,
		Allow:   users(t, "@alice_w"),
		Block:   users(t, "666"),
		Admins:  map[mynah.UserID]bool{owner.ID: true},
		Groups:  map[mynah.ChatID]bool{group.ID: true},
		PerGroup: map[mynah.ChatID]Trigger{
			group.ID: Mention,
		},
	}
	with := func(f func(*Policy)) Policy {
		p := base
		f(&p)
		return p
	}
	mentioned := Signals{Mention: true}
	tests := []struct {
		name string
		p    Policy
		m    Message
		want Action
	}{
		{"zero policy answers strangers", Policy{}, Message{Chat: private(bob), Sender: bob}, Answer},
		{"zero policy answers in any group", Policy{}, Message{Chat: other, Sender: bob, Signals: mentioned}, Answer},
		{"open", with(func(p *Policy) { p.Private = Open }), Message{Chat: private(bob), Sender: bob}, Answer},
		{"allowlisted by username, any case", base, Message{Chat: private(alice), Sender: alice}, Answer},
		{"allowlisted by id", with(func(p *Policy) { p.Allow = users(t, "1002") }), Message{Chat: private(bob), Sender: bob}, Answer},
		{"stranger gets a code", base, Message{Chat: private(bob), Sender: bob}, Pair},
		{"stranger's /start gets a code too", base, Message{Chat: private(bob), Sender: bob, Command: "start"}, Pair},
		{"paired user is answered", base, Message{Chat: private(bob), Sender: bob, Paired: true}, Answer},
		{"allowlist stores strangers", with(func(p *Policy) { p.Private = Allowlist }), Message{Chat: private(bob), Sender: bob}, Store},
		{"allowlist keeps paired users", with(func(p *Policy) { p.Private = Allowlist }), Message{Chat: private(bob), Sender: bob, Paired: true}, Answer},
		{"admins need no allowlist", base, Message{Chat: private(owner), Sender: owner}, Answer},
		{"command of an allowed user", base, Message{Chat: private(alice), Sender: alice, Command: "help"}, Command},
		{"blocked is ignored", with(func(p *Policy) { p.Private = Open }), Message{Chat: private(mallory), Sender: mallory}, Ignore},
		{"blocked even in groups", base, Message{Chat: group, Sender: mallory, Signals: mentioned}, Ignore},
		{"blocked even when admin", with(func(p *Policy) { p.Admins = map[mynah.UserID]bool{mallory.ID: true} }),
			Message{Chat: group, Sender: mallory, Command: "status"}, Ignore},
		{"blocked even when paired", base, Message{Chat: private(mallory), Sender: mallory, Paired: true}, Ignore},
		{"group mention", base, Message{Chat: group, Sender: bob, Signals: mentioned}, Answer},
		{"group chatter", base, Message{Chat: group, Sender: bob}, Store},
		{"group not allowed", base, Message{Chat: other, Sender: alice, Signals: mentioned}, Store},
		{"group not allowed, command", base, Message{Chat: other, Sender: alice, Command: "help"}, Store},
		{"group not allowed, admin /status", base, Message{Chat: other, Sender: owner, Command: "status"}, Command},
		{"stopped group", base, Message{Chat: group, Sender: bob, Signals: mentioned, Mode: mynah.ChatMode{Stopped: true}}, Store},
		{"stopped group, admin /activation", base, Message{Chat: group, Sender: owner, Command: "activation", Mode: mynah.ChatMode{Stopped: true}}, Command},
		{"stopped group, /help", base, Message{Chat: group, Sender: bob, Command: "help", Mode: mynah.ChatMode{Stopped: true}}, Store},
		{"non-admin /stop", base, Message{Chat: group, Sender: bob, Command: "stop"}, Store},
		{"non-admin /status in private", base, Message{Chat: private(alice), Sender: alice, Command: "status"}, Store},
		{"admin /status in private", base, Message{Chat: private(owner), Sender: owner, Command: "status"}, Command},
		{"group command", base, Message{Chat: group, Sender: bob, Command: "reset"}, Command},
		{"runtime always", base, Message{Chat: group, Sender: bob, Mode: mynah.ChatMode{Trigger: "always"}}, Answer},
		{"per-group always", with(func(p *Policy) { p.PerGroup = map[mynah.ChatID]Trigger{group.ID: Always} }), Message{Chat: group, Sender: bob}, Answer},
		{"runtime mode wins over per-group", with(func(p *Policy) { p.PerGroup = map[mynah.ChatID]Trigger{group.ID: Always} }),
			Message{Chat: group, Sender: bob, Mode: mynah.ChatMode{Trigger: "mention"}}, Store},
		{"default trigger reply ignores names", with(func(p *Policy) { p.PerGroup = nil; p.Trigger = Reply }), Message{Chat: group, Sender: bob, Signals: Signals{Name: true}}, Store},
		{"default trigger reply", with(func(p *Policy) { p.PerGroup = nil; p.Trigger = Reply }), Message{Chat: group, Sender: bob, Signals: Signals{Reply: true}}, Answer},
		{"channel posts are stored", Policy{}, Message{Chat: channel, Sender: bob}, Store},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(tt.p, tt.m, now, nil)
			if got.Action != tt.want {
				t.Errorf("Decide = %v (%s), want %v", got.Action, got.Reason, tt.want)
			}
			if got.Reason == "" {
				t.Error("decision without a reason")
			}
		})
	}
}

func TestSignalsMatch(t *testing.T) {
	all := []Signals{{}, {Mention: true}, {Reply: true}, {Name: true}}
	want := map[Trigger][]bool{
		Mention: {false, true, true, true},
		"":      {false, true, true, true},
		Reply:   {false, true, true, false},
		Name:    {false, true, false, true},
		Always:  {true, true, true, true},
	}
	for trig, ws := range want {
		for i, s := range all {
			if got := s.Match(trig); got != ws[i] {
				t.Errorf("%+v.Match(%q) = %t, want %t", s, trig, got, ws[i])
			}
		}
	}
}

func TestRateLimit(t *testing.T) {
	p := Policy{Limit: RateLimit{Messages: 2, Per: time.Hour}, Admins: map[mynah.UserID]bool{owner.ID: true}}
	lim := NewLimiter(p.Limit)
	at := func(min int) time.Time { return now.Add(time.Duration(min) * time.Minute) }
	steps := []struct {
		name   string
		m      Message
		min    int
		want   Action
		notice string
	}{
		{"first", Message{Chat: private(bob), Sender: bob}, 0, Answer, ""},
		{"commands have a budget of their own", Message{Chat: private(bob), Sender: bob, Command: "help"}, 1, Command, ""},
		{"group chatter does not count", Message{Chat: group, Sender: bob}, 2, Store, ""},
		{"second", Message{Chat: group, Sender: bob, Signals: Signals{Mention: true}}, 10, Answer, ""},
		{"over: one notice", Message{Chat: private(bob), Sender: bob}, 20, Notify, "40 min"},
		{"over again: silence", Message{Chat: private(bob), Sender: bob}, 21, Store, ""},
		{"others are not affected", Message{Chat: private(alice), Sender: alice}, 22, Answer, ""},
		{"admins are exempt", Message{Chat: private(owner), Sender: owner}, 23, Answer, ""},
		{"window slides: first hit expired", Message{Chat: private(bob), Sender: bob}, 61, Answer, ""},
		{"over once more: a new notice", Message{Chat: private(bob), Sender: bob}, 62, Notify, "8 min"},
	}
	for _, s := range steps {
		got := Decide(p, s.m, at(s.min), lim)
		if got.Action != s.want {
			t.Errorf("%s: %v (%s), want %v", s.name, got.Action, got.Reason, s.want)
		}
		if s.notice != "" && !strings.Contains(got.Notice, s.notice) {
			t.Errorf("%s: notice %q lacks %q", s.name, got.Notice, s.notice)
		}
	}
	if NewLimiter(RateLimit{}) != nil {
		t.Error("a zero rate limit should need no state")
	}
}

// TestCommandBudget: commands, a stranger's repeated /start and button presses count
// against a budget of their own (Messages when Commands is 0), with one notice per burst;
// messages keep theirs, admins are exempt, and a stranger's plain messages are not
// counted (the code is sent once an hour at most, then silence).
func TestCommandBudget(t *testing.T) {
	p := Policy{Private: Pairing, Allow: users(t, "1001"), Admins: map[mynah.UserID]bool{owner.ID: true},
		Limit: RateLimit{Messages: 1, Per: time.Hour, Commands: 2}}
	lim := NewLimiter(p.Limit)
	at := func(min int) time.Time { return now.Add(time.Duration(min) * time.Minute) }
	help := Message{Chat: private(alice), Sender: alice, Command: "help"}
	start := Message{Chat: private(bob), Sender: bob, Command: "start"}
	steps := []struct {
		name string
		m    Message
		min  int
		want Action
	}{
		{"command 1", help, 0, Command},
		{"command 2", help, 1, Command},
		{"command 3: one notice", help, 2, Notify},
		{"command 4: silence", help, 3, Store},
		{"a message is still answered", Message{Chat: private(alice), Sender: alice}, 4, Answer},
		{"admins are exempt", Message{Chat: private(owner), Sender: owner, Command: "status"}, 5, Command},
		{"stranger's message", Message{Chat: private(bob), Sender: bob}, 6, Pair},
		{"stranger's message again", Message{Chat: private(bob), Sender: bob}, 7, Pair},
		{"stranger's message once more", Message{Chat: private(bob), Sender: bob}, 8, Pair},
		{"stranger's /start 1", start, 9, Pair},
		{"stranger's /start 2", start, 10, Pair},
		{"stranger's /start 3: one notice", start, 11, Notify},
		{"stranger's /start 4: silence", start, 12, Store},
		{"the window slides", help, 61, Command},
	}
	for _, s := range steps {
		if got := Decide(p, s.m, at(s.min), lim); got.Action != s.want {
			t.Errorf("%s: %v (%s), want %v", s.name, got.Action, got.Reason, s.want)
		}
	}
	presses := []Action{Command, Notify, Store}
	for i, want := range presses {
		if got := DecidePress(p, alice, at(62+i), lim); got.Action != want {
			t.Errorf("press %d: %v (%s), want %v", i+1, got.Action, got.Reason, want)
		}
	}
	if got := DecidePress(Policy{Block: users(t, "1001")}, alice, now, nil); got.Action != Ignore {
		t.Errorf("a blocked user's press: %v, want ignore", got.Action)
	}
	if got := DecidePress(p, owner, at(70), lim); got.Action != Command {
		t.Errorf("an admin's press: %v, want command", got.Action)
	}
	if (RateLimit{Messages: 5}).commands() != 5 {
		t.Error("Commands 0 should mean as many as Messages")
	}
}

// TestGroupApproval: with ApprovedGroups and no list, a group is answered once approved;
// a list is what it always was; the zero policy answers every group.
func TestGroupApproval(t *testing.T) {
	approving := Policy{ApprovedGroups: true, Admins: map[mynah.UserID]bool{owner.ID: true}}
	listed := Policy{ApprovedGroups: true, Groups: map[mynah.ChatID]bool{group.ID: true}}
	mentioned := Signals{Mention: true}
	tests := []struct {
		name string
		p    Policy
		m    Message
		want Action
	}{
		{"not approved: stored", approving, Message{Chat: other, Sender: bob, Signals: mentioned}, Store},
		{"not approved: commands stored", approving, Message{Chat: other, Sender: bob, Command: "help"}, Store},
		{"not approved: admin /activation", approving, Message{Chat: other, Sender: owner, Command: "activation"}, Command},
		{"not approved: admin /status", approving, Message{Chat: other, Sender: owner, Command: "status"}, Command},
		{"approved: answered", approving, Message{Chat: other, Sender: bob, Signals: mentioned, GroupApproved: true}, Answer},
		{"approved: chatter stored", approving, Message{Chat: other, Sender: bob, GroupApproved: true}, Store},
		{"listed", listed, Message{Chat: group, Sender: bob, Signals: mentioned}, Answer},
		{"a list ignores approvals", listed, Message{Chat: other, Sender: bob, Signals: mentioned, GroupApproved: true}, Store},
		{"zero policy: every group", Policy{}, Message{Chat: other, Sender: bob, Signals: mentioned}, Answer},
		{"private chats are not groups", approving, Message{Chat: private(bob), Sender: bob}, Answer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Decide(tt.p, tt.m, now, nil); got.Action != tt.want {
				t.Errorf("Decide = %v (%s), want %v", got.Action, got.Reason, tt.want)
			}
		})
	}
	if !approving.NeedsGroupApproval() || listed.NeedsGroupApproval() || (Policy{}).NeedsGroupApproval() {
		t.Error("NeedsGroupApproval: want true only for approval without a list")
	}
	p := Policy{Allow: users(t, "@alice_w"), Block: users(t, "666"), Admins: map[mynah.UserID]bool{owner.ID: true, mallory.ID: true}}
	for _, c := range []struct {
		user   mynah.User
		paired bool
		want   bool
	}{
		{owner, false, true}, {alice, false, true}, {bob, true, true}, {bob, false, false},
		{mallory, true, false}, // blocked, even as an admin
	} {
		if got := p.Approves(c.user, c.paired); got != c.want {
			t.Errorf("Approves(%s, paired %t) = %t, want %t", c.user.FirstName, c.paired, got, c.want)
		}
	}
	if (Policy{Private: Open}).Approves(bob, false) {
		t.Error("an open private policy approves everybody")
	}
}

func TestLimiterForgetsIdleUsers(t *testing.T) {
	lim := NewLimiter(RateLimit{Messages: 1, Per: time.Minute})
	for i := range 3000 {
		lim.Take(mynah.UserID(i), now)
	}
	lim.Take(1, now.Add(2*time.Minute))
	if n := len(lim.users); n > 1024 {
		t.Errorf("%d users remembered after they all went idle", n)
	}
}

func TestParseUsers(t *testing.T) {
	u := users(t, "42", "@Some_User", " 7 ")
	for _, tt := range []struct {
		user mynah.User
		want bool
	}{
		{mynah.User{ID: 42}, true},
		{mynah.User{ID: 7}, true},
		{mynah.User{ID: 8, Username: "some_user"}, true},
		{mynah.User{ID: 8, Username: "other_user"}, false},
		{mynah.User{ID: 9}, false},
	} {
		if got := u.Contains(tt.user); got != tt.want {
			t.Errorf("Contains(%+v) = %t, want %t", tt.user, got, tt.want)
		}
	}
	if u.Len() != 3 {
		t.Errorf("Len = %d, want 3", u.Len())
	}
	for _, bad := range []string{"alice", "-5", "0", "@a", "@bad-name", ""} {
		if _, err := ParseUsers([]string{bad}); err == nil {
			t.Errorf("ParseUsers(%q) succeeded", bad)
		}
	}
}

func TestParse(t *testing.T) {
	for _, s := range []string{"open", "allowlist", "pairing"} {
		if _, err := ParsePrivate(s); err != nil {
			t.Error(err)
		}
	}
	for _, s := range []string{"mention", "reply", "name", "always"} {
		if _, err := ParseTrigger(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParsePrivate("closed"); err == nil {
		t.Error(`ParsePrivate("closed") succeeded`)
	}
	if _, err := ParseTrigger(""); err == nil {
		t.Error(`ParseTrigger("") succeeded`)
	}
}

func TestNewCode(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		code, err := NewCode(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if !ValidCode(code) || strings.ContainsAny(code, "0O1I") {
			t.Errorf("code %q is not 8 unambiguous characters", code)
		}
		seen[code] = true
	}
	if len(seen) < 100 {
		t.Errorf("%d distinct codes out of 100", len(seen))
	}
	// Every byte value maps into the alphabet.
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	r := bytes.NewReader(all)
	for range 32 {
		code, err := NewCode(r)
		if err != nil || !ValidCode(code) {
			t.Fatalf("NewCode = %q, %v", code, err)
		}
	}
	if _, err := NewCode(bytes.NewReader(nil)); err == nil {
		t.Error("NewCode without randomness succeeded")
	}
	if NormalizeCode(" abcd2345 ") != "ABCD2345" || ValidCode("ABCD1234") {
		t.Error("NormalizeCode/ValidCode")
	}
	if n := PairingNotice("ABCD2345", CodeTTL, ApproveCommand("ABCD2345", "/etc/mynah")); !strings.Contains(n, "ABCD2345 (valid for 1 hour)") || !strings.Contains(n, `"mynah pair approve ABCD2345 --config /etc/mynah"`) {
		t.Errorf("notice = %q", n)
	}
}
