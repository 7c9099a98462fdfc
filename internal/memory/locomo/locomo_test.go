package locomo

import (
	"slices"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah"
)

func TestLoadNormalisesEvidence(t *testing.T) {
	const data = `[{"sample_id": "s", "conversation": {"speaker_a": "A", "speaker_b": "B",
	  "session_1_date_time": "1:56 pm on 8 May, 2023",
	  "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "one"}, {"speaker": "B", "dia_id": "D1:3", "text": "three", "blip_caption": "a cat"}]},
	  "qa": [{"question": "q1", "category": 1, "evidence": ["D1:03; D1:1", "D:1:1"]},
	         {"question": "q2", "category": 5, "evidence": ["D7:7", "D"]}]}]`
	convs, err := Load(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := convs[0]
	if len(c.Questions) != 1 || !slices.Equal(c.Questions[0].Evidence, []mynah.MessageID{1003, 1001}) {
		t.Fatalf("questions = %+v, want q1 with evidence [1003 1001] and q2 left out", c.Questions)
	}
	if got := c.Turns[1]; got.Text != "three [shared a photo: a cat]" || got.Time.Format("2006-01-02 15:04") != "2023-05-08 13:56" {
		t.Errorf("turn D1:3 = %+v", got)
	}
	if got := WithoutCaptions(convs)[0].Turns; got[0].Text != "one" || got[1].Text != "three" || got[1].Caption != "" {
		t.Errorf("without captions: %+v, want the turns' own text", got)
	}
	if c.Turns[1].Text != "three [shared a photo: a cat]" {
		t.Errorf("WithoutCaptions changed the conversations it was given: %+v", c.Turns[1])
	}
	rep := NewReport([]int{1, 2})
	rep.Add(c.Questions[0], []mynah.MessageID{1001, 1003})
	if turn, sess := rep.Core.Mean(); !slices.Equal(turn, []float64{0.5, 1}) || !slices.Equal(sess, []float64{1, 1}) {
		t.Errorf("recall = %v / %v, want [0.5 1] / [1 1]", turn, sess)
	}
}
