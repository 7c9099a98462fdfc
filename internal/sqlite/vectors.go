package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

const (
	queryVectorProgress = `SELECT coalesce((SELECT last_rowid FROM vector_progress WHERE agent = ? AND model = ?), 0)`
	// queryVectorPending reads the messages of every agent after the cursor, so that the
	// cursor moves past other agents' messages too; PendingVectors keeps its agent's.
	queryVectorPending = `SELECT rowid, agent, chat_id, message_id, time, text FROM messages
		WHERE rowid > ? ORDER BY rowid LIMIT +?`
	queryVectorByHash = `SELECT data FROM vectors WHERE model = ? AND hash = ?`
	insertVector      = `INSERT INTO vectors (model, hash, data) VALUES (?, ?, ?)
		ON CONFLICT (model, hash) DO UPDATE SET model = model RETURNING id`
	insertVectorItem = `INSERT OR REPLACE INTO vector_items (agent, model, kind, chat_id, item_id, time, vector_id)
		VALUES (?, ?, ?, ?, ?, ?, ?)`
	setVectorProgress = `INSERT INTO vector_progress (agent, model, last_rowid) VALUES (?, ?, ?)
		ON CONFLICT (agent, model) DO UPDATE SET last_rowid = max(last_rowid, excluded.last_rowid)`
	queryVectorsChat = `SELECT i.seq, i.chat_id, i.item_id, i.time, v.data FROM vector_items i
		JOIN vectors v ON v.id = i.vector_id
		WHERE i.agent = ? AND i.model = ? AND i.kind = ? AND i.chat_id = ? AND i.seq > ? ORDER BY i.seq`
	queryVectorsAgent = `SELECT i.seq, i.chat_id, i.item_id, i.time, v.data FROM vector_items i
		JOIN vectors v ON v.id = i.vector_id
		WHERE i.agent = ? AND i.model = ? AND i.kind = ? AND i.seq > ? ORDER BY i.seq`
)

var _ mynah.VectorStore = (*DB)(nil)

// PendingVectors implements mynah.VectorStore. It reads at most limit messages (of any
// agent) after agent's cursor for model, so a call costs the same however long the
// history is; an agent whose messages are sparse among others' may get few items and a
// cursor that moved on.
func (db *DB) PendingVectors(ctx context.Context, agent, model string, limit int) ([]mynah.VectorItem, mynah.VectorCursor, error) {
	if limit <= 0 {
		limit = 64
	}
	var through int64
	if err := db.stmts.vectorProgress.QueryRowContext(ctx, agent, model).Scan(&through); err != nil {
		return nil, 0, fail(ctx, err, "vector progress")
	}
	rows, err := db.stmts.vectorPending.QueryContext(ctx, through, limit)
	if err != nil {
		return nil, 0, fail(ctx, err, "pending vectors")
	}
	var items []mynah.VectorItem
	for rows.Next() {
		var it mynah.VectorItem
		var a string
		var ms int64
		if err := rows.Scan(&through, &a, &it.Chat, &it.ID, &ms, &it.Text); err != nil {
			rows.Close()
			return nil, 0, fail(ctx, err, "pending vectors")
		}
		if a != agent || strings.TrimSpace(it.Text) == "" {
			continue
		}
		it.Kind, it.Time = mynah.VectorMessage, storecodec.FromMillis(sql.NullInt64{Int64: ms, Valid: true})
		items = append(items, it)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, 0, fail(ctx, err, "pending vectors")
	}
	for i := range items {
		h := textHash(items[i].Text)
		var data []byte
		switch err := db.stmts.vectorByHash.QueryRowContext(ctx, model, h[:]).Scan(&data); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, 0, fail(ctx, err, "cached vector")
		default:
			if items[i].Vector, err = decodeVector(data); err != nil {
				return nil, 0, fail(ctx, err, "cached vector")
			}
		}
	}
	return items, mynah.VectorCursor(through), nil
}

// SaveVectors implements mynah.VectorStore. Every item needs its Text (the vector is
// keyed by its hash) and a Vector.
func (db *DB) SaveVectors(ctx context.Context, agent, model string, items []mynah.VectorItem, through mynah.VectorCursor) error {
	for i, it := range items {
		if len(it.Vector) == 0 || it.Text == "" {
			return fmt.Errorf("sqlite: save vectors: item %d (%s %d/%d) has no text or no vector", i, it.Kind, it.Chat, it.ID)
		}
	}
	err := db.inTx(ctx, func(tx *txn) error {
		for _, it := range items {
			h := textHash(it.Text)
			var id int64
			if err := tx.queryRow(ctx, db.stmts.insertVector, model, h[:], encodeVector(it.Vector)).Scan(&id); err != nil {
				return err
			}
			if _, err := tx.exec(ctx, db.stmts.insertVectorItem, agent, model, string(it.Kind), int64(it.Chat), it.ID,
				storecodec.Millis(it.Time).Int64, id); err != nil {
				return err
			}
		}
		if through > 0 {
			_, err := tx.exec(ctx, db.stmts.setVectorProgress, agent, model, int64(through))
			return err
		}
		return nil
	})
	if err != nil {
		return fail(ctx, err, "save vectors")
	}
	return nil
}

// LoadVectors implements mynah.VectorStore.
func (db *DB) LoadVectors(ctx context.Context, s mynah.VectorScope) ([]mynah.StoredVector, error) {
	kind := s.Kind
	if kind == "" {
		kind = mynah.VectorMessage
	}
	var rows *sql.Rows
	var err error
	if s.Chat != 0 {
		rows, err = db.stmts.vectorsChat.QueryContext(ctx, s.Agent, s.Model, string(kind), int64(s.Chat), s.After)
	} else {
		rows, err = db.stmts.vectorsAgent.QueryContext(ctx, s.Agent, s.Model, string(kind), s.After)
	}
	if err != nil {
		return nil, fail(ctx, err, "load vectors")
	}
	defer rows.Close()
	var out []mynah.StoredVector
	for rows.Next() {
		v := mynah.StoredVector{VectorItem: mynah.VectorItem{Kind: kind}}
		var ms int64
		var data []byte
		if err := rows.Scan(&v.Seq, &v.Chat, &v.ID, &ms, &data); err != nil {
			return nil, fail(ctx, err, "load vectors")
		}
		v.Time = storecodec.FromMillis(sql.NullInt64{Int64: ms, Valid: true})
		if v.Vector, err = decodeVector(data); err != nil {
			return nil, fail(ctx, err, "load vectors")
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, err, "load vectors")
	}
	return out, nil
}

func textHash(text string) [32]byte { return sha256.Sum256([]byte(text)) }

// encodeVector is v as float32 little-endian.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("vector of %d bytes is not float32s", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}
