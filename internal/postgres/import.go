package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
)

// insertUserIfNew records a user seen only in an import; a known user keeps the names live
// traffic gave, which are newer than any archive.
const insertUserIfNew = `INSERT INTO users (agent, user_id, first_name, last_name, username, is_bot, updated_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (agent, user_id) DO NOTHING`

var _ mynah.HistoryImport = (*DB)(nil)

// ImportMessages stores msgs as agent's messages in chat in one transaction, through the
// path live messages take (so the history index, summaries and recall see them like any
// other), and returns how many were new. Stored messages are kept as they are; an unknown
// chat or sender is recorded, a known one left alone. An invalid message (id ≤ 0, another
// chat) fails the whole call before anything is written. Imported messages do not join
// the media queue.
func (db *DB) ImportMessages(ctx context.Context, agent string, chat mynah.Chat, msgs []mynah.Message) (int, error) {
	switch {
	case agent == "":
		return 0, fmt.Errorf("postgres: import: no agent")
	case chat.ID == 0:
		return 0, fmt.Errorf("postgres: import into %s: no chat", agent)
	}
	for i := range msgs {
		m := &msgs[i]
		if m.ID <= 0 {
			return 0, fmt.Errorf("postgres: import into chat %d of %s: message id %d is not positive", chat.ID, agent, m.ID)
		}
		if m.Chat.ID != 0 && m.Chat.ID != chat.ID {
			return 0, fmt.Errorf("postgres: import into chat %d of %s: message %d belongs to chat %d", chat.ID, agent, m.ID, m.Chat.ID)
		}
	}
	added := 0
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		added = 0
		if err := durable(ctx, tx); err != nil {
			return err
		}
		now := db.now().UnixMilli()
		if _, err := tx.Exec(ctx, ensureChat, agent, int64(chat.ID), string(chat.Type), chat.Title,
			chat.Username, chat.IsForum, now); err != nil {
			return err
		}
		// Users and messages go to the server in one batch, and the new messages are
		// indexed together: an import of thousands of messages costs a few round trips.
		batch := &pgx.Batch{}
		seen := map[mynah.UserID]bool{}
		for i := range msgs {
			if u := msgs[i].Sender; u.ID != 0 && !seen[u.ID] {
				seen[u.ID] = true
				batch.Queue(insertUserIfNew, agent, int64(u.ID), u.FirstName, u.LastName, u.Username, u.IsBot, now)
			}
		}
		users := batch.Len()
		for i := range msgs {
			args, err := db.messageArgs(agent, chat.ID, &msgs[i])
			if err != nil {
				return fmt.Errorf("message %d: %w", msgs[i].ID, err)
			}
			batch.Queue(insertMessage, args...)
		}
		results := tx.SendBatch(ctx, batch)
		var fresh []int64
		for i := range batch.Len() {
			tag, err := results.Exec()
			if err != nil {
				results.Close()
				if i >= users {
					return fmt.Errorf("message %d: %w", msgs[i-users].ID, err)
				}
				return err
			}
			if i >= users && tag.RowsAffected() > 0 {
				fresh = append(fresh, int64(msgs[i-users].ID))
			}
		}
		if err := results.Close(); err != nil {
			return err
		}
		added = len(fresh)
		for ids := range slices.Chunk(fresh, 1000) {
			if err := db.indexMessages(ctx, tx, agent, chat.ID, ids); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fail(ctx, err, "import into chat %d of %s", chat.ID, agent)
	}
	return added, nil
}
