package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

// The crew statements run rarely (once per member turn), except shareSent, which runs in
// every MarkSent; it reads the crew_members_agent index and finds nothing outside crews.
const (
	queryCrewState = `SELECT thread_id, version, cycle, active, round, next, closing, turn_id, outcome,
		target, asked, replied, spoke, passed, failed, ended, command, session, updated
		FROM crew_states WHERE crew = ? AND chat_id = ?`
	queryCrewMembers = `SELECT agent, last_seen, turns FROM crew_members
		WHERE crew = ? AND chat_id = ? ORDER BY position`
	queryActiveCrews = `SELECT crew, chat_id FROM crew_states WHERE active = 1 ORDER BY crew, chat_id`
	queryCrewVersion = `SELECT version FROM crew_states WHERE crew = ? AND chat_id = ?`
	upsertCrewState  = `INSERT INTO crew_states (crew, chat_id, thread_id, version, cycle, active, round, next,
		closing, turn_id, outcome, target, asked, replied, spoke, passed, failed, ended, command, session, updated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (crew, chat_id) DO UPDATE SET thread_id = excluded.thread_id, version = excluded.version,
			cycle = excluded.cycle, active = excluded.active, round = excluded.round, next = excluded.next,
			closing = excluded.closing, turn_id = excluded.turn_id, outcome = excluded.outcome,
			target = excluded.target, asked = excluded.asked, replied = excluded.replied, spoke = excluded.spoke,
			passed = excluded.passed, failed = excluded.failed, ended = excluded.ended,
			command = excluded.command, session = excluded.session, updated = excluded.updated`
	deleteCrewMembers = `DELETE FROM crew_members WHERE crew = ? AND chat_id = ?`
	insertCrewMember  = `INSERT INTO crew_members (crew, chat_id, agent, position, last_seen, turns)
		VALUES (?, ?, ?, ?, ?, ?)`
	queryLastRowID = `SELECT last_insert_rowid()`
	queryCrewTurn  = `SELECT done_at IS NOT NULL FROM turns WHERE id = ?`
	queryCrewParts = `SELECT count(*) FILTER (WHERE sent_at IS NULL AND failed_at IS NULL), count(sent_at) FROM outbox WHERE turn_id = ?`
	queryCrewPeers = `SELECT DISTINCT o.agent FROM crew_members m JOIN crew_members o ON o.crew = m.crew AND o.chat_id = m.chat_id
		WHERE m.agent = ? AND m.chat_id = ? AND o.agent <> m.agent ORDER BY o.agent`
	queryModelSession  = `SELECT session_id, seen, turns, started, used FROM model_sessions WHERE key = ?`
	upsertModelSession = `INSERT INTO model_sessions (key, session_id, seen, turns, started, used) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET session_id = excluded.session_id, seen = excluded.seen,
			turns = excluded.turns, started = excluded.started, used = excluded.used`
)

// CrewState returns crew's state in chat, or a zero state (Version 0) when none is saved.
func (db *DB) CrewState(ctx context.Context, crew string, chat mynah.ChatID) (mynah.CrewState, error) {
	s, err := db.crewState(ctx, db.read, crew, chat)
	if err != nil {
		return mynah.CrewState{}, fail(ctx, err, "crew %s in chat %d", crew, chat)
	}
	return s, nil
}

// querier is what reading a crew's state needs: the reader pool or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (db *DB) crewState(ctx context.Context, q querier, crew string, chat mynah.ChatID) (mynah.CrewState, error) {
	s := mynah.CrewState{Crew: crew, Chat: chat}
	var (
		active, closing       bool
		turn, target, replied int64
		asked                 int64
		command, session      int64
		spoke, passed, failed string
		updated               sql.NullInt64
	)
	err := q.QueryRowContext(ctx, queryCrewState, crew, int64(chat)).Scan(&s.Thread, &s.Version, &s.Cycle, &active,
		&s.Round, &s.Next, &closing, &turn, &s.Outcome, &target, &asked, &replied, &spoke, &passed, &failed, &s.Ended,
		&command, &session, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	s.Active, s.Closing, s.Turn = active, closing, turn
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
	rows, err := q.QueryContext(ctx, queryCrewMembers, crew, int64(chat))
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
	rows, err := db.read.QueryContext(ctx, queryActiveCrews)
	if err != nil {
		return nil, fail(ctx, err, "active crews")
	}
	type key struct {
		crew string
		chat int64
	}
	var keys []key
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
		s, err := db.crewState(ctx, db.read, k.crew, mynah.ChatID(k.chat))
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
// one transaction (see mynah.Crews).
func (db *DB) SaveCrew(ctx context.Context, s mynah.CrewState, queue *mynah.Turn, reset mynah.MessageID) (mynah.CrewState, error) {
	if err := storecodec.CheckCrew(s); err != nil {
		return s, fmt.Errorf("sqlite: save crew %s in chat %d: %w", s.Crew, s.Chat, err)
	}
	var queued int64
	err := db.inTx(ctx, func(tx *txn) error {
		var stored int64
		err := tx.QueryRowContext(ctx, queryCrewVersion, s.Crew, int64(s.Chat)).Scan(&stored)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if stored != s.Version {
			return fmt.Errorf("version %d, stored %d: %w", s.Version, stored, mynah.ErrConflict)
		}
		now := db.now()
		s.Version++
		s.Updated = storecodec.FromMillis(storecodec.Millis(storecodec.OrNow(s.Updated, db.now))) // as stored
		if queue != nil {
			t := *queue
			if t.Chat == 0 {
				t.Chat = s.Chat
			}
			if _, err := tx.exec(ctx, db.stmts.ensureChat, t.Agent, int64(t.Chat), "", "", "", 0, now.UnixMilli()); err != nil {
				return err
			}
			id, err := db.insertTurnTx(ctx, tx, t.Agent, t)
			if err != nil {
				return err
			}
			s.Turn, queued = id, id
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
		if _, err := tx.ExecContext(ctx, upsertCrewState, s.Crew, int64(s.Chat), s.Thread, s.Version, s.Cycle,
			boolInt(s.Active), s.Round, s.Next, boolInt(s.Closing), s.Turn, s.Outcome, int64(s.Target), int64(s.Asked), int64(s.Replied),
			lists[0], lists[1], lists[2], s.Ended, int64(s.Command), int64(s.Session), s.Updated.UnixMilli()); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, deleteCrewMembers, s.Crew, int64(s.Chat)); err != nil {
			return err
		}
		for i, m := range s.Members {
			if _, err := tx.ExecContext(ctx, insertCrewMember, s.Crew, int64(s.Chat), m.Agent, i, int64(m.LastSeen), m.Turns); err != nil {
				return err
			}
		}
		if reset != 0 {
			for _, m := range s.Members {
				if _, err := tx.exec(ctx, db.stmts.ensureChat, m.Agent, int64(s.Chat), "", "", "", 0, now.UnixMilli()); err != nil {
					return err
				}
				if _, err := tx.exec(ctx, db.stmts.insertSession, m.Agent, int64(s.Chat), s.Thread, int64(reset), now.UnixMilli()); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return mynah.CrewState{}, fail(ctx, err, "save crew %s in chat %d", s.Crew, s.Chat)
	}
	if queue != nil {
		queue.ID = queued // one instance: it runs every turn it queues
	}
	return s, nil
}

// CrewTurn reports whether turn turnID is done and how many of its parts wait.
func (db *DB) CrewTurn(ctx context.Context, turnID int64) (mynah.CrewTurn, error) {
	var t mynah.CrewTurn
	if err := db.read.QueryRowContext(ctx, queryCrewTurn, turnID).Scan(&t.Done); err != nil {
		return t, fail(ctx, err, "turn %d", turnID)
	}
	if err := db.read.QueryRowContext(ctx, queryCrewParts, turnID).Scan(&t.Pending, &t.Sent); err != nil {
		return t, fail(ctx, err, "parts of turn %d", turnID)
	}
	return t, nil
}

// ShareMessage stores m in the views of agents that lack it (see mynah.Crews).
func (db *DB) ShareMessage(ctx context.Context, agents []string, m mynah.Message) error {
	if m.Chat.ID == 0 || m.ID == 0 {
		return fmt.Errorf("sqlite: share message %d: no chat or id", m.ID)
	}
	err := db.inTx(ctx, func(tx *txn) error {
		m.Outgoing = false
		return db.shareTx(ctx, tx, agents, &m, false)
	})
	if err != nil {
		return fail(ctx, err, "share message %d of chat %d", m.ID, m.Chat.ID)
	}
	return nil
}

// shareTx stores m, or its edit, in each of agents' views.
func (db *DB) shareTx(ctx context.Context, tx *txn, agents []string, m *mynah.Message, edit bool) error {
	c := m.Chat
	for _, a := range agents {
		if _, err := tx.exec(ctx, db.stmts.ensureChat, a, int64(c.ID), string(c.Type), c.Title, c.Username,
			boolInt(c.IsForum), db.now().UnixMilli()); err != nil {
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
func (db *DB) shareSent(ctx context.Context, tx *txn, agent string, m *mynah.Message) error {
	rows, err := tx.query(ctx, db.stmts.crewPeers, agent, int64(m.Chat.ID))
	if err != nil {
		return err
	}
	var peers []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return err
		}
		peers = append(peers, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(peers) == 0 {
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
	err := db.read.QueryRowContext(ctx, queryModelSession, key).Scan(&s.ID, &seen, &s.Turns, &started, &used)
	if err != nil {
		return mynah.ModelSession{}, fail(ctx, err, "model session %q", key)
	}
	s.Seen, s.Started, s.Used = mynah.MessageID(seen), storecodec.FromMillis(started), storecodec.FromMillis(used)
	return s, nil
}

// SaveModelSession stores s, replacing the session of its key.
func (db *DB) SaveModelSession(ctx context.Context, s mynah.ModelSession) error {
	if s.Key == "" {
		return errors.New("sqlite: save model session: no key")
	}
	err := db.inTx(ctx, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, upsertModelSession, s.Key, s.ID, int64(s.Seen), s.Turns,
			storecodec.Millis(s.Started).Int64, storecodec.Millis(s.Used).Int64)
		return err
	})
	if err != nil {
		return fail(ctx, err, "save model session %q", s.Key)
	}
	return nil
}
