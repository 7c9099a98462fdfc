package tokens

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
)

// A prompt's cost is modelled as what its texts cost, script group by script group
// (Split), plus a cost per message (the provider's framing of roles and turns) and a
// constant (tool definitions, the provider's own preamble): features of them, weighed by
// the calibration's coefficients.
const (
	featMessages = Groups     // messages of the prompt
	featConst    = Groups + 1 // 1
	features     = Groups + 2
)

// Priors: Estimate is calibrated against o200k_base, so a factor of 1 per group; OpenAI
// frames each chat message with about 3 tokens and the reply with 3 more.
var prior = [features]float64{1, 1, 1, 1, 1, 4, 3}

// ridge is how strongly each coefficient is held to its prior, in the units of the
// statistics (squared tokens, squared messages, observations). Against the data of about
// 1/(1-decay) prompts it is small for a script group used in earnest (hundreds of tokens
// a prompt), so the data decide, while a group a prompt barely uses keeps its prior. The
// cost per message is held firmly: a prompt's messages grow with its text, so the data
// alone could not tell them apart, and counts of single texts (Count) need the text's
// share right. The constant (tool definitions) is left to the data.
var ridge = [features]float64{1e4, 1e4, 1e4, 1e4, 1e4, 1e4, 0.01}

// decay is the weight each older observation keeps per newer one: the calibration
// follows an agent whose conversations change language or length, over about
// 1/(1-decay) prompts.
const decay = 0.98

// Bounds of the coefficients, so that a provider reporting nonsense cannot make budgets
// absurd: a script group costs a quarter to four times Estimate's figure.
var (
	low  = [features]float64{0.25, 0.25, 0.25, 0.25, 0.25, 0, 0}
	high = [features]float64{4, 4, 4, 4, 4, 64, 1 << 20}
)

// Calibration counts tokens for one model with Estimate's per-script costs, corrected
// continuously by the prompt tokens the model's provider reports for each call (Observe):
// a decayed ridge regression of the reported counts on the prompts' script groups,
// messages and a constant. Before any observation it counts as Estimate does. It keeps
// the split of recently counted texts, so a prompt that repeats the last one's history
// costs map lookups. Its state survives restarts through MarshalJSON and UnmarshalJSON.
// Safe for concurrent use.
type Calibration struct {
	mu    sync.Mutex
	s     [features][features]float64 // decayed Σ x xᵀ
	r     [features]float64           // decayed Σ x y
	n     int                         // observations, all time
	coef  [features]float64
	dirty bool // observed since the last MarshalJSON

	cache splitCache
}

// NewCalibration returns a Calibration that counts as Estimate until it observes.
func NewCalibration() *Calibration {
	return &Calibration{coef: prior, cache: newSplitCache(8192)}
}

// Count returns the calibrated token count of text: its script groups weighed by the
// calibration's factors. It is 0 only for the empty string.
func (c *Calibration) Count(text string) int {
	if text == "" {
		return 0
	}
	costs := c.cache.split(text)
	c.mu.Lock()
	coef := c.coef
	c.mu.Unlock()
	v := 0.0
	for g := range Groups {
		v += coef[g] * float64(costs[g])
	}
	return max(1, int(math.Round(v/1000)))
}

// Prompt is the measure of one prompt as Calibration models it. Add its texts, count its
// messages, then Predict or Observe it. The zero value is an empty prompt.
type Prompt struct {
	costs    Costs
	Messages int // messages (turns) of the prompt, the system instruction included
}

// Add adds a text of the prompt.
func (c *Calibration) Add(p *Prompt, text string) {
	if text == "" {
		return
	}
	costs := c.cache.split(text)
	for g := range Groups {
		p.costs[g] += costs[g]
	}
}

func (p *Prompt) features() [features]float64 {
	var x [features]float64
	for g := range Groups {
		x[g] = float64(p.costs[g]) / 1000
	}
	x[featMessages] = float64(p.Messages)
	x[featConst] = 1
	return x
}

// Predict returns the tokens the calibration expects the provider to report for p.
func (c *Calibration) Predict(p Prompt) int {
	x := p.features()
	c.mu.Lock()
	coef := c.coef
	c.mu.Unlock()
	return int(math.Round(dot(coef, x)))
}

// Observe learns from one call: the provider reported reported prompt tokens for p. A
// count of zero or less (a provider that reports none) teaches nothing. Prompts with
// images or audio must not be observed: their media cost tokens p does not measure.
func (c *Calibration) Observe(p Prompt, reported int) {
	if reported <= 0 {
		return
	}
	x := p.features()
	y := float64(reported)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range features {
		c.r[i] = decay*c.r[i] + x[i]*y
		for j := range features {
			c.s[i][j] = decay*c.s[i][j] + x[i]*x[j]
		}
	}
	c.n++
	c.dirty = true
	c.solve()
}

// Observations returns how many calls the calibration learned from, all time.
func (c *Calibration) Observations() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Factors returns the calibrated factor of each script group (Latin, Cyrillic, CJK,
// OtherLetters, Common), the tokens per message and the constant tokens per prompt.
func (c *Calibration) Factors() (groups [Groups]float64, perMessage, constant float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	copy(groups[:], c.coef[:Groups])
	return groups, c.coef[featMessages], c.coef[featConst]
}

// solve sets coef to the ridge solution (S + Λ) coef = r + Λ prior, clamped to the
// bounds. The caller holds mu.
func (c *Calibration) solve() {
	var a [features][features + 1]float64
	for i := range features {
		for j := range features {
			a[i][j] = c.s[i][j]
		}
		a[i][i] += ridge[i]
		a[i][features] = c.r[i] + ridge[i]*prior[i]
	}
	coef, ok := gauss(a)
	if !ok {
		return // keep the last good solution
	}
	for i := range features {
		c.coef[i] = min(max(coef[i], low[i]), high[i])
	}
}

// gauss solves the linear system a (augmented with its right-hand side) by elimination
// with partial pivoting; false when it is singular.
func gauss(a [features][features + 1]float64) ([features]float64, bool) {
	var x [features]float64
	for col := range features {
		p := col
		for r := col + 1; r < features; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		if math.Abs(a[p][col]) < 1e-12 {
			return x, false
		}
		a[col], a[p] = a[p], a[col]
		for r := col + 1; r < features; r++ {
			f := a[r][col] / a[col][col]
			for k := col; k <= features; k++ {
				a[r][k] -= f * a[col][k]
			}
		}
	}
	for i := features - 1; i >= 0; i-- {
		v := a[i][features]
		for k := i + 1; k < features; k++ {
			v -= a[i][k] * x[k]
		}
		x[i] = v / a[i][i]
	}
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return x, false
		}
	}
	return x, true
}

func dot(a, b [features]float64) float64 {
	v := 0.0
	for i := range a {
		v += a[i] * b[i]
	}
	return v
}

// stateVersion names the model of the stored state; a state of another model (features
// added or reordered) is not loaded, and the calibration starts afresh.
const stateVersion = 1

type calibrationState struct {
	Version int                         `json:"version"`
	N       int                         `json:"n"`
	S       [features][features]float64 `json:"s"`
	R       [features]float64           `json:"r"`
}

// MarshalJSON returns the calibration's state, and marks it saved.
func (c *Calibration) MarshalJSON() ([]byte, error) {
	c.mu.Lock()
	st := calibrationState{Version: stateVersion, N: c.n, S: c.s, R: c.r}
	c.dirty = false
	c.mu.Unlock()
	return json.Marshal(st)
}

// errStateVersion is the error of a stored state written by another model of costs.
var errStateVersion = errors.New("calibration state of another version")

// UnmarshalJSON restores a state MarshalJSON returned. A state of another version, or one
// that does not parse, is an error and leaves the calibration as it was.
func (c *Calibration) UnmarshalJSON(data []byte) error {
	var st calibrationState
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("calibration state: %w", err)
	}
	if st.Version != stateVersion {
		return fmt.Errorf("%w: %d, want %d", errStateVersion, st.Version, stateVersion)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.s, c.r, c.n = st.S, st.R, st.N
	c.solve()
	return nil
}

// isDirty reports whether the calibration observed since its state was last marshalled.
func (c *Calibration) isDirty() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dirty
}

func (c *Calibration) markDirty() {
	c.mu.Lock()
	c.dirty = true
	c.mu.Unlock()
}
