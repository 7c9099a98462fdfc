package tokens

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// provider costs a prompt as OpenAI's chat API reports it for an o200k model: each
// message's text exactly, 3 tokens of framing per message, 3 priming the reply, plus the
// tool definitions (a constant per agent).
type provider struct {
	count      func(string) int
	perMessage int
	tools      int
}

func (p provider) report(system string, msgs []string) int {
	n := 3 + p.tools + p.perMessage + p.count(system)
	for _, m := range msgs {
		n += p.perMessage + p.count(m)
	}
	return n
}

// chatLines are the non-empty lines of a fixture, each taken as one chat message.
func chatLines(text string) []string {
	var out []string
	for l := range strings.SplitSeq(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// simulate runs a chat of turns prompts over msgs (a window of the last 10 to 60
// messages, growing and shrinking), predicting each prompt before observing the
// provider's count, and returns the relative errors of the predictions from warmup on,
// and those of the uncalibrated estimate over the same prompts.
func simulate(t *testing.T, c *Calibration, p provider, system string, msgs []string, turns, warmup int) (after, before []float64) {
	t.Helper()
	fresh := NewCalibration()
	for i := range turns {
		window := 10 + (i*7)%51
		end := (i*3)%len(msgs) + 1
		var prompt []string
		for k := max(0, end-window); k < end; k++ {
			prompt = append(prompt, msgs[k])
		}
		var pr Prompt
		c.Add(&pr, system)
		for _, m := range prompt {
			c.Add(&pr, m)
		}
		pr.Messages = len(prompt) + 1
		want := p.report(system, prompt)
		if i >= warmup {
			after = append(after, math.Abs(float64(c.Predict(pr)-want))/float64(want))
			before = append(before, math.Abs(float64(fresh.Predict(pr)-want))/float64(want))
		}
		c.Observe(pr, want)
	}
	return after, before
}

func percentile(v []float64, p float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return s[int(float64(len(s)-1)*p)]
}

// TestCalibrationLearnsTheProvider: against a provider counting with o200k_base (the
// reference Estimate approximates), and one whose tokenizer costs every script
// differently (as Claude's and Gemini's do), calibrated predictions of whole prompts are
// within 3% at the 95th percentile after 20 prompts, in every language of the fixtures.
func TestCalibrationLearnsTheProvider(t *testing.T) {
	texts := fixtures(t)
	system := texts["system_prompt_en"]
	skewed := func(s string) int {
		// A made-up tokenizer: 25% dearer Latin, 60% dearer Cyrillic, cheaper CJK.
		c := Split(s)
		v := 1.25*float64(c[Latin]) + 1.6*float64(c[Cyrillic]) + 0.8*float64(c[CJK]) + float64(c[OtherLetters]) + 1.1*float64(c[Common])
		return int(math.Round(v / 1000))
	}
	providers := map[string]provider{
		"o200k":  {count: o200k.Count, perMessage: 3, tools: 150},
		"skewed": {count: skewed, perMessage: 5, tools: 400},
	}
	for _, pname := range []string{"o200k", "skewed"} {
		for _, name := range sortedKeys(texts) {
			if name == "system_prompt_en" {
				continue
			}
			msgs := chatLines(texts[name])
			after, before := simulate(t, NewCalibration(), providers[pname], system, msgs, 120, 20)
			p95, was := percentile(after, 0.95), percentile(before, 0.95)
			t.Logf("%-7s %-16s p95 error %5.2f%% (uncalibrated %5.2f%%)", pname, name, 100*p95, 100*was)
			if p95 > 0.03 {
				t.Errorf("%s, %s: calibrated p95 error %.1f%%, want at most 3%%", pname, name, 100*p95)
			}
		}
	}
}

func TestCalibrationCountsAsEstimateUntilItObserves(t *testing.T) {
	c := NewCalibration()
	for name, text := range fixtures(t) {
		if got, want := c.Count(text), Estimate(text); got != want {
			t.Errorf("%s: Count = %d before any observation, want Estimate's %d", name, got, want)
		}
	}
	if c.Count("") != 0 {
		t.Error("Count of the empty string is not 0")
	}
}

// TestCalibrationScalesCounts: after learning a provider that costs Cyrillic text twice
// what Estimate says, a Cyrillic message counts about twice as much, a Latin one as
// before.
func TestCalibrationScalesCounts(t *testing.T) {
	texts := fixtures(t)
	double := func(s string) int {
		c := Split(s)
		return int(math.Round((float64(c.Sum()) + float64(c[Cyrillic])) / 1000))
	}
	c := NewCalibration()
	for _, name := range []string{"ru_chat", "en_chat", "uk_chat", "en_chat"} {
		simulate(t, c, provider{count: double, perMessage: 3}, "", chatLines(texts[name]), 60, 0)
	}
	ru, en := chatLines(texts["ru_chat"]), chatLines(texts["en_chat"])
	ruText, enText := strings.Join(ru, "\n"), strings.Join(en, "\n")
	if got, want := float64(c.Count(ruText)), float64(double(ruText)); math.Abs(got-want)/want > 0.05 {
		t.Errorf("Russian text counts %v, want about %v (the provider's count)", got, want)
	}
	if got, want := float64(c.Count(enText)), float64(Estimate(enText)); math.Abs(got-want)/want > 0.05 {
		t.Errorf("English text counts %v, want about %v (unchanged)", got, want)
	}
}

// TestCalibrationIgnoresNonsense: counts of zero teach nothing, and absurd ones cannot
// push a script's factor past its bounds.
func TestCalibrationIgnoresNonsense(t *testing.T) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 40)
	c := NewCalibration()
	var p Prompt
	c.Add(&p, text)
	p.Messages = 2
	for range 50 {
		c.Observe(p, 0)
	}
	if c.Observations() != 0 || c.Count(text) != Estimate(text) {
		t.Errorf("zero counts were learned: %d observations, count %d, want %d", c.Observations(), c.Count(text), Estimate(text))
	}
	for range 200 {
		c.Observe(p, 1)
	}
	if got, floor := c.Count(text), Estimate(text)/4; got < floor-1 {
		t.Errorf("a provider reporting 1 token pushed the count to %d, below a quarter of Estimate (%d)", got, floor)
	}
	for range 200 {
		c.Observe(p, 1<<30)
	}
	if got, ceil := c.Count(text), 4*Estimate(text); got > ceil+1 {
		t.Errorf("a provider reporting 2³⁰ tokens pushed the count to %d, past four times Estimate (%d)", got, ceil)
	}
}

func TestCalibrationStateRoundTrip(t *testing.T) {
	texts := fixtures(t)
	c := NewCalibration()
	simulate(t, c, provider{count: o200k.Count, perMessage: 3, tools: 100}, "", chatLines(texts["uk_chat"]), 40, 0)
	state, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if c.isDirty() {
		t.Error("still dirty after its state was taken")
	}
	restored := NewCalibration()
	if err := json.Unmarshal(state, restored); err != nil {
		t.Fatal(err)
	}
	for name, text := range texts {
		if got, want := restored.Count(text), c.Count(text); got != want {
			t.Errorf("%s: restored calibration counts %d, the original %d", name, got, want)
		}
	}
	if restored.Observations() != 40 {
		t.Errorf("restored %d observations, want 40", restored.Observations())
	}
	var st map[string]any
	_ = json.Unmarshal(state, &st)
	st["version"] = 99
	other, _ := json.Marshal(st)
	if err := json.Unmarshal(other, NewCalibration()); !errors.Is(err, errStateVersion) {
		t.Errorf("a state of another version: err = %v, want errStateVersion", err)
	}
	if err := NewCalibration().UnmarshalJSON([]byte("{")); err == nil {
		t.Error("a broken state was accepted")
	}
}
