package tokens

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Store keeps calibrations across restarts, one per agent and model.
type Store interface {
	// Calibration returns the state saved for agent's model; nil, nil when none is.
	Calibration(ctx context.Context, agent, model string) ([]byte, error)
	// SaveCalibration replaces the state saved for agent's model.
	SaveCalibration(ctx context.Context, agent, model string, state []byte) error
}

// Calibrations holds the calibrations of a process's agents and models, loaded from a
// Store and saved back by Run. Safe for concurrent use.
type Calibrations struct {
	store Store
	log   *slog.Logger
	every time.Duration

	mu  sync.Mutex
	all map[calibrationKey]*Calibration
}

type calibrationKey struct{ agent, model string }

// NewCalibrations returns an empty set saving to store (nil: saved nowhere) every
// minute while there is something new. It does no I/O.
func NewCalibrations(store Store, log *slog.Logger) *Calibrations {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Calibrations{store: store, log: log, every: time.Minute, all: map[calibrationKey]*Calibration{}}
}

// Get returns the calibration of agent's model (provider/model, as configured), loading
// its saved state the first time. A state that cannot be read is logged and the
// calibration starts afresh: it only ever makes counts better than Estimate's.
func (cs *Calibrations) Get(ctx context.Context, agent, model string) *Calibration {
	k := calibrationKey{agent, model}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if c := cs.all[k]; c != nil {
		return c
	}
	c := NewCalibration()
	cs.all[k] = c
	if cs.store == nil {
		return c
	}
	state, err := cs.store.Calibration(ctx, agent, model)
	if err == nil && state != nil {
		err = c.UnmarshalJSON(state)
	}
	if err != nil {
		cs.log.Warn("token calibration not restored; it starts afresh", "agent", agent, "model", model, "err", err)
	}
	return c
}

// Run saves the calibrations that learned something every minute, and once more when
// ctx is done, then returns nil. Failures are logged: a lost calibration costs only
// precision until it is learned again.
func (cs *Calibrations) Run(ctx context.Context) error {
	tick := time.NewTicker(cs.every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			save, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			cs.Save(save)
			cancel()
			return nil
		case <-tick.C:
			cs.Save(ctx)
		}
	}
}

// Save saves every calibration that observed since it was last saved.
func (cs *Calibrations) Save(ctx context.Context) {
	if cs.store == nil {
		return
	}
	cs.mu.Lock()
	dirty := map[calibrationKey]*Calibration{}
	for k, c := range cs.all {
		if c.isDirty() {
			dirty[k] = c
		}
	}
	cs.mu.Unlock()
	for k, c := range dirty {
		state, err := c.MarshalJSON()
		if err == nil {
			err = cs.store.SaveCalibration(ctx, k.agent, k.model, state)
		}
		if err != nil {
			c.markDirty() // try again next time
			cs.log.Warn("saving token calibration", "agent", k.agent, "model", k.model, "err", err)
		}
	}
}
