package locomo

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

// fakeStore keeps imported messages and finds those with any of a query's terms, scored
// by how many they have.
type fakeStore struct {
	msgs  []mynah.Message // in import order
	asked []mynah.SearchQuery
}

func (f *fakeStore) ImportMessages(_ context.Context, agent string, chat mynah.Chat, msgs []mynah.Message) (int, error) {
	added := 0
	for _, m := range msgs {
		if !slices.ContainsFunc(f.msgs, func(s mynah.Message) bool { return s.Chat.ID == chat.ID && s.ID == m.ID }) {
			m.Agent, m.Chat = agent, chat
			f.msgs = append(f.msgs, m)
			added++
		}
	}
	return added, nil
}

func (f *fakeStore) SearchHistory(_ context.Context, q mynah.SearchQuery) ([]mynah.SearchHit, error) {
	f.asked = append(f.asked, q)
	var hits []mynah.SearchHit
	for _, m := range f.msgs {
		if m.Agent != q.Agent || m.Chat.ID != q.Chat {
			continue
		}
		score := 0.0
		for _, term := range q.Terms {
			if slices.Contains(strings.Fields(strings.ToLower(m.Text)), term) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, mynah.SearchHit{Message: m, Score: score})
		}
	}
	slices.SortStableFunc(hits, func(a, b mynah.SearchHit) int { return int(b.Score - a.Score) })
	return hits, nil
}

func (f *fakeStore) Around(context.Context, string, mynah.ChatID, mynah.MessageID, int, int) ([]mynah.Message, error) {
	return nil, nil
}

func testConversations(t *testing.T) []Conversation {
	t.Helper()
	const data = `[{"sample_id": "first", "conversation": {"speaker_a": "Anna Lee", "speaker_b": "Ben",
	  "session_1_date_time": "1:00 pm on 1 May, 2023",
	  "session_1": [{"speaker": "Anna Lee", "dia_id": "D1:1", "text": "my puppy Biscuit"}, {"speaker": "Ben", "dia_id": "D1:2", "text": "nice"}],
	  "session_2_date_time": "2:00 pm on 3 June, 2023",
	  "session_2": [{"speaker": "Ben", "dia_id": "D2:1", "text": "I play violin"}]},
	  "qa": [{"question": "biscuit", "category": 4, "evidence": ["D1:1"]}, {"question": "violin", "category": 1, "evidence": ["D2:1"]}]},
	 {"sample_id": "empty", "conversation": {"speaker_a": "C", "speaker_b": "D"}, "qa": []}]`
	convs, err := Load(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return convs
}

// TestImport: turns become messages of the conversation's chat, from its two speakers,
// at the turns' times; importing again adds nothing.
func TestImport(t *testing.T) {
	convs := testConversations(t)
	var st fakeStore
	for range 2 {
		for i, c := range convs {
			if err := Import(t.Context(), &st, c, i); err != nil {
				t.Fatal(err)
			}
		}
	}
	chat := mynah.Chat{ID: -1001, Type: mynah.ChatGroup, Title: "first"}
	anna := mynah.User{ID: 101, FirstName: "Anna", LastName: "Lee"}
	ben := mynah.User{ID: 102, FirstName: "Ben"}
	may1 := time.Date(2023, 5, 1, 13, 0, 0, 0, time.UTC)
	jun3 := time.Date(2023, 6, 3, 14, 0, 0, 0, time.UTC)
	want := []mynah.Message{
		{ID: 1001, Agent: Agent, Chat: chat, Time: may1.Add(time.Second), Sender: anna, Text: "my puppy Biscuit"},
		{ID: 1002, Agent: Agent, Chat: chat, Time: may1.Add(2 * time.Second), Sender: ben, Text: "nice"},
		{ID: 2001, Agent: Agent, Chat: chat, Time: jun3.Add(time.Second), Sender: ben, Text: "I play violin"},
	}
	if diff := cmp.Diff(want, st.msgs); diff != "" {
		t.Errorf("imported messages (-want +got):\n%s", diff)
	}
	if got := Chat(convs[1], 1); got != (mynah.Chat{ID: -1002, Type: mynah.ChatGroup, Title: "empty"}) {
		t.Errorf("second conversation's chat = %+v", got)
	}

	var pos []string
	_ = Source(convs[0], 0)(func(p string, _ mynah.Message, err error) bool {
		pos = append(pos, p)
		return err == nil
	})
	if diff := cmp.Diff([]string{"first D1:1", "first D1:2", "first D2:1"}, pos); diff != "" {
		t.Errorf("positions (-want +got):\n%s", diff)
	}
}

// TestRun: every question is asked in its conversation's chat, as the benchmark's agent,
// and scored; a conversation without turns asks nothing.
func TestRun(t *testing.T) {
	var st fakeStore
	rep, err := Run(t.Context(), &st, testConversations(t), []int{1, 5})
	if err != nil {
		t.Fatal(err)
	}
	if rep.All.Questions != 2 {
		t.Errorf("%d questions scored, want 2", rep.All.Questions)
	}
	if turn, _ := rep.All.Mean(); !slices.Equal(turn, []float64{1, 1}) {
		t.Errorf("turn recall = %v, want [1 1]", turn)
	}
	for _, q := range st.asked {
		if q.Agent != Agent || q.Chat != -1001 {
			t.Errorf("asked %s in chat %d, want %s in -1001", q.Agent, q.Chat, Agent)
		}
	}
	if len(st.asked) == 0 {
		t.Error("nothing was searched")
	}
}

// TestReach: a turn that holds a word of the question, by its stem, is reached; one
// that shares only a speaker's name is not; Ask reports the mean per category.
func TestReach(t *testing.T) {
	const data = `[{"sample_id": "c", "conversation": {"speaker_a": "Caroline Hale", "speaker_b": "Mel",
	  "session_1_date_time": "1:00 pm on 1 May, 2023",
	  "session_1": [{"speaker": "Caroline Hale", "dia_id": "D1:1", "text": "I painted the sunset over the lake"},
	                {"speaker": "Mel", "dia_id": "D1:2", "text": "Caroline, your church mural is lovely"}]},
	  "qa": [{"question": "What does Caroline paint?", "category": 3, "evidence": ["D1:1", "D1:2"]},
	         {"question": "Is Caroline religious?", "category": 3, "evidence": ["D1:2"]}]}]`
	convs, err := Load(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := convs[0]
	if got := Reach(c, c.Questions[0]); got != 0.5 {
		t.Errorf("reach of %q = %v, want 0.5: \"painted\" holds \"paint\", the mural only the name", c.Questions[0].Text, got)
	}
	if got := Reach(c, c.Questions[1]); got != 0 {
		t.Errorf("reach of %q = %v, want 0", c.Questions[1].Text, got)
	}
	var st fakeStore
	rep, err := Run(t.Context(), &st, convs, []int{10})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.ByCategory[3].MeanReach(); got != 0.25 {
		t.Errorf("open-domain reach = %v, want 0.25", got)
	}
}
