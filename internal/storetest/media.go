package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

// photo is a photo attachment of the file uid that waits for a description.
func photo(uid string) mynah.Media {
	return mynah.Media{Kind: mynah.MediaPhoto, FileID: "file-" + uid, FileUniqueID: uid, Width: 1280, Height: 960,
		Size: 183_402}
}

// withMedia returns a message of alice in chat carrying media.
func withMedia(chat mynah.Chat, id int, text string, media ...mynah.Media) *mynah.Message {
	m := message(chat, id, text)
	m.Media = media
	return m
}

// later is a time after every message the suite stores: the store stamps queued work with
// its own clock, which the suite does not control.
func later() time.Time { return time.Now().Add(time.Hour) }

func pendingMedia(t *testing.T, s mynah.Store, now time.Time, limit int) []mynah.MediaWork {
	t.Helper()
	ws, err := s.PendingMedia(t.Context(), now, limit)
	if err != nil {
		t.Fatalf("PendingMedia(%v, %d): %v", now, limit, err)
	}
	return ws
}

// queued returns which messages are queued for media, as agent/chat/id, oldest first.
func queued(t *testing.T, s mynah.Store) []mynah.MediaWork {
	t.Helper()
	ws := pendingMedia(t, s, later(), 100)
	for i := range ws {
		if ws[i].Due.IsZero() || ws[i].Due.After(later()) {
			t.Errorf("queued work %+v is due at %v, want a time before %v", ws[i], ws[i].Due, later())
		}
		ws[i].Due = time.Time{}
	}
	return ws
}

func work(agent string, chat mynah.Chat, id int) mynah.MediaWork {
	return mynah.MediaWork{Agent: agent, Chat: chat.ID, Message: mynah.MessageID(id)}
}

func putNote(t *testing.T, s mynah.Store, n mynah.MediaNote) {
	t.Helper()
	if err := s.PutMediaNote(t.Context(), n); err != nil {
		t.Fatalf("PutMediaNote(%s): %v", n.UniqueID, err)
	}
}

func mediaNote(t *testing.T, s mynah.Store, uid string) mynah.MediaNote {
	t.Helper()
	n, err := s.MediaNote(t.Context(), uid)
	if err != nil {
		t.Fatalf("MediaNote(%s): %v", uid, err)
	}
	return n
}

// testMediaNoteRoundTrip: a note reads back as put, a second put replaces it, a deleted
// one is gone, and a note without a file or with an unknown status is refused.
func testMediaNoteRoundTrip(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	if _, err := s.MediaNote(ctx, "AgADnone"); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("MediaNote of an unknown file: %v, want ErrNotFound", err)
	}
	frog := mynah.MediaNote{UniqueID: "AgADfrog", Kind: mynah.MediaSticker, SetName: "MrRibbit", Emoji: "💻",
		Status: mynah.MediaDescribed, Description: "a grumpy cartoon frog at a laptop", Source: "model:gpt-5-mini",
		Updated: at(10)}
	putNote(t, s, frog)
	if diff := cmp.Diff(mediaNote(t, s, frog.UniqueID), frog, cmpOpts); diff != "" {
		t.Errorf("MediaNote (-got +want):\n%s", diff)
	}
	edited := frog
	edited.Description, edited.Source, edited.Updated = "Mr Ribbit typing, annoyed", "operator", at(20)
	putNote(t, s, edited)
	if diff := cmp.Diff(mediaNote(t, s, frog.UniqueID), edited, cmpOpts); diff != "" {
		t.Errorf("MediaNote after a second put (-got +want):\n%s", diff)
	}

	failed := mynah.MediaNote{UniqueID: "AgADbad", Kind: mynah.MediaPhoto, Status: mynah.MediaUnsupported,
		Problem: "could not be read", Source: "model:gpt-5-mini", Attempts: 1}
	before := time.Now().Add(-time.Second)
	putNote(t, s, failed)
	got := mediaNote(t, s, failed.UniqueID)
	if got.Updated.Before(before) {
		t.Errorf("a note put without a time is stamped %v, want about now", got.Updated)
	}
	got.Updated = time.Time{}
	if diff := cmp.Diff(got, failed, cmpOpts); diff != "" {
		t.Errorf("unsupported note (-got +want):\n%s", diff)
	}

	for i := range 2 { // deleting twice is not an error
		if err := s.DeleteMediaNote(ctx, frog.UniqueID); err != nil {
			t.Fatalf("DeleteMediaNote #%d: %v", i+1, err)
		}
	}
	if _, err := s.MediaNote(ctx, frog.UniqueID); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("MediaNote after delete: %v, want ErrNotFound", err)
	}
	if n := mediaNote(t, s, failed.UniqueID); n.Problem != failed.Problem {
		t.Errorf("deleting one note changed another: %+v", n)
	}

	for _, bad := range []mynah.MediaNote{
		{Kind: mynah.MediaPhoto, Status: mynah.MediaDescribed, Description: "no file"},
		{UniqueID: "AgADx", Kind: mynah.MediaPhoto, Status: "maybe"},
		{UniqueID: "AgADy", Kind: mynah.MediaPhoto},
	} {
		if err := s.PutMediaNote(ctx, bad); err == nil {
			t.Errorf("PutMediaNote(%+v) succeeded, want an error", bad)
		}
	}
	if _, err := s.MediaNote(ctx, "AgADx"); !errors.Is(err, mynah.ErrNotFound) {
		t.Errorf("a refused note was stored: %v", err)
	}
}

// testMediaNotesList: the operator's listing filters by kind, set (any case), emoji and
// status, newest first, up to the limit.
func testMediaNotesList(t *testing.T, b Backend) {
	s := b.Open(t)
	notes := []mynah.MediaNote{
		{UniqueID: "s1", Kind: mynah.MediaSticker, SetName: "MrRibbit", Emoji: "💻", Status: mynah.MediaDescribed, Description: "frog at a laptop", Updated: at(1)},
		{UniqueID: "s2", Kind: mynah.MediaSticker, SetName: "MrRibbit", Emoji: "😴", Status: mynah.MediaDescribed, Description: "frog asleep", Updated: at(3)},
		{UniqueID: "s3", Kind: mynah.MediaSticker, SetName: "Cats", Emoji: "💻", Status: mynah.MediaFailed, Problem: "timeout", Attempts: 3, Updated: at(2)},
		{UniqueID: "p1", Kind: mynah.MediaPhoto, Status: mynah.MediaDescribed, Description: "a heron", Updated: at(4)},
		{UniqueID: "v1", Kind: mynah.MediaVoice, Status: mynah.MediaUnsupported, Problem: "unsupported codec", Updated: at(5)},
	}
	for _, n := range notes {
		putNote(t, s, n)
	}
	uids := func(f mynah.MediaFilter) []string {
		t.Helper()
		ns, err := s.MediaNotes(t.Context(), f)
		if err != nil {
			t.Fatalf("MediaNotes(%+v): %v", f, err)
		}
		var out []string
		for _, n := range ns {
			out = append(out, n.UniqueID)
		}
		return out
	}
	for _, c := range []struct {
		f    mynah.MediaFilter
		want []string
	}{
		{mynah.MediaFilter{}, []string{"v1", "p1", "s2", "s3", "s1"}},
		{mynah.MediaFilter{Limit: 2}, []string{"v1", "p1"}},
		{mynah.MediaFilter{Kind: mynah.MediaSticker}, []string{"s2", "s3", "s1"}},
		{mynah.MediaFilter{SetName: "mrribbit"}, []string{"s2", "s1"}},
		{mynah.MediaFilter{Emoji: "💻"}, []string{"s3", "s1"}},
		{mynah.MediaFilter{SetName: "MrRibbit", Emoji: "💻"}, []string{"s1"}},
		{mynah.MediaFilter{Status: mynah.MediaDescribed}, []string{"p1", "s2", "s1"}},
		{mynah.MediaFilter{Status: mynah.MediaFailed, Kind: mynah.MediaSticker}, []string{"s3"}},
		{mynah.MediaFilter{Kind: mynah.MediaVideo}, nil},
	} {
		if diff := cmp.Diff(uids(c.f), c.want, cmpOpts); diff != "" {
			t.Errorf("MediaNotes(%+v) (-got +want):\n%s", c.f, diff)
		}
	}
}

// testMediaQueueJoins: a message stored with a file that has no description joins the
// queue, inbound, sent or edited; one whose media need nothing, or that was imported,
// does not.
func testMediaQueueJoins(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	post(t, s, agentA, withMedia(group, 1, "look", photo("AgADheron")))
	post(t, s, agentA, withMedia(group, 2, "described already",
		mynah.Media{Kind: mynah.MediaPhoto, FileID: "f2", FileUniqueID: "AgADdone", Description: "a heron"}))
	post(t, s, agentA, withMedia(group, 3, "", mynah.Media{Kind: mynah.MediaLocation, Description: "51.5,-0.12"}))
	post(t, s, agentA, message(group, 4, "just text"))
	post(t, s, agentB, withMedia(dm, 5, "", mynah.Media{Kind: mynah.MediaVoice, FileID: "fv", FileUniqueID: "AgADvoice", Duration: 7}))
	// An export's photo: no file ids; another bot's log: ids this bot cannot download.
	if _, err := s.ImportMessages(ctx, agentA, group, []mynah.Message{
		*withMedia(group, 6, "", mynah.Media{Kind: mynah.MediaPhoto, Width: 800, Height: 600}),
		*withMedia(group, 7, "", photo("AgADimported")),
	}); err != nil {
		t.Fatal(err)
	}
	// The agent's own sticker, recorded when sent.
	turn := queueTurns(t, s, agentA, dm, 8)[0]
	if _, err := s.FinishTurn(ctx, turn.ID, []mynah.OutPart{part(turn, 0, "sticker")}); err != nil {
		t.Fatal(err)
	}
	sent := mynah.Message{Chat: dm, ID: 9, Sender: bot, Time: at(9), Media: []mynah.Media{{Kind: mynah.MediaSticker,
		FileID: "fs", FileUniqueID: "AgADfrog", Emoji: "💻", SetName: "MrRibbit", MimeType: "image/webp"}}}
	if err := s.MarkSent(ctx, pendingParts(t, s, agentA, 1)[0].ID, sent); err != nil {
		t.Fatal(err)
	}
	// A text message edited into a photo.
	edit := *message(group, 4, "now with a photo")
	edit.Media, edit.Edited = []mynah.Media{photo("AgADedit")}, at(100)
	accept(t, s, agentA, 4000, mynah.Intake{Chat: group, Message: &edit, Edit: true})

	want := []mynah.MediaWork{work(agentA, group, 1), work(agentB, dm, 5), work(agentA, dm, 9), work(agentA, group, 4)}
	if diff := cmp.Diff(queued(t, s), want, cmpOpts); diff != "" {
		t.Errorf("queued (-got +want):\n%s", diff)
	}
	if got := pendingMedia(t, s, later(), 2); len(got) != 2 || got[0].Message != 1 || got[1].Message != 5 {
		t.Errorf("PendingMedia with limit 2 = %+v, want the two oldest", got)
	}
	if got := pendingMedia(t, s, later(), 0); len(got) != 0 {
		t.Errorf("PendingMedia with limit 0 = %+v, want none", got)
	}
	if got := pendingMedia(t, s, time.Now().Add(-time.Hour), 10); len(got) != 0 {
		t.Errorf("PendingMedia an hour ago = %+v, want none due yet", got)
	}
	// The stored message keeps every field of its media, the size included.
	if diff := cmp.Diff(getMessage(t, s, agentA, group.ID, 1).Media, []mynah.Media{photo("AgADheron")}, cmpOpts); diff != "" {
		t.Errorf("stored media (-got +want):\n%s", diff)
	}
}

// testMediaQueueDeferDone: a deferred message is not due before its time; a done one
// leaves the queue, and comes back when an edit brings a new file.
func testMediaQueueDeferDone(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	post(t, s, agentA, withMedia(group, 1, "", photo("AgADone")))
	post(t, s, agentA, withMedia(group, 2, "", photo("AgADtwo")))
	due := later().Add(time.Hour)
	if err := s.DeferMedia(ctx, agentA, group.ID, 1, due); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(queued(t, s), []mynah.MediaWork{work(agentA, group, 2)}, cmpOpts); diff != "" {
		t.Errorf("queued after deferring 1 (-got +want):\n%s", diff)
	}
	got := pendingMedia(t, s, due, 10)
	if len(got) != 2 || got[1].Message != 1 || !got[1].Due.Equal(due.Truncate(time.Millisecond)) {
		t.Errorf("PendingMedia at the deferred time = %+v, want 2 then 1 (due %v)", got, due)
	}
	for i := range 2 { // done twice is not an error
		if err := s.DoneMedia(ctx, agentA, group.ID, 2); err != nil {
			t.Fatalf("DoneMedia #%d: %v", i+1, err)
		}
	}
	if err := s.DoneMedia(ctx, agentB, group.ID, 1); err != nil {
		t.Errorf("DoneMedia of another agent's message: %v", err)
	}
	if err := s.DeferMedia(ctx, agentA, group.ID, 2, due); err != nil {
		t.Errorf("DeferMedia of a message not queued: %v", err)
	}
	if got := pendingMedia(t, s, due, 10); len(got) != 1 || got[0].Message != 1 {
		t.Errorf("PendingMedia after DoneMedia = %+v, want only 1", got)
	}
	// An edit that brings a new file queues the message again, due at once.
	for id, uid := range []string{1: "AgADone2", 2: "AgADtwo2"} {
		if uid == "" {
			continue
		}
		edit := *withMedia(group, id, "edited", photo(uid))
		edit.Edited = at(100)
		accept(t, s, agentA, int64(100+id), mynah.Intake{Chat: group, Message: &edit, Edit: true})
	}
	if diff := cmp.Diff(queued(t, s), []mynah.MediaWork{work(agentA, group, 1), work(agentA, group, 2)}, cmpOpts); diff != "" {
		t.Errorf("queued after edits (-got +want):\n%s", diff)
	}
}

// testSetMediaDescription: a description lands on the attachments of that file in that
// message only, and its words are found by search like typed text, whether the message
// was indexed before (1) or not yet (3).
func testSetMediaDescription(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	doc := mynah.Media{Kind: mynah.MediaDocument, FileID: "fd", FileUniqueID: "AgADdoc", FileName: "minutes.txt", MimeType: "text/plain", Size: 90}
	post(t, s, agentA, withMedia(group, 1, "two things", photo("AgADheron"), doc))
	post(t, s, agentA, withMedia(group, 2, "the same photo again", photo("AgADheron")))
	if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: []string{"heron"}}); len(got) != 0 {
		t.Fatalf("heron is found before any description: %v", got)
	}
	post(t, s, agentA, withMedia(group, 3, "", mynah.Media{Kind: mynah.MediaVoice, FileID: "fv", FileUniqueID: "AgADvoice", Duration: 4}))

	set := func(id int, uid, desc string) {
		t.Helper()
		if err := s.SetMediaDescription(ctx, agentA, group.ID, mynah.MessageID(id), uid, desc); err != nil {
			t.Fatalf("SetMediaDescription(%d, %s): %v", id, uid, err)
		}
	}
	set(1, "AgADheron", "a grey heron standing on a fence post")
	set(3, "AgADvoice", `"remind me about the dentist on Friday"`)

	p := photo("AgADheron")
	p.Description = "a grey heron standing on a fence post"
	if diff := cmp.Diff(getMessage(t, s, agentA, group.ID, 1).Media, []mynah.Media{p, doc}, cmpOpts); diff != "" {
		t.Errorf("message 1's media (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(getMessage(t, s, agentA, group.ID, 2).Media, []mynah.Media{photo("AgADheron")}, cmpOpts); diff != "" {
		t.Errorf("message 2's media changed (-got +want):\n%s", diff)
	}
	for term, want := range map[string][]mynah.MessageID{"heron": {1}, "fence": {1}, "dentist": {3}} {
		if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: []string{term}}); !slices.Equal(got, want) {
			t.Errorf("search %q = %v, want %v", term, got, want)
		}
	}
	// It does not touch the queue.
	if diff := cmp.Diff(queued(t, s), []mynah.MediaWork{work(agentA, group, 1), work(agentA, group, 2), work(agentA, group, 3)}, cmpOpts); diff != "" {
		t.Errorf("queued (-got +want):\n%s", diff)
	}
	// A new description replaces the old one in the index; an empty one clears it.
	set(1, "AgADheron", "a white egret")
	set(3, "AgADvoice", "")
	for term, want := range map[string][]mynah.MessageID{"heron": nil, "egret": {1}, "dentist": nil} {
		if got := search(t, s, mynah.SearchQuery{Agent: agentA, Terms: []string{term}}); !slices.Equal(got, want) {
			t.Errorf("after a second description, search %q = %v, want %v", term, got, want)
		}
	}
	if got := getMessage(t, s, agentA, group.ID, 3).Media[0].Description; got != "" {
		t.Errorf("a cleared description reads %q", got)
	}
	// A file the message does not carry changes nothing; a message not stored is an error.
	set(2, "AgADother", "nothing")
	if diff := cmp.Diff(getMessage(t, s, agentA, group.ID, 2).Media, []mynah.Media{photo("AgADheron")}, cmpOpts); diff != "" {
		t.Errorf("another file's description changed message 2 (-got +want):\n%s", diff)
	}
	for _, c := range []struct {
		agent string
		chat  mynah.ChatID
		id    mynah.MessageID
	}{{agentA, group.ID, 99}, {agentB, group.ID, 1}, {agentA, dm.ID, 1}} {
		err := s.SetMediaDescription(ctx, c.agent, c.chat, c.id, "AgADheron", "x")
		if !errors.Is(err, mynah.ErrNotFound) {
			t.Errorf("SetMediaDescription(%s, %d, %d) of no stored message: %v, want ErrNotFound", c.agent, c.chat, c.id, err)
		}
	}
}

// testMediaSurvivesReopen: the cache, the queue and the descriptions outlive a restart.
func testMediaSurvivesReopen(t *testing.T, b Backend) {
	if b.Reopen == nil {
		t.Skip("backend has no Reopen")
	}
	s := b.Open(t)
	ctx := t.Context()
	post(t, s, agentA, withMedia(dm, 1, "", photo("AgADheron")))
	post(t, s, agentA, withMedia(dm, 2, "", photo("AgADowl")))
	if err := s.SetMediaDescription(ctx, agentA, dm.ID, 1, "AgADheron", "a heron"); err != nil {
		t.Fatal(err)
	}
	if err := s.DoneMedia(ctx, agentA, dm.ID, 1); err != nil {
		t.Fatal(err)
	}
	note := mynah.MediaNote{UniqueID: "AgADheron", Kind: mynah.MediaPhoto, Status: mynah.MediaDescribed,
		Description: "a heron", Source: "model:m", Updated: at(5)}
	putNote(t, s, note)

	re := b.Reopen(t, s)
	if diff := cmp.Diff(mediaNote(t, re, note.UniqueID), note, cmpOpts); diff != "" {
		t.Errorf("note after reopen (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(queued(t, re), []mynah.MediaWork{work(agentA, dm, 2)}, cmpOpts); diff != "" {
		t.Errorf("queued after reopen (-got +want):\n%s", diff)
	}
	if got := getMessage(t, re, agentA, dm.ID, 1).Media[0].Description; got != "a heron" {
		t.Errorf("description after reopen = %q", got)
	}
}
