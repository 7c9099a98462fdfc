package postgres

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

// vectorLookback is how far behind its cursor PendingVectors looks again for messages of
// the agent that have no vector: with several writers a message's seq is drawn when it is
// stored but becomes visible when its transaction commits, so a message may appear behind
// a cursor that has already moved past its number. A few seconds of traffic suffices.
const vectorLookback = 1000

const (
	queryVectorProgress = `SELECT coalesce((SELECT last_seq FROM vector_progress WHERE agent = $1 AND model = $2), 0)`
	// queryVectorPending reads the agent's own messages just behind the cursor that still
	// lack a vector, then the messages of every agent after the cursor, so that the cursor
	// moves past other agents' messages too. PendingVectors keeps its agent's.
	queryVectorPending = `(SELECT m.seq, m.agent, m.chat_id, m.message_id, m.time, m.text FROM messages m
			WHERE m.seq <= $1 AND m.seq > $1 - $4 AND m.agent = $2 AND m.text <> ''
				AND NOT EXISTS (SELECT 1 FROM vector_items i WHERE i.agent = m.agent AND i.model = $3
					AND i.kind = 'message' AND i.chat_id = m.chat_id AND i.item_id = m.message_id)
			ORDER BY m.seq LIMIT $5)
		UNION ALL
		(SELECT m.seq, m.agent, m.chat_id, m.message_id, m.time, m.text FROM messages m
			WHERE m.seq > $1 ORDER BY m.seq LIMIT $5)`
	queryVectorByHash = `SELECT data FROM vectors WHERE model = $1 AND hash = $2`
	insertVector      = `INSERT INTO vectors (model, hash, data) VALUES ($1, $2, $3)
		ON CONFLICT (model, hash) DO UPDATE SET model = excluded.model RETURNING id`
	// A vector saved again replaces the item's and takes a new seq, so caches reload it.
	insertVectorItem = `INSERT INTO vector_items (agent, model, kind, chat_id, item_id, time, vector_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (agent, model, kind, chat_id, item_id) DO UPDATE SET time = excluded.time,
			vector_id = excluded.vector_id, seq = nextval(pg_get_serial_sequence('vector_items', 'seq'))`
	setVectorProgress = `INSERT INTO vector_progress AS p (agent, model, last_seq) VALUES ($1, $2, $3)
		ON CONFLICT (agent, model) DO UPDATE SET last_seq = greatest(p.last_seq, excluded.last_seq)`
	queryVectorsChat = `SELECT i.seq, i.chat_id, i.item_id, i.time, v.data FROM vector_items i
		JOIN vectors v ON v.id = i.vector_id
		WHERE i.agent = $1 AND i.model = $2 AND i.kind = $3 AND i.chat_id = $4 AND i.seq > $5 ORDER BY i.seq`
	queryVectorsAgent = `SELECT i.seq, i.chat_id, i.item_id, i.time, v.data FROM vector_items i
		JOIN vectors v ON v.id = i.vector_id
		WHERE i.agent = $1 AND i.model = $2 AND i.kind = $3 AND i.seq > $4 ORDER BY i.seq`
)

var _ mynah.VectorStore = (*DB)(nil)

// PendingVectors implements mynah.VectorStore. It reads at most limit messages (of any
// agent) after agent's cursor for model, so a call costs the same however long the
// history is.
func (db *DB) PendingVectors(ctx context.Context, agent, model string, limit int) ([]mynah.VectorItem, mynah.VectorCursor, error) {
	if limit <= 0 {
		limit = 64
	}
	var cursor int64
	if err := db.pool.QueryRow(ctx, queryVectorProgress, agent, model).Scan(&cursor); err != nil {
		return nil, 0, fail(ctx, err, "vector progress")
	}
	rows, err := db.pool.Query(ctx, queryVectorPending, cursor, agent, model, vectorLookback, limit)
	if err != nil {
		return nil, 0, fail(ctx, err, "pending vectors")
	}
	type row struct {
		seq   int64
		agent string
		item  mynah.VectorItem
	}
	var read []row
	for rows.Next() {
		var r row
		var chat, ms int64
		if err := rows.Scan(&r.seq, &r.agent, &chat, &r.item.ID, &ms, &r.item.Text); err != nil {
			rows.Close()
			return nil, 0, fail(ctx, err, "pending vectors")
		}
		r.item.Kind, r.item.Chat = mynah.VectorMessage, mynah.ChatID(chat)
		r.item.Time = storecodec.FromMillis(sql.NullInt64{Int64: ms, Valid: true})
		read = append(read, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, fail(ctx, err, "pending vectors")
	}
	through := cursor
	var items []mynah.VectorItem
	for _, r := range read {
		want := r.agent == agent && strings.TrimSpace(r.item.Text) != ""
		if want && len(items) == limit {
			break
		}
		if want {
			items = append(items, r.item)
		}
		through = max(through, r.seq)
	}
	for i := range items {
		h := textHash(items[i].Text)
		var data []byte
		switch err := db.pool.QueryRow(ctx, queryVectorByHash, model, h[:]).Scan(&data); {
		case errors.Is(err, pgx.ErrNoRows):
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
			return fmt.Errorf("postgres: save vectors: item %d (%s %d/%d) has no text or no vector", i, it.Kind, it.Chat, it.ID)
		}
	}
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		for _, it := range items {
			h := textHash(it.Text)
			var id int64
			var err error
			if db.vectorSchema != "" {
				err = tx.QueryRow(ctx, db.insertEmbedded, model, h[:], encodeVector(it.Vector), vectorText(it.Vector)).Scan(&id)
			} else {
				err = tx.QueryRow(ctx, insertVector, model, h[:], encodeVector(it.Vector)).Scan(&id)
			}
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, insertVectorItem, agent, model, string(it.Kind), int64(it.Chat), it.ID,
				storecodec.Millis(it.Time).Int64, id); err != nil {
				return err
			}
		}
		if through > 0 {
			_, err := tx.Exec(ctx, setVectorProgress, agent, model, int64(through))
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
	var rows pgx.Rows
	var err error
	if s.Chat != 0 {
		rows, err = db.pool.Query(ctx, queryVectorsChat, s.Agent, s.Model, string(kind), int64(s.Chat), s.After)
	} else {
		rows, err = db.pool.Query(ctx, queryVectorsAgent, s.Agent, s.Model, string(kind), s.After)
	}
	if err != nil {
		return nil, fail(ctx, err, "load vectors")
	}
	out, err := scanAll(rows, func(sc scanner) (mynah.StoredVector, error) {
		v := mynah.StoredVector{VectorItem: mynah.VectorItem{Kind: kind}}
		var ms, chat int64
		var data []byte
		if err := sc.Scan(&v.Seq, &chat, &v.ID, &ms, &data); err != nil {
			return v, err
		}
		v.Chat, v.Time = mynah.ChatID(chat), storecodec.FromMillis(sql.NullInt64{Int64: ms, Valid: true})
		var err error
		v.Vector, err = decodeVector(data)
		return v, err
	})
	if err != nil {
		return nil, fail(ctx, err, "load vectors")
	}
	return out, nil
}

func textHash(text string) [32]byte { return sha256.Sum256([]byte(text)) }

// encodeVector is v as float32 little-endian, as the SQLite store keeps it.
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
