package ingest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

// fakeInbox records intakes and deduplicates update ids like a store.
type fakeInbox struct {
	seen    map[int64]bool
	intakes []mynah.Intake
	err     error
}

func (f *fakeInbox) Accept(_ context.Context, _ string, id int64, in mynah.Intake) (bool, error) {
	if f.err != nil {
		return false, f.err
	}
	if f.seen == nil {
		f.seen = map[int64]bool{}
	}
	if f.seen[id] {
		return false, nil
	}
	f.seen[id] = true
	f.intakes = append(f.intakes, in)
	return true, nil
}

var now = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func newTestIngester(inbox mynah.Inbox, woken *[]mynah.ChatID) *Ingester {
	return New(Agent{Name: "Mynah", Bot: bot, Names: []string{"Mynah"}, Texts: Texts{Start: "hi", Help: "help", Reset: "reset done"}},
		inbox, Options{Now: func() time.Time { return now }, Queued: func(t mynah.Turn) { *woken = append(*woken, t.Chat) }})
}

func TestHandle(t *testing.T) {
	ctx := context.Background()
	inbox := &fakeInbox{}
	var woken []mynah.ChatID
	in := newTestIngester(inbox, &woken)

	msg := func(chat mynah.Chat, id mynah.MessageID, text string, ents ...mynah.Entity) *mynah.Message {
		return &mynah.Message{Chat: chat, ID: id, Sender: alice, Text: text, Entities: ents}
	}
	steps := []struct {
		name  string
		u     mynah.Update
		turn  *mynah.Turn // nil: stored only
		reset bool
	}{
		{"private message queues a turn", mynah.Update{ID: 1, Chat: private, Message: msg(private, 10, "hello")},
			&mynah.Turn{Agent: "Mynah", Chat: private.ID, Target: 10}, false},
		{"group chatter is only stored", mynah.Update{ID: 2, Chat: group, Message: msg(group, 20, "lunch?")}, nil, false},
		{"group mention answers as a reply", mynah.Update{ID: 3, Chat: group, Message: msg(group, 21, "@mynah_bot hi", mention("@mynah_bot hi", "@mynah_bot"))},
			&mynah.Turn{Agent: "Mynah", Chat: group.ID, Target: 21, ReplyTo: 21}, false},
		{"reset command", mynah.Update{ID: 4, Chat: private, Message: msg(private, 11, "/reset", mynah.Entity{Type: "bot_command", Length: 6})},
			&mynah.Turn{Agent: "Mynah", Chat: private.ID, Target: 11, Static: "reset done"}, true},
		{"new in group with bot name", mynah.Update{ID: 5, Chat: group, Message: msg(group, 22, "/new@mynah_bot", mynah.Entity{Type: "bot_command", Length: 14})},
			&mynah.Turn{Agent: "Mynah", Chat: group.ID, Target: 22, ReplyTo: 22, Static: "reset done"}, true},
		{"command for another bot is chatter", mynah.Update{ID: 6, Chat: group, Message: msg(group, 23, "/new@other_bot", mynah.Entity{Type: "bot_command", Length: 14})}, nil, false},
		{"edited message updates, never answers", mynah.Update{ID: 7, Chat: private, Edited: true, Message: msg(private, 10, "hello (edited)")}, nil, false},
		{"update without message is recorded", mynah.Update{ID: 8, Chat: private}, nil, false},
	}
	for i, s := range steps {
		if err := in.Handle(ctx, s.u); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got := inbox.intakes[i]
		if s.turn != nil {
			s.turn.Created = now
			s.turn.Sender = alice.ID // every message here is alice's; the turn says whose
		}
		if diff := cmp.Diff(s.turn, got.Turn); diff != "" {
			t.Errorf("%s: turn (-want +got):\n%s", s.name, diff)
		}
		if got.Reset != s.reset {
			t.Errorf("%s: reset = %v, want %v", s.name, got.Reset, s.reset)
		}
		if got.Message != nil && got.Message.Agent != "Mynah" {
			t.Errorf("%s: message agent = %q", s.name, got.Message.Agent)
		}
		if s.u.Edited != got.Edit {
			t.Errorf("%s: edit = %v", s.name, got.Edit)
		}
	}
	if diff := cmp.Diff([]mynah.ChatID{private.ID, group.ID, private.ID, group.ID}, woken); diff != "" {
		t.Errorf("runtime woken for (-want +got):\n%s", diff)
	}

	// A redelivered update changes nothing and wakes nobody.
	if err := in.Handle(ctx, steps[0].u); err != nil {
		t.Fatal(err)
	}
	if len(inbox.intakes) != len(steps) || len(woken) != 4 {
		t.Errorf("redelivered update was handled again: %d intakes, %d wakes", len(inbox.intakes), len(woken))
	}
}

func TestHandleStoreError(t *testing.T) {
	inbox := &fakeInbox{err: errors.New("disk full")}
	var woken []mynah.ChatID
	in := newTestIngester(inbox, &woken)
	err := in.Handle(context.Background(), mynah.Update{ID: 1, Chat: private, Message: &mynah.Message{Chat: private, ID: 1, Text: "hi"}})
	if err == nil {
		t.Fatal("Handle succeeded although the store failed: the update would be acknowledged and lost")
	}
	if len(woken) != 0 {
		t.Error("runtime woken for an update that was not stored")
	}
}
