package telegramtest

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func updateIDs(t *testing.T, r apiResponse) []int {
	t.Helper()
	var us []Update
	r.decode(t, &us)
	ids := []int{}
	for _, u := range us {
		ids = append(ids, u.UpdateID)
	}
	return ids
}

func TestLongPollWakesOnUpdate(t *testing.T) {
	srv := Start(t, Options{})
	done := make(chan apiResponse, 1)
	go func() { done <- call(t, srv, srv.Token(), "getUpdates", map[string]any{"timeout": 50}) }()
	if err := srv.WaitPoll(t.Context(), srv.Token()); err != nil {
		t.Fatal(err)
	}
	sent := srv.SendPrivate(alice, "hello")
	r := <-done
	var got []Update
	r.decode(t, &got)
	if len(got) != 1 || got[0].Message == nil {
		t.Fatalf("updates = %s, want one message", r.Result)
	}
	if diff := cmp.Diff(sent, *got[0].Message); diff != "" {
		t.Errorf("message (-injected +polled):\n%s", diff)
	}
}

func TestOffsetConfirmation(t *testing.T) {
	srv := Start(t, Options{})
	var ids []int
	for _, text := range []string{"one", "two", "three"} {
		srv.SendPrivate(alice, text)
	}
	for _, u := range srv.Pending(srv.Token()) {
		ids = append(ids, u.UpdateID)
	}
	if ids[1] != ids[0]+1 || ids[2] != ids[1]+1 {
		t.Fatalf("update ids %v do not increase by one", ids)
	}
	steps := []struct {
		name   string
		params map[string]any
		want   []int
	}{
		{"unconfirmed updates come back", nil, ids},
		{"again without offset", nil, ids},
		{"limit", map[string]any{"limit": 2}, ids[:2]},
		{"offset confirms earlier", map[string]any{"offset": ids[1]}, ids[1:]},
		{"confirmed are gone", map[string]any{"offset": 0}, ids[1:]},
		{"negative offset keeps the last", map[string]any{"offset": -1}, ids[2:]},
		{"offset past the end confirms all", map[string]any{"offset": ids[2] + 1}, []int{}},
	}
	for _, st := range steps {
		got := updateIDs(t, call(t, srv, srv.Token(), "getUpdates", st.params))
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", st.name, diff)
		}
	}
	next := srv.SendPrivate(alice, "four")
	got := updateIDs(t, call(t, srv, srv.Token(), "getUpdates", nil))
	if len(got) != 1 || got[0] != ids[2]+1 {
		t.Errorf("after confirming all, got %v, want [%d] (message %d)", got, ids[2]+1, next.MessageID)
	}
}

func TestSecondPollTerminatesFirst(t *testing.T) {
	srv := Start(t, Options{})
	first := make(chan apiResponse, 1)
	go func() { first <- call(t, srv, srv.Token(), "getUpdates", map[string]any{"timeout": 50}) }()
	if err := srv.WaitPoll(t.Context(), srv.Token()); err != nil {
		t.Fatal(err)
	}
	second := call(t, srv, srv.Token(), "getUpdates", map[string]any{"timeout": 0})
	if !second.OK {
		t.Errorf("second poll failed: %s", second.Description)
	}
	wantError(t, <-first, 409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running")
}

func TestAllowedUpdates(t *testing.T) {
	srv := Start(t, Options{})
	call(t, srv, srv.Token(), "getUpdates", map[string]any{"allowed_updates": []string{"edited_message"}})
	m := srv.SendPrivate(alice, "dropped")
	if _, err := srv.EditMessage(alice.ID, m.MessageID, "edited"); err != nil {
		t.Fatal(err)
	}
	var got []Update
	call(t, srv, srv.Token(), "getUpdates", nil).decode(t, &got)
	if len(got) != 1 || got[0].EditedMessage == nil || got[0].EditedMessage.Text != "edited" || got[0].EditedMessage.EditDate == 0 {
		t.Fatalf("updates = %+v, want only the edited_message", got)
	}
	// Reactions are not delivered by default.
	call(t, srv, srv.Token(), "getUpdates", map[string]any{"offset": got[0].UpdateID + 1, "allowed_updates": []string{}})
	u := srv.Inject(srv.Token(), Update{MessageReaction: &MessageReactionUpdated{Chat: PrivateChat(alice), MessageID: 1, Date: 1, OldReaction: []ReactionType{}, NewReaction: []ReactionType{}}})
	if u.UpdateID != 0 {
		t.Errorf("message_reaction was queued with id %d, want dropped by the default allowed_updates", u.UpdateID)
	}
}

func TestInjectExtraKinds(t *testing.T) {
	srv := Start(t, Options{})
	srv.Inject(srv.Token(), Update{Extra: map[string]json.RawMessage{
		"my_chat_member": json.RawMessage(`{"chat":{"id":-5,"type":"group","title":"G"},"from":{"id":501,"is_bot":false,"first_name":"Alice"},"date":1,"old_chat_member":{"status":"left","user":{"id":1000001,"is_bot":true,"first_name":"Mynah"}},"new_chat_member":{"status":"member","user":{"id":1000001,"is_bot":true,"first_name":"Mynah"}}}`),
	}})
	var got []map[string]json.RawMessage
	call(t, srv, srv.Token(), "getUpdates", nil).decode(t, &got)
	if len(got) != 1 || got[0]["my_chat_member"] == nil {
		t.Errorf("updates = %v, want one my_chat_member", got)
	}
}

func TestGroupMessagesReachEveryBot(t *testing.T) {
	srv := Start(t, Options{})
	const other = "777:OTHER-BOT"
	srv.AddBot(other, BotUser{ID: 777, FirstName: "Other", Username: "other_bot"})
	group := Supergroup(-100123, "Both bots")
	srv.SendGroup(group, alice, "hi all")
	srv.SendGroup(group, alice, "only other", ToBot(other))
	srv.SendPrivate(bob, "dm to other", ToBot(other))
	count := func(token string) int {
		var us []Update
		call(t, srv, token, "getUpdates", nil).decode(t, &us)
		return len(us)
	}
	if got := count(srv.Token()); got != 1 {
		t.Errorf("first bot got %d updates, want 1", got)
	}
	if got := count(other); got != 3 {
		t.Errorf("other bot got %d updates, want 3", got)
	}
	// Both bots share the group's message ids.
	var m1, m2 Message
	call(t, srv, srv.Token(), "sendMessage", map[string]any{"chat_id": group.ID, "text": "from first"}).decode(t, &m1)
	call(t, srv, other, "sendMessage", map[string]any{"chat_id": group.ID, "text": "from other"}).decode(t, &m2)
	if m1.MessageID != 3 || m2.MessageID != 4 {
		t.Errorf("message ids %d, %d; want 3, 4", m1.MessageID, m2.MessageID)
	}
	// The first bot has no private chat with Bob.
	r := call(t, srv, srv.Token(), "sendMessage", map[string]any{"chat_id": bob.ID, "text": "hi"})
	wantError(t, r, 403, "Forbidden: bot can't initiate conversation with a user")
}
