package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

// The crew statements run rarely (once per member turn), except queryCrewPeers, which
// runs in every MarkSent; it reads the crew_members_agent index and finds nothing outside
// crews.
const (
	queryCrewState = `SELECT thread_id, version, cycle, active, round, next, closing, turn_id, outcome,
		target, asked, replied, spoke, passed, failed, ended, command, session, updated
		FROM crew_states WHERE crew = $1 AND chat_id = $2`
	queryCrewMembers = `SELECT agent, last_seen, turns FROM crew_members
		WHERE crew = $1 AND chat_id = $2 ORDER BY position`
	queryActiveCrews = `SELECT crew, chat_id FROM crew_states WHERE active ORDER BY crew, chat_id`
	// insertCrewState and updateCrewState are the compare-and-set: the first stores a state
	// only where none is (version 0), the second only over the version it was read at. A
	// concurrent writer of the same row waits for the first to commit and then matches
	// nothing, under PostgreSQL's default isolation.
	insertCrewState = `INSERT INTO crew_states (crew, chat_id, thread_id, version, cycle, active, round, next,
		closing, turn_id, outcome, target, asked, replied, spoke, passed, failed, ended, command, session, updated)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
		ON CONFLICT (crew, chat_id) DO NOTHING`
	updateCrewState = `UPDATE crew_states SET thread_id = $3, version = $4, cycle = $5, active = $6, round = $7,
		next = $8, closing = $9, turn_id = $10, outcome = $11, target = $12, asked = $13, replied = $14,
		spoke = $15, passed = $16, failed = $17, ended = $18, command = $19, session = $20, updated = $21
		WHERE crew = $1 AND chat_id = $2 AND version = $22`
	queryCrewVersion  = `SELECT version FROM crew_states WHERE crew = $1 AND chat_id = $2`
	deleteCrewMembers = `DELETE FROM crew_members WHERE crew = $1 AND chat_id = $2`
	insertCrewMember  = `INSERT INTO crew_members (crew, chat_id, agent, position, last_seen, turns)
		VALUES ($1, $2, $3, $4, $5, $6)`
	queryCrewTurn  = `SELECT done_at IS NOT NULL FROM turns WHERE id = $1`
	queryCrewParts = `SELECT count(*) FILTER (WHERE sent_at IS NULL AND failed_at IS NULL), count(sent_at)
		FROM outbox WHERE turn_id = $1`
	queryCrewPeers = `SELECT DISTINCT o.agent FROM crew_members m
		JOIN crew_members o ON o.crew = m.crew AND o.chat_id = m.chat_id
		WHERE m.agent = $1 AND m.chat_id = $2 AND o.agent <> m.agent ORDER BY o.agent`
	queryModelSession  = `SELECT session_id, seen, turns, started, used FROM model_sessions WHERE key = $1`
	upsertModelSession = `INSERT INTO model_sessions (key, session_id, seen, turns, started, used)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (key) DO UPDATE SET session_id = excluded.session_id, seen = excluded.seen,
			turns = excluded.turns, started = excluded.started, used = excluded.used`
)

// querier is what reading a crew's state needs: the pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// CrewState returns crew's state in chat, or a zero state (Version 0) when none is saved.
func (db *DB) CrewState(ctx context.Context, crew string, chat mynah.ChatID) (mynah.CrewState, error) {
	s, err := db.crewState(ctx, db.pool, crew, chat)
	if err != nil {
		return mynah.CrewState{}, fail(ctx, err, "crew %s in chat %d", crew, chat)
	}
	return s, nil
}

func (db *DB) crewState(ctx context.Context, q querier, crew string, chat mynah.ChatID) (mynah.CrewState, error) {
	s := mynah.CrewState{Crew: crew, Chat: chat}
	var (
		target, asked, replied int64
		command, session       int64
		spoke, passed, failed  string
		updated                sql.NullInt64
	)
	err := q.QueryRow(ctx, queryCrewState, crew, int64(chat)).Scan(&s.Thread, &s.Version, &s.Cycle, &s.Active,
		&s.Round, &s.Next, &s.Closing, &s.Turn, &s.Outcome, &target, &asked, &replied, &spoke, &passed, &failed,
		&s.Ended, &command, &session, &updated)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	s.Target, s.Asked, s.Replied = mynah.MessageID(target), mynah.MessageID(asked), mynah.MessageID(replied)
	s.Command, s.Session = mynah.MessageID(command), mynah.MessageID(session)
	s.Updated = storecodec.FromMillis(updated)
	for _, l := range []struct {
		raw string
		dst *[]string
	}{{spoke, &s.Spoke}, {passed, &s.Passed}, {failed, &s.Failed}} {
		if err := json.Unmarshal([]byte(l.raw), l.dst); err != nil {
			return s, fmt.Errorf("crew state: %w", err)
		}
	}
	rows, err := q.Query(ctx, queryCrewMembers, crew, int64(chat))
	if err != nil {
		return s, err
	}
	defer rows.Close()
	for rows.Next() {
		var m mynah.CrewMember
		var seen int64
		if err := rows.Scan(&m.Agent, &seen, &m.Turns); err != nil {
			return s, err
		}
		m.LastSeen = mynah.MessageID(seen)
		s.Members = append(s.Members, m)
	}
	return s, rows.Err()
}

// ActiveCrews returns the states with a cycle under way.
func (db *DB) ActiveCrews(ctx context.Context) ([]mynah.CrewState, error) {
	type key struct {
		crew string
		chat int64
	}
	var keys []key
	rows, err := db.pool.Query(ctx, queryActiveCrews)
	if err != nil {
		return nil, fail(ctx, err, "active crews")
	}
	for rows.Next() {
		var k key
		if err := rows.Scan(&k.crew, &k.chat); err != nil {
			rows.Close()
			return nil, fail(ctx, err, "active crews")
		}
		keys = append(keys, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, err, "active crews")
	}
	out := make([]mynah.CrewState, 0, len(keys))
	for _, k := range keys {
		s, err := db.crewState(ctx, db.pool, k.crew, mynah.ChatID(k.chat))
		if err != nil {
			return nil, fail(ctx, err, "active crews")
		}
		if s.Active { // it may have ended meanwhile
			out = append(out, s)
		}
	}
	return out, nil
}

// SaveCrew stores s over the version it was read at, queues queue and applies reset, in
// one transaction (see mynah.Crews). Two instances saving the same crew at once serialize
// on its row: the second finds the version moved and gets mynah.ErrConflict.
func (db *DB) SaveCrew(ctx context.Context, s mynah.CrewState, queue *mynah.Turn, reset mynah.MessageID) (mynah.CrewState, error) {
	if err := storecodec.CheckCrew(s); err != nil {
		return s, fmt.Errorf("postgres: save crew %s in chat %d: %w", s.Crew, s.Chat, err)
	}
	in := s
	var mine int64 // the queued turn's id when this instance runs it
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		s, mine = in, 0
		now := db.now()
		read := s.Version
		s.Version++
		s.Updated = storecodec.FromMillis(storecodec.Millis(storecodec.OrNow(s.Updated, db.now))) // as stored
		if queue != nil {
			t := *queue
			if t.Chat == 0 {
				t.Chat = s.Chat
			}
			// Queued as an incoming message's turn is (queueClaimed), in one round trip: the
			// crew engine runs it here (its answer's sends Hold the chat) unless another
			// instance holds the member's chat; then that one, told, runs it, and this one
			// must not too (a second model call, its answer refused).
			q, args, err := db.insertTurnArgs(t.Agent, t, false)
			if err != nil {
				return err
			}
			b := &pgx.Batch{}
			b.Queue(ensureChat, t.Agent, int64(t.Chat), "", "", "", false, now.UnixMilli())
			var id int64
			ours, err := db.queueClaimed(ctx, tx, b, q, args, t.Agent, t.Chat, &id)
			if err != nil {
				return err
			}
			if ours {
				mine = id
			}
			s.Turn = id
			s.Outcome = ""
		}
		lists := make([]string, 3)
		for i, l := range [][]string{s.Spoke, s.Passed, s.Failed} {
			b, err := json.Marshal(append([]string{}, l...))
			if err != nil {
				return err
			}
			lists[i] = string(b)
		}
		args := []any{s.Crew, int64(s.Chat), s.Thread, s.Version, s.Cycle, s.Active, s.Round, s.Next, s.Closing,
			s.Turn, s.Outcome, int64(s.Target), int64(s.Asked), int64(s.Replied), lists[0], lists[1], lists[2],
			s.Ended, int64(s.Command), int64(s.Session), s.Updated.UnixMilli()}
		query := insertCrewState
		if read != 0 {
			query, args = updateCrewState, append(args, read)
		}
		tag, err := tx.Exec(ctx, query, args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var stored int64
			if err := tx.QueryRow(ctx, queryCrewVersion, s.Crew, int64(s.Chat)).Scan(&stored); err != nil &&
				!errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			return fmt.Errorf("version %d, stored %d: %w", read, stored, mynah.ErrConflict)
		}
		if _, err := tx.Exec(ctx, deleteCrewMembers, s.Crew, int64(s.Chat)); err != nil {
			return err
		}
		for i, m := range s.Members {
			if _, err := tx.Exec(ctx, insertCrewMember, s.Crew, int64(s.Chat), m.Agent, i, int64(m.LastSeen), m.Turns); err != nil {
				return err
			}
		}
		if reset != 0 {
			for _, m := range s.Members {
				if _, err := tx.Exec(ctx, ensureChat, m.Agent, int64(s.Chat), "", "", "", false, now.UnixMilli()); err != nil {
					return err
				}
				if _, err := tx.Exec(ctx, insertSession, m.Agent, int64(s.Chat), s.Thread, int64(reset), now.UnixMilli()); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return mynah.CrewState{}, fail(ctx, err, "save crew %s in chat %d", in.Crew, in.Chat)
	}
	if queue != nil {
		queue.ID = mine
	}
	return s, nil
}

// CrewTurn reports whether turn turnID is done and how many of its parts wait.
func (db *DB) CrewTurn(ctx context.Context, turnID int64) (mynah.CrewTurn, error) {
	var t mynah.CrewTurn
	if err := db.pool.QueryRow(ctx, queryCrewTurn, turnID).Scan(&t.Done); err != nil {
		return t, fail(ctx, err, "turn %d", turnID)
	}
	if err := db.pool.QueryRow(ctx, queryCrewParts, turnID).Scan(&t.Pending, &t.Sent); err != nil {
		return t, fail(ctx, err, "parts of turn %d", turnID)
	}
	return t, nil
}

// ShareMessage stores m in the views of agents that lack it (see mynah.Crews).
func (db *DB) ShareMessage(ctx context.Context, agents []string, m mynah.Message) error {
	if m.Chat.ID == 0 || m.ID == 0 {
		return fmt.Errorf("postgres: share message %d: no chat or id", m.ID)
	}
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		v := m
		v.Outgoing = false
		return db.shareTx(ctx, tx, agents, &v, false)
	})
	if err != nil {
		return fail(ctx, err, "share message %d of chat %d", m.ID, m.Chat.ID)
	}
	return nil
}

// shareTx stores m, or its edit, in each of agents' views.
func (db *DB) shareTx(ctx context.Context, tx pgx.Tx, agents []string, m *mynah.Message, edit bool) error {
	c := m.Chat
	for _, a := range agents {
		if _, err := tx.Exec(ctx, ensureChat, a, int64(c.ID), string(c.Type), c.Title, c.Username,
			c.IsForum, db.now().UnixMilli()); err != nil {
			return err
		}
		v := *m
		v.Agent = a
		var err error
		if edit {
			err = db.editMessage(ctx, tx, a, c.ID, &v)
		} else {
			_, err = db.storeMessage(ctx, tx, a, c.ID, &v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// shareSent records m, which agent just sent, in the views of its crew peers in m's
// chat: part of MarkSent's transaction.
func (db *DB) shareSent(ctx context.Context, tx pgx.Tx, agent string, m *mynah.Message) error {
	rows, err := tx.Query(ctx, queryCrewPeers, agent, int64(m.Chat.ID))
	if err != nil {
		return err
	}
	peers, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(peers) == 0 {
		return err
	}
	v := *m
	v.Outgoing = false
	return db.shareTx(ctx, tx, peers, &v, !m.Edited.IsZero())
}

// ModelSession returns the model session of key, or an error wrapping mynah.ErrNotFound.
func (db *DB) ModelSession(ctx context.Context, key string) (mynah.ModelSession, error) {
	s := mynah.ModelSession{Key: key}
	var seen int64
	var started, used sql.NullInt64
	err := db.pool.QueryRow(ctx, queryModelSession, key).Scan(&s.ID, &seen, &s.Turns, &started, &used)
	if err != nil {
		return mynah.ModelSession{}, fail(ctx, err, "model session %q", key)
	}
	s.Seen, s.Started, s.Used = mynah.MessageID(seen), storecodec.FromMillis(started), storecodec.FromMillis(used)
	return s, nil
}

// SaveModelSession stores s, replacing the session of its key.
func (db *DB) SaveModelSession(ctx context.Context, s mynah.ModelSession) error {
	if s.Key == "" {
		return errors.New("postgres: save model session: no key")
	}
	_, err := db.pool.Exec(ctx, upsertModelSession, s.Key, s.ID, int64(s.Seen), s.Turns,
		storecodec.Millis(s.Started).Int64, storecodec.Millis(s.Used).Int64)
	if err != nil {
		return fail(ctx, err, "save model session %q", s.Key)
	}
	return nil
}
