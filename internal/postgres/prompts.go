package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

const (
	upsertPrompt = `INSERT INTO prompts (agent, turn_id, chat_id, model, composition,
			input_tokens, output_tokens, cached_tokens, time)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (agent, turn_id) DO UPDATE SET chat_id = excluded.chat_id, model = excluded.model,
			composition = excluded.composition, input_tokens = excluded.input_tokens,
			output_tokens = excluded.output_tokens, cached_tokens = excluded.cached_tokens, time = excluded.time`
	// queryPromptForReply takes the turn of the newest sent part (outbox_sent index), then
	// that turn's record by primary key.
	queryPromptForReply = `SELECT turn_id, chat_id, model, composition, input_tokens, output_tokens, cached_tokens, time
		FROM prompts WHERE agent = $1 AND turn_id = (
			SELECT turn_id FROM outbox WHERE agent = $1 AND tg_message_id = $2 AND ($3 = 0 OR chat_id = $3)
			ORDER BY id DESC LIMIT 1)`
)

// RecordPrompt stores rec, replacing the record of the same agent and turn. Composition is
// kept byte for byte (as text: it is the prompt package's JSON); of Usage only the token
// counts are kept. A zero Time means now. Agent and Turn are required.
func (db *DB) RecordPrompt(ctx context.Context, rec mynah.PromptRecord) error {
	if rec.Agent == "" || rec.Turn == 0 {
		return fmt.Errorf("postgres: record prompt: want an agent and a turn, have %q and %d", rec.Agent, rec.Turn)
	}
	u := rec.Usage
	_, err := db.pool.Exec(ctx, upsertPrompt, rec.Agent, rec.Turn, int64(rec.Chat), rec.Model,
		string(rec.Composition), u.InputTokens, u.OutputTokens, u.CachedTokens, storecodec.OrNow(rec.Time, db.now).UnixMilli())
	if err != nil {
		return fail(ctx, err, "record prompt of turn %d of %s", rec.Turn, rec.Agent)
	}
	return nil
}

// PromptForReply returns the record of the turn whose part agent delivered as Telegram
// message reply in chat (chat 0: in any chat; the most recently enqueued part wins).
func (db *DB) PromptForReply(ctx context.Context, agent string, chat mynah.ChatID, reply mynah.MessageID) (mynah.PromptRecord, error) {
	rec := mynah.PromptRecord{Agent: agent}
	var (
		recChat     int64
		composition string
		at          sql.NullInt64
		u           = &rec.Usage
	)
	err := db.pool.QueryRow(ctx, queryPromptForReply, agent, int64(reply), int64(chat)).Scan(&rec.Turn, &recChat,
		&rec.Model, &composition, &u.InputTokens, &u.OutputTokens, &u.CachedTokens, &at)
	if err != nil {
		return mynah.PromptRecord{}, fail(ctx, err, "prompt for reply %d in chat %d of %s", reply, chat, agent)
	}
	rec.Chat, rec.Composition, rec.Time = mynah.ChatID(recChat), []byte(composition), storecodec.FromMillis(at)
	u.Agent, u.Chat, u.Model, u.Time = agent, rec.Chat, rec.Model, rec.Time
	return rec, nil
}
