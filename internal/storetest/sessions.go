package storetest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

// testTopicSessions: in a forum, /new in one topic starts a new conversation in that topic
// only; the others, and the General topic, keep theirs.
func testTopicSessions(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	inTopic := func(id int, thread int64, text string) *mynah.Message {
		m := message(group, id, text)
		m.ThreadID = thread
		return m
	}
	post(t, s, agentA, inTopic(1, 7, "topic 7, old"))
	post(t, s, agentA, inTopic(2, 9, "topic 9, old"))
	post(t, s, agentA, inTopic(3, 0, "general, old"))
	reset := inTopic(4, 7, "/new")
	accept(t, s, agentA, 4, mynah.Intake{Chat: group, Message: reset, Reset: true})
	post(t, s, agentA, inTopic(5, 7, "topic 7, new"))
	post(t, s, agentA, inTopic(6, 9, "topic 9, new"))

	for _, c := range []struct {
		thread int64
		want   mynah.Session
		recent []mynah.MessageID // the topic's history within its session
	}{
		{7, mynah.Session{Agent: agentA, Chat: group.ID, Thread: 7, Start: 4, Started: reset.Time}, []mynah.MessageID{5}},
		{9, mynah.Session{Agent: agentA, Chat: group.ID, Thread: 9}, []mynah.MessageID{2, 6}},
		{0, mynah.Session{Agent: agentA, Chat: group.ID}, []mynah.MessageID{1, 2, 3, 4, 5, 6}},
	} {
		got, err := s.Session(ctx, agentA, group.ID, c.thread)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(got, c.want, cmpOpts); diff != "" {
			t.Errorf("Session of topic %d (-got +want):\n%s", c.thread, diff)
		}
		if h := ids(history(t, s, agentA, group.ID, c.thread, got.Start, 50)); !cmp.Equal(h, c.recent) {
			t.Errorf("history of topic %d in its session = %v, want %v", c.thread, h, c.recent)
		}
	}
	// A reset in the General topic is the General topic's, not topic 7's or 9's.
	accept(t, s, agentA, 8, mynah.Intake{Chat: group, Message: inTopic(8, 0, "/reset"), Reset: true})
	for thread, want := range map[int64]mynah.MessageID{0: 8, 7: 4, 9: 0} {
		if got, err := s.Session(ctx, agentA, group.ID, thread); err != nil || got.Start != want {
			t.Errorf("Session of topic %d after a General reset = %+v, %v; want Start %d", thread, got, err, want)
		}
	}
}
