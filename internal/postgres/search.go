package postgres

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/stem"
	"github.com/mynah-ai/mynah/internal/storecodec"
	"github.com/mynah-ai/mynah/internal/termcount"
)

const (
	// queryIndexSource reads what the index entries of messages of a chat hold: each
	// message, and the text of the message before it in the chat (what it answers, when it
	// replies to nothing). Binds agent, chat, ids.
	queryIndexSource = `SELECT m.message_id, m.seq, m.sender_id, m.sender_first_name, m.sender_last_name, m.sender_username,
			m.time, m.text, m.media, m.reply_to, ` + previousHead +
		`p.agent = m.agent AND p.chat_id = m.chat_id AND p.message_id < m.message_id` + previousTail + `
		FROM messages m WHERE m.agent = $1 AND m.chat_id = $2 AND m.message_id = ANY($3::bigint[])`
	// upsertSearchDocs writes entries of a chat and keeps the chat's counts of entries and
	// tokens. Binds agent, chat, then the entries' ids, senders, seqs, docs and lengths.
	upsertSearchDocs = `WITH input AS (
			SELECT * FROM unnest($3::bigint[], $4::bigint[], $5::bigint[], $6::text[], $7::int[]) AS i(message_id, sender_id, seq, doc, len)),
		old AS (
			SELECT len FROM message_search WHERE agent = $1 AND chat_id = $2 AND message_id = ANY($3::bigint[])),
		doc AS (
			INSERT INTO message_search (agent, chat_id, message_id, sender_id, seq, doc, len)
			SELECT $1, $2, message_id, sender_id, seq, doc::tsvector, len FROM input
			ON CONFLICT (agent, chat_id, message_id) DO UPDATE SET sender_id = excluded.sender_id,
				doc = excluded.doc, len = excluded.len)
		INSERT INTO search_chats AS s (agent, chat_id, docs, tokens)
		SELECT $1, $2, (SELECT count(*) FROM input) - (SELECT count(*) FROM old),
			(SELECT coalesce(sum(len), 0) FROM input) - (SELECT coalesce(sum(len), 0) FROM old)
		ON CONFLICT (agent, chat_id) DO UPDATE SET docs = s.docs + excluded.docs, tokens = s.tokens + excluded.tokens`
	queryChatStats  = `SELECT docs, tokens FROM search_chats WHERE agent = $1 AND chat_id = $2`
	queryAgentStats = `SELECT sum(docs)::bigint, sum(tokens)::bigint FROM search_chats WHERE agent = $1 HAVING count(*) > 0`
	queryWinners    = `SELECT ` + messageColumns + `
		FROM unnest($2::bigint[], $3::bigint[]) AS k(chat_id, message_id)
		JOIN messages m ON m.agent = $1 AND m.chat_id = k.chat_id AND m.message_id = k.message_id
		LEFT JOIN chats c ON c.agent = m.agent AND c.chat_id = m.chat_id`
	// queryIDAtOrAfter is the first message of a chat at or after an id: its id and time.
	queryIDAtOrAfter = `SELECT message_id, time FROM messages
		WHERE agent = $1 AND chat_id = $2 AND message_id >= $3 ORDER BY message_id LIMIT 1`
	queryIDRange = `SELECT coalesce(min(message_id), 0), coalesce(max(message_id), -1) FROM messages
		WHERE agent = $1 AND chat_id = $2`
	queryBefore = `SELECT ` + messageColumns + messageFrom +
		`WHERE m.agent = $1 AND m.chat_id = $2 AND m.message_id < $3 ORDER BY m.message_id DESC LIMIT $4`
	queryFrom = `SELECT ` + messageColumns + messageFrom +
		`WHERE m.agent = $1 AND m.chat_id = $2 AND m.message_id >= $3 ORDER BY m.message_id LIMIT $4`
)

// months names the months as the context part of an entry holds them, in English as the
// SQLite store writes them, so that "March" finds what was said in March.
var months = [...]string{"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December"}

// indexMessage writes (or rewrites) the index entry of a stored message in tx.
func (db *DB) indexMessage(ctx context.Context, tx pgx.Tx, agent string, chat mynah.ChatID, id mynah.MessageID) error {
	return db.indexMessages(ctx, tx, agent, chat, []int64{int64(id)})
}

// indexMessages writes (or rewrites) the index entries of stored messages of one chat in
// tx, in two statements however many: each entry's body (text, caption and media
// descriptions), its context (the sender's names, month and year) and what it answers
// (the text it replies to and the message before it). Messages outside the ids Telegram
// assigns are stored but not indexed, as in the SQLite store.
func (db *DB) indexMessages(ctx context.Context, tx pgx.Tx, agent string, chat mynah.ChatID, ids []int64) error {
	ids = slices.DeleteFunc(slices.Clone(ids), func(id int64) bool { return id < 1 || id > mynah.MaxMessageID })
	if len(ids) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, queryIndexSource, agent, int64(chat), ids)
	if err != nil {
		return err
	}
	var ( // the entries, as the columns of upsertSearchDocs
		msgIDs, senders, seqs []int64
		docs                  []string
		lens                  []int32
	)
	for rows.Next() {
		var (
			id, seq, sender, at     int64
			first, last, username   string
			text                    string
			media, replyTo, prevTxt sql.NullString
		)
		if err := rows.Scan(&id, &seq, &sender, &first, &last, &username, &at, &text, &media, &replyTo, &prevTxt); err != nil {
			rows.Close()
			return err
		}
		doc, n, err := entry(id, first, last, username, at, text, media, replyTo, prevTxt)
		if err != nil {
			rows.Close()
			return err
		}
		msgIDs, senders, seqs = append(msgIDs, id), append(senders, sender), append(seqs, seq)
		docs, lens = append(docs, doc), append(lens, int32(n))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(msgIDs) == 0 {
		return nil
	}
	_, err = tx.Exec(ctx, upsertSearchDocs, agent, int64(chat), msgIDs, senders, seqs, docs, lens)
	return err
}

// indexNew writes the index entry of m, just inserted in tx with seq, whose previous
// message in the chat has the text prev: what indexMessages writes, without reading the
// message back.
func (db *DB) indexNew(ctx context.Context, tx pgx.Tx, agent string, chat mynah.ChatID, m *mynah.Message, seq int64, prev sql.NullString) error {
	args, ok := entryArgs(agent, chat, m, seq, prev)
	if !ok {
		return nil
	}
	_, err := tx.Exec(ctx, upsertSearchDocs, args...)
	return err
}

// entryArgs are the arguments of upsertSearchDocs for m as indexNew describes it; false
// when m is not indexed (an id outside those Telegram assigns).
func entryArgs(agent string, chat mynah.ChatID, m *mynah.Message, seq int64, prev sql.NullString) ([]any, bool) {
	if m.ID < 1 || m.ID > mynah.MaxMessageID {
		return nil, false
	}
	stored := *m // the time as the row holds it: a message without one reads as 1970
	stored.Time = time.UnixMilli(storecodec.Millis(m.Time).Int64).UTC()
	doc, n := entryOf(&stored, prev)
	return []any{agent, int64(chat), []int64{int64(m.ID)}, []int64{int64(m.Sender.ID)},
		[]int64{seq}, []string{doc}, []int32{int32(n)}}, true
}

// entry builds the index entry of one message from its columns.
func entry(id int64, first, last, username string, at int64, text string, media, replyTo, prevTxt sql.NullString) (string, int, error) {
	var m mynah.Message
	if err := storecodec.DecodeMessage(&m, storecodec.MessageJSON{Media: media, ReplyTo: replyTo}); err != nil {
		return "", 0, fmt.Errorf("message %d: %w", id, err)
	}
	m.Text, m.Sender = text, mynah.User{FirstName: first, LastName: last, Username: username}
	m.Time = time.UnixMilli(at).UTC()
	doc, n := entryOf(&m, prevTxt)
	return doc, n, nil
}

// previousHead and previousTail enclose the condition on p, a chat's messages before
// one, of the SQL expression its index entry's previous part is written from (see
// mynah.PreviousContext), as SQLite's index reads them: the two before it, nearest first,
// as a JSON array of [time in Unix milliseconds, text]; NULL when none.
const (
	previousHead = `(SELECT json_agg(json_build_array(p.time, p.text) ORDER BY p.message_id DESC)::text
		FROM (SELECT p.message_id, p.time, p.text FROM messages p WHERE `
	previousTail = ` ORDER BY p.message_id DESC LIMIT 2) p)`
)

// entryOf builds the index entry of m (its text, media, sender, time and reply), prev
// being the messages before it (previousHead). The previous part is mynah.PreviousContext,
// as SQLite's index writes it, so that both stores rank alike.
func entryOf(m *mynah.Message, prev sql.NullString) (string, int) {
	body := m.Text
	for _, it := range m.Media {
		if it.Description != "" {
			body += " " + it.Description
		}
	}
	t := m.Time.UTC()
	s := m.Sender
	context := strings.TrimSpace(s.FirstName+" "+s.LastName+" "+s.Username) + " " + months[t.Month()-1] + " " + fmt.Sprint(t.Year())
	// A value PostgreSQL's json_agg wrote always reads; were it not to, the entry would
	// only lack its previous part.
	before, _ := mynah.PreviousFromJSON(prev.String)
	reply := ""
	if m.ReplyTo != nil {
		reply = m.ReplyTo.Text
	}
	previous := mynah.PreviousContext(body, m.Time, reply, before)
	return buildDoc(docPart{body, bodyPart}, docPart{context, contextPart}, docPart{previous, previousPart})
}

// SearchHistory returns up to q.Limit of agent's messages matching any of q.Terms, best
// BM25 score first, with the SQLite store's tokens, stems, weights and scoring (see
// searchdoc.go). No query syntax reaches PostgreSQL: terms become lexemes. As in the
// SQLite store, the messages with a rare term are ranked by every term but the very
// common ones, and a query of common terms alone ranks the newest matches of any of them
// and of the least common meeting another, so its cost grows with the rare matches in
// the scope (agent, or agent and chat). Idf and average length are the scope's. Every
// committed message is searchable: entries are written with the messages.
func (db *DB) SearchHistory(ctx context.Context, q mynah.SearchQuery) ([]mynah.SearchHit, error) {
	terms, boost := queryTerms(q.Terms), queryTerms(q.Boost)
	if len(terms)+len(boost) == 0 || q.Limit <= 0 {
		return nil, nil
	}
	parts, weight := []string{bodyPart}, map[string]float64{bodyPart: 1}
	if q.ContextWeight > 0 {
		parts, weight[contextPart] = append(parts, contextPart), q.ContextWeight
	}
	if q.PreviousWeight > 0 {
		parts, weight[previousPart] = append(parts, previousPart), q.PreviousWeight
	}
	var docs, tokens int64
	var err error
	if q.Chat != 0 {
		err = db.pool.QueryRow(ctx, queryChatStats, q.Agent, int64(q.Chat)).Scan(&docs, &tokens)
	} else {
		err = db.pool.QueryRow(ctx, queryAgentStats, q.Agent).Scan(&docs, &tokens)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil // nothing of this agent or chat was ever stored
	}
	if err != nil {
		return nil, fail(ctx, err, "search history of %s", q.Agent)
	}
	sc := searchScope{agent: q.Agent, chat: q.Chat, sender: q.Sender, asOf: q.AsOf, mark: docs}
	counts, err := db.probe(ctx, sc, terms, parts)
	if err == nil && q.Typos && slices.Contains(counts, 0) {
		terms, counts, err = db.correct(ctx, sc, q.Terms, terms, counts, parts)
	}
	if err != nil {
		return nil, fail(ctx, err, "search history of %s", q.Agent)
	}
	var b boosting // the words of q.Boost that add to the others' matches
	if len(boost) > 0 {
		n, err := db.probe(ctx, sc, boost, parts)
		switch {
		case err != nil:
			return nil, fail(ctx, err, "search history of %s", q.Agent)
		case !slices.ContainsFunc(counts, func(n int64) bool { return n > 0 }):
			terms, counts = append(terms, boost...), append(counts, n...) // nothing else to meet: searched as Terms
		default:
			for i, t := range boost {
				if n[i] > 0 && n[i] < termcount.VeryCommon {
					b.terms, b.idf = append(b.terms, t), append(b.idf, n[i])
				}
			}
		}
	}
	if len(terms) == 0 {
		return nil, nil
	}
	said := counts // without the previous part, what every part holds is what is said
	if sp := saidParts(parts); len(sp) < len(parts) {
		if said, err = db.probe(ctx, sc, terms, sp); err != nil {
			return nil, fail(ctx, err, "search history of %s", q.Agent)
		}
	}
	scorer := newIDF(docs, tokens, weight)
	scored, partial, err := db.rankTerms(ctx, sc, terms, said, counts, b, parts, scorer)
	if err != nil {
		return nil, fail(ctx, err, "search history of %s", q.Agent)
	}
	if limit := q.Limit + max(q.WithinLimit, 0); len(scored) > limit {
		scored = scored[:limit]
	}
	hits, err := db.winners(ctx, q.Agent, scored)
	if err != nil {
		return nil, fail(ctx, err, "search history of %s", q.Agent)
	}
	hits = q.KeepWithin(slices.DeleteFunc(hits, func(h mynah.SearchHit) bool { return q.Later(h.Message.Time) }))
	if q.WithinLimit > 0 && q.Chat != 0 && q.Sender == 0 && partial && len(hits) <= q.Limit {
		if hits, err = db.addWithin(ctx, q, sc, hits, terms, counts, parts, scorer); err != nil {
			return nil, fail(ctx, err, "search history of %s", q.Agent)
		}
	}
	return hits, nil
}

// saidParts are parts without the conversation before a message: a term is split into
// rare and common by its matches in the messages that say it, as the SQLite store's
// saidColumns says; its idf stays its matches in every part, as FTS5 counts them.
func saidParts(parts []string) []string {
	return slices.DeleteFunc(slices.Clone(parts), func(p string) bool { return p == previousPart })
}

// newIDF returns the BM25 scorer of terms with counts in a scope of docs entries and
// tokens in all, parts weighed by weight.
func newIDF(docs, tokens int64, weight map[string]float64) func(counts []int64) *bm25 {
	return func(counts []int64) *bm25 { return newBM25(counts, docs, tokens, weight) }
}

// boosting are the terms of a search that weigh where they meet its others but find
// nothing by themselves (mynah.SearchQuery.Boost), with their matches in its scope.
type boosting struct {
	terms []queryTerm
	idf   []int64
}

// rankTerms scores the entries of the scope sc that match terms, best first: counts are
// the terms' matches in sc where they are said (saidParts), which split them into rare,
// common and very common (termcount.Split), and idf their matches in the search's whole
// scope, which weigh them.
// As SearchHistory says, the
// entries with a rare term are ranked by every term but the very common ones, and a search
// of common terms alone ranks the newest matches of any and of the least common meeting
// another. The boost terms weigh in every ranking, and the entries where they meet a
// common term (or, with no rare term, any term) are ranked too. partial is true when not
// every match of every term was ranked.
func (db *DB) rankTerms(ctx context.Context, sc searchScope, terms []queryTerm, counts, idf []int64, b boosting, parts []string, scorer func([]int64) *bm25) (scored []scoredEntry, partial bool, err error) {
	var rare, common []queryTerm
	var rareIDF, commonIDF []int64
	rareAt, commonAt, partial := termcount.Split(counts)
	for _, i := range rareAt {
		rare, rareIDF = append(rare, terms[i]), append(rareIDF, idf[i])
	}
	for _, i := range commonAt {
		common, commonIDF = append(common, terms[i]), append(commonIDF, idf[i])
	}
	var met []scoredEntry
	switch {
	case len(rare) > 0:
		// Messages with a rare term, scored by the common ones too.
		s, scoring := scorer(slices.Concat(rareIDF, commonIDF, b.idf)), slices.Concat(rare, common, b.terms)
		scored, err = db.rank(ctx, sc, tsquery(rare, parts), scoring, parts, 0, s)
		if err == nil && len(common) > 0 && len(b.terms) > 0 {
			// and those where a common term meets a boost term: what the person a question
			// names said in the time it names, in other words than the question's
			both := "(" + tsquery(common, parts) + ") & (" + tsquery(b.terms, parts) + ")"
			met, err = db.rank(ctx, sc, both, scoring, parts, 0, s)
			scored = mergeScored(scored, met)
		}
	case sc.sender != 0:
		scored, err = db.rank(ctx, sc, tsquery(terms, parts), slices.Concat(terms, b.terms), parts, 0, scorer(slices.Concat(idf, b.idf)))
	default:
		s, scoring := scorer(slices.Concat(idf, b.idf)), slices.Concat(terms, b.terms)
		scored, err = db.rank(ctx, sc, tsquery(terms, parts), scoring, parts, termcount.RecentMatches, s)
		if err == nil && len(common) > 1 {
			both := "(" + tsquery(common[:1], parts) + ") & (" + tsquery(common[1:], parts) + ")"
			met, err = db.rank(ctx, sc, both, scoring, parts, termcount.RecentMatches, s)
			scored = mergeScored(scored, met)
		}
		if err == nil && len(b.terms) > 0 {
			both := "(" + tsquery(terms, parts) + ") & (" + tsquery(b.terms, parts) + ")"
			met, err = db.rank(ctx, sc, both, scoring, parts, termcount.RecentMatches, s)
			scored = mergeScored(scored, met)
		}
		partial = true
	}
	return scored, partial, err
}

// addWithin returns hits, the search's best, and after them the best of q's chat said
// between q.Since and q.Until, found by searching that time alone, its terms counted
// there (a word too common in a busy chat to be ranked in all its matches may be rare in a
// week of it) and weighed as in the chat: what SearchHistory adds when terms were left out
// or ranked only in part and none of the next best was said then. A chat's messages of a
// time are a range of its ids (ids grow with time).
func (db *DB) addWithin(ctx context.Context, q mynah.SearchQuery, sc searchScope, hits []mynah.SearchHit, terms []queryTerm, counts []int64, parts []string, scorer func([]int64) *bm25) ([]mynah.SearchHit, error) {
	first, last, ok, err := db.idsBetween(ctx, q.Agent, q.Chat, q.Since, q.Until)
	if err != nil || !ok {
		return hits, err
	}
	w := sc
	w.first, w.last = first, last
	n, err := db.probe(ctx, w, terms, saidParts(parts))
	if err != nil {
		return nil, err
	}
	found, _, err := db.rankTerms(ctx, w, terms, n, counts, boosting{}, parts, scorer)
	if err != nil {
		return nil, err
	}
	found = slices.DeleteFunc(found, func(e scoredEntry) bool {
		return slices.ContainsFunc(hits, func(h mynah.SearchHit) bool { return int64(h.Message.ID) == e.id })
	})
	more, err := db.winners(ctx, q.Agent, found[:min(q.WithinLimit, len(found))])
	if err != nil {
		return nil, err
	}
	return append(hits, slices.DeleteFunc(more, func(h mynah.SearchHit) bool { return !q.Within(h.Message.Time) || q.Later(h.Message.Time) })...), nil
}

// idsBetween returns the range of message ids first..last of agent's chat that holds the
// messages said between since and until (see mynah.IDsBetween); ok is false when no
// message of the chat was said then.
func (db *DB) idsBetween(ctx context.Context, agent string, chat mynah.ChatID, since, until time.Time) (first, last int64, ok bool, err error) {
	var lowest, highest int64
	if err := db.pool.QueryRow(ctx, queryIDRange, agent, int64(chat)).Scan(&lowest, &highest); err != nil {
		return 0, 0, false, err
	}
	return mynah.IDsBetween(lowest, highest, since, until, func(id int64) (int64, time.Time, bool, error) {
		var got, ms int64
		err := db.pool.QueryRow(ctx, queryIDAtOrAfter, agent, int64(chat), id).Scan(&got, &ms)
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, time.Time{}, false, nil
		}
		return got, time.UnixMilli(ms), err == nil, err
	})
}

// mergeScored returns the entries of a and b, each once, best first.
func mergeScored(a, b []scoredEntry) []scoredEntry {
	for _, e := range b {
		if !slices.ContainsFunc(a, func(o scoredEntry) bool { return o.chat == e.chat && o.id == e.id }) {
			a = append(a, e)
		}
	}
	slices.SortFunc(a, compareScored)
	return a
}

// searchScope is where a search looks: an agent's messages, of one chat (0: all) and one
// sender (0: anyone).
type searchScope struct {
	agent  string
	chat   mynah.ChatID
	sender mynah.UserID
	// first..last, when last > 0, are the only message ids of the chat searched: its
	// messages of a time.
	first, last int64
	// asOf, when set, leaves out the messages said after it (SearchQuery.AsOf), read from
	// each: no range of ids stands for a time where a chat's ids do not follow its times
	// (an import's ids are its file's).
	asOf time.Time
	// mark is the count of entries in the agent's chat (every chat of the agent) when the
	// search began: it grows with each message indexed (see termcount.Cache).
	mark int64
}

// where returns the scope's conditions on message_search, numbering its parameters from
// next, and their values.
//
// The conditions are written so that no btree index can serve them (the agent joined to
// an empty string, the chat plus 0): the GIN index on doc finds the matches, however many rows the scope holds. Left to
// itself, the planner, which cannot know how selective a term is when planning a prepared
// statement, may walk the scope's primary key instead, testing every row of a big chat
// against a rare term.
func (s searchScope) where(next int) (string, []any) {
	var cond string
	var args []any
	if s.last > 0 {
		// A time's messages are found along the key: a term too common in the chat to
		// search is in most of them.
		cond, args = s.exact(next)
	} else {
		cond, args = fmt.Sprintf("agent || '' = $%d", next), []any{s.agent}
		if s.chat != 0 {
			args = append(args, int64(s.chat))
			cond += fmt.Sprintf(" AND chat_id + 0 = $%d", next+len(args)-1)
		}
	}
	if s.sender != 0 {
		args = append(args, int64(s.sender))
		cond += fmt.Sprintf(" AND sender_id = $%d", next+len(args)-1)
	}
	return s.said(cond, args, next)
}

// said adds to cond, whose parameters are numbered from next, the condition that a
// message was said by s.asOf, when set.
func (s searchScope) said(cond string, args []any, next int) (string, []any) {
	if s.asOf.IsZero() {
		return cond, args
	}
	args = append(args, s.asOf.UnixMilli())
	return cond + fmt.Sprintf(` AND EXISTS (SELECT 1 FROM messages m WHERE m.agent = message_search.agent
		AND m.chat_id = message_search.chat_id AND m.message_id = message_search.message_id AND m.time <= $%d)`, next+len(args)-1), args
}

// exact is where with conditions on the key itself, for a query that walks it.
func (s searchScope) exact(next int) (string, []any) {
	cond, args := fmt.Sprintf("agent = $%d", next), []any{s.agent}
	if s.chat != 0 {
		args = append(args, int64(s.chat))
		cond += fmt.Sprintf(" AND chat_id = $%d", next+len(args)-1)
	}
	if s.last > 0 {
		args = append(args, s.first, s.last)
		cond += fmt.Sprintf(" AND message_id BETWEEN $%d AND $%d", next+len(args)-2, next+len(args)-1)
	}
	return cond, args
}

// correct returns a search's terms and their counts with corrections for the words
// stem.Typos picks of those none of whose terms matches anything: of each, the edit with
// the most matches in the scope, all of a word's edits counted in one query. When no term
// matches anything, the terms are the corrections alone (a word with none matched
// nothing); when some do, the corrections are added to them.
func (db *DB) correct(ctx context.Context, sc searchScope, words []string, terms []queryTerm, counts []int64, parts []string) ([]queryTerm, []int64, error) {
	found := map[string]bool{}
	for i, t := range terms {
		if counts[i] > 0 {
			found[strings.Join(t, " ")] = true
		}
	}
	matched := make([]bool, len(words))
	for i, w := range words {
		matched[i] = slices.ContainsFunc(queryTerms([]string{w}), func(t queryTerm) bool { return found[strings.Join(t, " ")] })
	}
	if len(found) > 0 {
		terms, counts = slices.Clone(terms), slices.Clone(counts)
	} else {
		terms, counts = nil, nil
	}
	for _, typo := range stem.Typos(words, matched) {
		variants := queryTerms(typo.Edits)
		n, err := db.probe(ctx, sc, variants, parts)
		if err != nil {
			return nil, nil, err
		}
		best := -1
		for j, c := range n {
			if c > 0 && (best < 0 || c > n[best]) {
				best = j
			}
		}
		if best >= 0 && !slices.ContainsFunc(terms, func(t queryTerm) bool { return slices.Equal(t, variants[best]) }) {
			terms, counts = append(terms, variants[best]), append(counts, n[best])
		}
	}
	return terms, counts, nil
}

// probe counts each term's matches in the scope, up to termcount.VeryCommon: it tells a
// selective term from a common one at a cost bounded by that. A count probed before is
// remembered while it still decides the same (termcount.Cache, the mark being the scope's
// count of entries, sc.mark), so a chat's usual words are counted once: PostgreSQL
// fetches and rechecks a heap row for each match it counts.
func (db *DB) probe(ctx context.Context, sc searchScope, terms []queryTerm, parts []string) ([]int64, error) {
	counts := make([]int64, len(terms))
	keys := make([]probeKey, len(terms))
	var queries []string
	var missing []int
	for i, t := range terms {
		keys[i] = sc.probeKey(tsquery([]queryTerm{t}, parts))
		var ok bool
		if counts[i], ok = db.terms.Get(keys[i], sc.mark); !ok {
			queries, missing = append(queries, keys[i].query), append(missing, i)
		}
	}
	if len(queries) == 0 {
		return counts, nil
	}
	cond, args := sc.where(3)
	sql := `SELECT (SELECT count(*) FROM (SELECT 1 FROM message_search WHERE ` + cond + ` AND doc @@ t.q::tsquery LIMIT $2) x)
		FROM unnest($1::text[]) WITH ORDINALITY AS t(q, i) ORDER BY t.i`
	rows, err := db.pool.Query(ctx, sql, append([]any{queries, termcount.VeryCommon}, args...)...)
	if err != nil {
		return nil, err
	}
	probed, err := scanAll(rows, func(s scanner) (int64, error) {
		var n int64
		err := s.Scan(&n)
		return n, err
	})
	if err != nil {
		return nil, err
	}
	for j, i := range missing {
		counts[i] = probed[j]
		db.terms.Put(keys[i], probed[j], sc.mark)
	}
	return counts, nil
}

// probeKey is a term's probe: its tsquery in a scope.
type probeKey struct {
	agent                           string
	chat, sender, first, last, asOf int64
	query                           string
}

func (s searchScope) probeKey(query string) probeKey {
	k := probeKey{agent: s.agent, chat: int64(s.chat), sender: int64(s.sender), first: s.first, last: s.last, query: query}
	if !s.asOf.IsZero() {
		k.asOf = s.asOf.UnixMilli()
	}
	return k
}

// scoredEntry is one ranked entry of an index.
type scoredEntry struct {
	chat  int64
	id    int64
	score float64
}

// rank scores by terms the entries of the scope that match the tsquery match, best
// first, leaving out those that score 0. newest > 0 ranks only the newest that many
// matches.
func (db *DB) rank(ctx context.Context, sc searchScope, match string, terms []queryTerm, parts []string, newest int, s *bm25) ([]scoredEntry, error) {
	cond, args := sc.where(2)
	if newest > 0 {
		// The newest matches of common terms are dense along the scope's key: walking it
		// back is cheaper than collecting every match.
		cond, args = sc.exact(2)
		cond, args = sc.said(cond, args, 2)
	}
	inner := `SELECT chat_id, message_id, len, doc FROM message_search WHERE ` + cond + ` AND doc @@ $1::tsquery`
	if newest > 0 {
		order := "seq"
		if sc.chat != 0 {
			order = "message_id"
		}
		args = append(args, newest)
		inner += fmt.Sprintf(` ORDER BY %s DESC LIMIT $%d`, order, 1+len(args))
	}
	// The entries come back whole, as text, and Go picks the query's lexemes out of them:
	// cheaper for PostgreSQL than unnesting every entry into rows.
	sql := `SELECT chat_id, message_id, len, doc::text FROM (` + inner + `) s`
	rows, err := db.pool.Query(ctx, sql, append([]any{match}, args...)...)
	if err != nil {
		return nil, err
	}
	return scoreRows(rows, terms, lexemes(terms, parts), s)
}

// scoreRows reads rows of (chat, id, length, entry as text) and scores each entry: best
// first, leaving out those that score 0.
func scoreRows(rows pgx.Rows, terms []queryTerm, lexemes []string, s *bm25) ([]scoredEntry, error) {
	defer rows.Close()
	var out []scoredEntry
	occ := map[string]occurrence{}
	for rows.Next() {
		var e scoredEntry
		var n int
		var doc string
		if err := rows.Scan(&e.chat, &e.id, &n, &doc); err != nil {
			return nil, err
		}
		clear(occ)
		for _, l := range lexemes {
			if o := positionsOf(doc, l); o != nil {
				occ[l] = o
			}
		}
		if e.score = s.score(terms, n, occ); e.score > 0 {
			out = append(out, e)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, compareScored)
	return out, nil
}

// compareScored orders entries best first, the newest first among equals.
func compareScored(a, b scoredEntry) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	if c := cmp.Compare(b.chat, a.chat); c != 0 {
		return c
	}
	return cmp.Compare(b.id, a.id)
}

// winners reads the messages of scored entries and returns them as hits, in order.
func (db *DB) winners(ctx context.Context, agent string, scored []scoredEntry) ([]mynah.SearchHit, error) {
	if len(scored) == 0 {
		return nil, nil
	}
	chats, ids := make([]int64, len(scored)), make([]int64, len(scored))
	for i, e := range scored {
		chats[i], ids[i] = e.chat, e.id
	}
	rows, err := db.pool.Query(ctx, queryWinners, agent, chats, ids)
	if err != nil {
		return nil, err
	}
	msgs, err := scanMessages(agent, rows)
	if err != nil {
		return nil, err
	}
	type key struct{ chat, id int64 }
	byKey := make(map[key]mynah.Message, len(msgs))
	for _, m := range msgs {
		byKey[key{int64(m.Chat.ID), int64(m.ID)}] = m
	}
	hits := make([]mynah.SearchHit, 0, len(scored))
	for _, e := range scored {
		if m, ok := byKey[key{e.chat, e.id}]; ok {
			hits = append(hits, mynah.SearchHit{Message: m, Score: e.score})
		}
	}
	return hits, nil
}

// Around returns message id of agent's chat with up to before messages preceding it and up
// to after following it, oldest first. When id is not stored, the neighbours of where it
// would be are returned. It costs O(before + after).
func (db *DB) Around(ctx context.Context, agent string, chat mynah.ChatID, id mynah.MessageID, before, after int) ([]mynah.Message, error) {
	// Both reads go in one round trip.
	b := &pgx.Batch{}
	if before > 0 {
		b.Queue(queryBefore, agent, int64(chat), int64(id), before)
	}
	b.Queue(queryFrom, agent, int64(chat), int64(id), max(after, 0)+1)
	res := db.pool.SendBatch(ctx, b)
	var out, next []mynah.Message
	err := func() error {
		if before > 0 {
			rows, err := res.Query()
			if err == nil {
				out, err = scanMessages(agent, rows)
			}
			if err != nil {
				return err
			}
			slices.Reverse(out)
		}
		rows, err := res.Query()
		if err == nil {
			next, err = scanMessages(agent, rows)
		}
		return err
	}()
	if err := errors.Join(err, res.Close()); err != nil {
		return nil, fail(ctx, err, "messages around %d in chat %d of %s", id, chat, agent)
	}
	n := len(out)
	out = append(out, next...)
	if len(out) > n && out[n].ID != id && len(out)-n > max(after, 0) {
		out = out[:len(out)-1] // id is not stored: keep after messages after it
	}
	return out, nil
}
