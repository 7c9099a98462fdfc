package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

const (
	queryCalibration  = `SELECT state FROM token_calibration WHERE agent = $1 AND model = $2`
	upsertCalibration = `INSERT INTO token_calibration (agent, model, state, updated) VALUES ($1, $2, $3, $4)
		ON CONFLICT (agent, model) DO UPDATE SET state = excluded.state, updated = excluded.updated`
)

// Calibration returns the token calibration state saved for agent's model, nil when
// none is (tokens.Store).
func (db *DB) Calibration(ctx context.Context, agent, model string) ([]byte, error) {
	var state string
	err := db.pool.QueryRow(ctx, queryCalibration, agent, model).Scan(&state)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fail(ctx, err, "token calibration of %s, %s", agent, model)
	}
	return []byte(state), nil
}

// SaveCalibration replaces the token calibration state saved for agent's model
// (tokens.Store).
func (db *DB) SaveCalibration(ctx context.Context, agent, model string, state []byte) error {
	if _, err := db.pool.Exec(ctx, upsertCalibration, agent, model, string(state), db.now().UnixMilli()); err != nil {
		return fail(ctx, err, "save token calibration of %s, %s", agent, model)
	}
	return nil
}
