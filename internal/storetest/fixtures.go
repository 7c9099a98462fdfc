package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mynah-ai/mynah"
)

// t0 is the suite's clock origin. Times are whole milliseconds: the precision every
// backend keeps.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

// cmpOpts compare stored values: times as instants (backends may return another
// location), nil and empty slices alike.
var cmpOpts = cmp.Options{
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
	cmpopts.EquateEmpty(),
}

const agentA, agentB = "ada", "bob"

var (
	group = mynah.Chat{ID: -100123, Type: mynah.ChatSupergroup, Title: "Birds", IsForum: true}
	dm    = mynah.Chat{ID: 42, Type: mynah.ChatPrivate, Username: "alice"}
	alice = mynah.User{ID: 42, FirstName: "Alice", LastName: "Liddell", Username: "alice"}
	carol = mynah.User{ID: 7, FirstName: "Carol"}
	bot   = mynah.User{ID: 999, FirstName: "Ada", Username: "ada_bot", IsBot: true}
)

// message returns a plain inbound message of alice.
func message(chat mynah.Chat, id int, text string) *mynah.Message {
	return &mynah.Message{Chat: chat, ID: mynah.MessageID(id), Sender: alice, Time: at(id), Text: text}
}

// accept accepts in as a new update and fails the test unless it was accepted.
func accept(t *testing.T, s mynah.Store, agent string, update int64, in mynah.Intake) {
	t.Helper()
	ok, err := s.Accept(t.Context(), agent, update, in)
	if err != nil {
		t.Fatalf("Accept(%s, %d): %v", agent, update, err)
	}
	if !ok {
		t.Fatalf("Accept(%s, %d) = false, want true (a new update)", agent, update)
	}
}

// post accepts msg, with its sender, as an update of agent whose id derives from the
// message's chat and id (the suite's chats and ids are small enough to keep it unique).
func post(t *testing.T, s mynah.Store, agent string, msg *mynah.Message) {
	t.Helper()
	update := int64(msg.Chat.ID)*1_000_000_000 + int64(msg.ID)
	accept(t, s, agent, update, mynah.Intake{Chat: msg.Chat, Users: []mynah.User{msg.Sender}, Message: msg})
}

// history returns History or fails the test.
func history(t *testing.T, s mynah.Store, agent string, chat mynah.ChatID, thread int64, after mynah.MessageID, limit int) []mynah.Message {
	t.Helper()
	got, err := s.History(t.Context(), agent, chat, thread, after, limit)
	if err != nil {
		t.Fatalf("History(%s, %d, thread %d, after %d, limit %d): %v", agent, chat, thread, after, limit, err)
	}
	return got
}

// ids returns the ids of ms in order.
func ids(ms []mynah.Message) []mynah.MessageID {
	out := make([]mynah.MessageID, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// stored returns msg as the store should return it for agent.
func stored(agent string, msg *mynah.Message) mynah.Message {
	m := *msg
	m.Agent = agent
	return m
}

func getMessage(t *testing.T, s mynah.Store, agent string, chat mynah.ChatID, id mynah.MessageID) mynah.Message {
	t.Helper()
	m, err := s.Message(t.Context(), agent, chat, id)
	if err != nil {
		t.Fatalf("Message(%s, %d, %d): %v", agent, chat, id, err)
	}
	return m
}

func pendingTurns(t *testing.T, s mynah.Store, agent string, limit int) []mynah.Turn {
	t.Helper()
	ts, err := s.PendingTurns(t.Context(), agent, time.Now(), limit)
	if err != nil {
		t.Fatalf("PendingTurns(%s, %d): %v", agent, limit, err)
	}
	return ts
}

func pendingParts(t *testing.T, s mynah.Store, agent string, limit int) []mynah.OutPart {
	t.Helper()
	ps, err := s.PendingParts(t.Context(), agent, limit)
	if err != nil {
		t.Fatalf("PendingParts(%s, %d): %v", agent, limit, err)
	}
	return ps
}
