package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mynah-ai/mynah"
)

// pgvector: when the database has the vector extension (or the server offers it and the
// connecting role may create it), every stored vector is also kept in a column of its type
// and NearestVectors ranks a scope in the server, so no instance holds a copy of an
// agent's vectors in memory. Without it the vectors stay bytea and are scored in Go
// (memory.Vectors), as on SQLite. The search is exact (no ANN index: an index needs one
// dimension per column, and each embedding model has its own).

// vectorSchemaQuery names the schema the vector extension is installed in, if it is.
const vectorSchemaQuery = `SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
	WHERE e.extname = 'vector'`

// vectorAvailableQuery reports whether the server offers the vector extension.
const vectorAvailableQuery = `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`

// enableVectors finds or creates the vector extension and gives the vectors table its
// column, under the migration lock; it records the extension's schema in db.vectorSchema,
// empty when the extension is not to be had (nothing is changed then). Rows stored
// without the column's value (before, or copied in by mynah store copy) get it here.
func (db *DB) enableVectors(ctx context.Context) error {
	var schema string
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, migrateLock); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, vectorSchemaQuery).Scan(&schema)
		if errors.Is(err, pgx.ErrNoRows) {
			var available bool
			if err := tx.QueryRow(ctx, vectorAvailableQuery).Scan(&available); err != nil {
				return err
			}
			if !available {
				return nil
			}
			// In public, not the store's schema: dropping a schema drops what lives in it,
			// and the extension is the database's, shared by every schema using it.
			if _, err := tx.Exec(ctx, `SAVEPOINT vector_ext`); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector SCHEMA public`); err != nil {
				var pe *pgconn.PgError
				if !errors.As(err, &pe) {
					return err
				}
				// Not allowed (the extension needs a superuser) or created by another database
				// user at this moment: score in Go, or find it next start.
				db.log("the vector extension is available but could not be created; vectors are scored in mynah", err)
				_, err = tx.Exec(ctx, `ROLLBACK TO SAVEPOINT vector_ext`)
				return err
			}
			err = tx.QueryRow(ctx, vectorSchemaQuery).Scan(&schema)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `ALTER TABLE vectors ADD COLUMN IF NOT EXISTS embedding `+pgx.Identifier{schema, "vector"}.Sanitize()); err != nil {
			return err
		}
		// The rows still to fill in, so that a start finds them without reading the table.
		_, err = tx.Exec(ctx, `CREATE INDEX IF NOT EXISTS vectors_unembedded ON vectors (id) WHERE embedding IS NULL`)
		return err
	})
	if err != nil {
		return fmt.Errorf("vector extension: %w", err)
	}
	db.vectorSchema = schema
	if schema == "" {
		return nil
	}
	db.insertEmbedded = `INSERT INTO vectors (model, hash, data, embedding) VALUES ($1, $2, $3, $4::` + db.vectorType() + `)
		ON CONFLICT (model, hash) DO UPDATE SET embedding = coalesce(vectors.embedding, excluded.embedding) RETURNING id`
	return db.backfillEmbeddings(ctx)
}

// backfillEmbeddings gives every stored vector its embedding column, a batch a statement.
func (db *DB) backfillEmbeddings(ctx context.Context) error {
	q := `UPDATE vectors SET embedding = $2::` + db.vectorType() + ` WHERE id = $1`
	for {
		rows, err := db.pool.Query(ctx, `SELECT id, data FROM vectors WHERE embedding IS NULL ORDER BY id LIMIT 500`)
		if err != nil {
			return fmt.Errorf("vector extension: %w", err)
		}
		b := &pgx.Batch{}
		for rows.Next() {
			var id int64
			var data []byte
			if err := rows.Scan(&id, &data); err != nil {
				rows.Close()
				return fmt.Errorf("vector extension: %w", err)
			}
			v, err := decodeVector(data)
			if err != nil {
				rows.Close()
				return fmt.Errorf("vector extension: vector %d: %w", id, err)
			}
			b.Queue(q, id, vectorText(v))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("vector extension: %w", err)
		}
		if b.Len() == 0 {
			return nil
		}
		if err := db.pool.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("vector extension: %w", err)
		}
	}
}

// vectorType is the extension's type, schema-qualified.
func (db *DB) vectorType() string { return pgx.Identifier{db.vectorSchema, "vector"}.Sanitize() }

// vectorText is v in the extension's text form, [1,2.5,-3].
func vectorText(v []float32) string {
	var b strings.Builder
	b.Grow(len(v) * 10)
	b.WriteByte('[')
	for i, f := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(f), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}

var _ mynah.VectorSearcher = (*DB)(nil)

// NearestVectors implements mynah.VectorSearcher: with the vector extension, the server
// ranks scope's vectors by cosine similarity to q (scope.After is ignored). Without it,
// ok is false and the caller scores the vectors itself.
func (db *DB) NearestVectors(ctx context.Context, scope mynah.VectorScope, q []float32, k int) ([]mynah.VectorHit, bool, error) {
	if db.vectorSchema == "" {
		return nil, false, nil
	}
	if k <= 0 || len(q) == 0 {
		return nil, true, nil
	}
	kind := scope.Kind
	if kind == "" {
		kind = mynah.VectorMessage
	}
	// <=> is the cosine distance; 1 - it is the similarity memory.Vectors computes.
	op := `OPERATOR(` + pgx.Identifier{db.vectorSchema}.Sanitize() + `.<=>)`
	where := `i.agent = $1 AND i.model = $2 AND i.kind = $3`
	args := []any{scope.Agent, scope.Model, string(kind), vectorText(q), k}
	if scope.Chat != 0 {
		where += ` AND i.chat_id = $6`
		args = append(args, int64(scope.Chat))
	}
	query := `SELECT i.chat_id, i.item_id, 1 - (v.embedding ` + op + ` $4::` + db.vectorType() + `) FROM vector_items i
		JOIN vectors v ON v.id = i.vector_id
		WHERE ` + where + ` AND v.embedding IS NOT NULL
		ORDER BY v.embedding ` + op + ` $4::` + db.vectorType() + `, i.seq LIMIT $5`
	rows, err := db.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, true, fail(ctx, err, "nearest vectors")
	}
	out, err := scanAll(rows, func(sc scanner) (mynah.VectorHit, error) {
		var h mynah.VectorHit
		var chat int64
		err := sc.Scan(&chat, &h.ID, &h.Score)
		h.Chat = mynah.ChatID(chat)
		return h, err
	})
	if err != nil {
		return nil, true, fail(ctx, err, "nearest vectors")
	}
	return out, true, nil
}
