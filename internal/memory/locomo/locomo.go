// Package locomo reads the LoCoMo long-conversation benchmark (Maharana et al., ACL 2024;
// licence CC BY-NC 4.0: benchmark use only, never shipped), imports its conversations
// into a store the way "mynah import" does, asks its questions through memory search,
// and scores retrieval: turn recall@k and session recall@k per question category,
// following the protocol of the repository's bench/README.md.
package locomo

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
)

// Turn is one utterance of a conversation.
type Turn struct {
	Session, Index int // D<Session>:<Index>
	Speaker        string
	Text           string // with the caption of a shared image appended
	Caption        string // the caption of the image the turn shared; "" for none
	Time           time.Time
}

// captioned is how a turn's text carries the caption of the image it shared.
func captioned(text, caption string) string {
	if caption == "" {
		return text
	}
	return text + " [shared a photo: " + caption + "]"
}

// WithoutCaptions returns convs with each turn's text alone, without the caption of the
// image it shared: the protocol lets an image turn add its caption or not (an agent
// indexes a photo's description, which a text-only import lacks).
func WithoutCaptions(convs []Conversation) []Conversation {
	out := make([]Conversation, len(convs))
	for i, c := range convs {
		c.Turns = slices.Clone(c.Turns)
		for j := range c.Turns {
			t := &c.Turns[j]
			t.Text, t.Caption = strings.TrimSuffix(t.Text, captioned("", t.Caption)), ""
		}
		out[i] = c
	}
	return out
}

// ID is the turn's message id in its chat: Session·1000 + Index, so ids grow through the
// conversation and turns of different sessions are never adjacent.
func (t Turn) ID() mynah.MessageID { return TurnID(t.Session, t.Index) }

// TurnID is the message id of turn D<session>:<index>.
func TurnID(session, index int) mynah.MessageID { return mynah.MessageID(session*1000 + index) }

// Question is a question with the turns that hold its answer.
type Question struct {
	Text     string
	Category int               // 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial
	Evidence []mynah.MessageID // normalised, existing turns only; never empty
}

// Conversation is one sample: two speakers' sessions and the questions about them.
type Conversation struct {
	ID        string
	Speakers  [2]string
	Turns     []Turn
	Questions []Question
}

type rawSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string `json:"question"`
		Category int    `json:"category"`
		Evidence []string
	} `json:"qa"`
}

type rawTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption"`
}

// evidenceID finds the turn ids in an evidence string; the release writes some as
// "D8:6; D9:17", "D:11:26" or "D30:05".
var evidenceID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`D:?(\d+):(\d+)`) })

// sessionTime is how LoCoMo writes a session's date: "1:56 pm on 8 May, 2023".
const sessionTime = "3:04 pm on 2 January, 2006"

// LoadFile reads the LoCoMo JSON file at path (see Load). A missing file is an error
// wrapping fs.ErrNotExist, which benchmarks without the data skip on.
func LoadFile(path string) ([]Conversation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	convs, err := Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return convs, nil
}

// Load reads the LoCoMo JSON (an array of samples). Evidence is normalised; ids that
// then point at no turn are dropped, and a question left without evidence is left out.
func Load(r io.Reader) ([]Conversation, error) {
	var raw []rawSample
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, fmt.Errorf("locomo: %w", err)
	}
	out := make([]Conversation, 0, len(raw))
	for _, s := range raw {
		c, err := conversation(s)
		if err != nil {
			return nil, fmt.Errorf("locomo: sample %s: %w", s.SampleID, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func conversation(s rawSample) (Conversation, error) {
	c := Conversation{ID: s.SampleID}
	for i, key := range []string{"speaker_a", "speaker_b"} {
		if err := json.Unmarshal(s.Conversation[key], &c.Speakers[i]); err != nil {
			return c, fmt.Errorf("%s: %w", key, err)
		}
	}
	exists := map[mynah.MessageID]bool{}
	for n := 1; ; n++ {
		key := "session_" + strconv.Itoa(n)
		body, ok := s.Conversation[key]
		if !ok {
			break
		}
		var date string
		if err := json.Unmarshal(s.Conversation[key+"_date_time"], &date); err != nil {
			return c, fmt.Errorf("%s_date_time: %w", key, err)
		}
		start, err := time.Parse(sessionTime, strings.ToLower(date))
		if err != nil {
			return c, fmt.Errorf("%s_date_time %q: %w", key, date, err)
		}
		var turns []rawTurn
		if err := json.Unmarshal(body, &turns); err != nil {
			return c, fmt.Errorf("%s: %w", key, err)
		}
		for _, rt := range turns {
			m := evidenceID().FindStringSubmatch(rt.DiaID)
			if m == nil {
				return c, fmt.Errorf("%s: dia_id %q", key, rt.DiaID)
			}
			sess, _ := strconv.Atoi(m[1])
			idx, _ := strconv.Atoi(m[2])
			t := Turn{Session: sess, Index: idx, Speaker: rt.Speaker, Text: captioned(rt.Text, rt.Caption), Caption: rt.Caption,
				Time: start.Add(time.Duration(idx) * time.Second)}
			exists[t.ID()] = true
			c.Turns = append(c.Turns, t)
		}
	}
	for _, q := range s.QA {
		var ev []mynah.MessageID
		for _, e := range q.Evidence {
			for _, m := range evidenceID().FindAllStringSubmatch(e, -1) {
				sess, _ := strconv.Atoi(m[1])
				idx, _ := strconv.Atoi(m[2])
				if id := TurnID(sess, idx); exists[id] && !slices.Contains(ev, id) {
					ev = append(ev, id)
				}
			}
		}
		if len(ev) > 0 {
			c.Questions = append(c.Questions, Question{Text: q.Question, Category: q.Category, Evidence: ev})
		}
	}
	return c, nil
}

// Corpus repeats the turns of convs, in order, as n messages of one chat a minute apart
// from 2024-01-01 (senders cycling through 7 users), and returns them with every question
// of convs: realistic chat text and word frequencies at any size, for speed benchmarks.
func Corpus(convs []Conversation, n int) ([]mynah.Message, []string) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	msgs := make([]mynah.Message, 0, n)
	for len(msgs) < n {
		for _, c := range convs {
			for _, t := range c.Turns {
				if len(msgs) == n {
					break
				}
				id := len(msgs) + 1
				msgs = append(msgs, mynah.Message{ID: mynah.MessageID(id), Time: t0.Add(time.Duration(id) * time.Minute),
					Sender: mynah.User{ID: mynah.UserID(1 + id%7), FirstName: t.Speaker}, Text: t.Text})
			}
		}
	}
	var questions []string
	for _, c := range convs {
		for _, q := range c.Questions {
			questions = append(questions, q.Text)
		}
	}
	return msgs, questions
}
