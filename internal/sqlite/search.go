package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/termcount"
)

// The history index (migration 0005) keys each message as scope << 31 | message_id, where
// a scope is agent_no << 22 | chat_no: a chat's entries form one rowid range, an agent's
// chats one larger range, and FTS5 seeks straight to a range in its doclists.
const (
	messageBits = 31
	chatBits    = 22
)

const (
	queryChatScope  = `SELECT scope FROM search_chats WHERE agent = ? AND chat_id = ?`
	queryAgentScope = `SELECT agent_no FROM search_agents WHERE agent = ?`
	// querySearch ranks inside the index alone and stops at the limit; only the winners
	// of all of a search's queries are then read (queryMessagesByKey).
	querySearch = `SELECT rowid, -bm25(message_search, 1.0, ?, ?) AS score FROM message_search
		WHERE message_search MATCH ? AND rowid BETWEEN ? AND ? ORDER BY score DESC, rowid DESC LIMIT +?`
	// queryMessagesByKey reads the messages of index keys, given as a JSON array in key
	// order: one statement for all of them, walking the messages in the order they are stored.
	queryMessagesByKey = `SELECT ` + messageColumns + `, k.value FROM json_each(?) k
		JOIN search_chats sc ON sc.scope = k.value >> 31
		JOIN messages m ON m.agent = sc.agent AND m.chat_id = sc.chat_id AND m.message_id = k.value & 2147483647
		LEFT JOIN chats c ON c.agent = m.agent AND c.chat_id = m.chat_id`
	// With a sender (0: anyone), or a time (ms) said by, the filter must come before the
	// limit, so each match is joined with its message: the scope is one person's words,
	// used for what the agent knows about them, or what was said by a time (mynah memory
	// search --at), which no range of ids stands for where a chat's ids do not follow its
	// times (an import's ids are its file's). These are querySearch and querySearchRecent
	// with the filter.
	querySearchFiltered = `SELECT s.rowid, -bm25(message_search, 1.0, ?, ?) AS score FROM message_search s` + filterJoin + `
		WHERE message_search MATCH ? AND s.rowid BETWEEN ? AND ?` + filterWhere + `
		ORDER BY score DESC, s.rowid DESC LIMIT +?`
	querySearchRecentFiltered = `SELECT key, score FROM (
		SELECT s.rowid AS key, -bm25(message_search, 1.0, ?, ?) AS score FROM message_search s` + filterJoin + `
		WHERE message_search MATCH ? AND s.rowid BETWEEN ? AND ?` + filterWhere + `
		ORDER BY s.rowid DESC LIMIT +?)
		ORDER BY score DESC, key DESC LIMIT +?`
	filterJoin = `
		JOIN search_chats sc ON sc.scope = s.rowid >> 31
		JOIN messages m ON m.agent = sc.agent AND m.chat_id = sc.chat_id AND m.message_id = s.rowid & 2147483647`
	filterWhere = `
		AND m.sender_id = coalesce(nullif(?, 0), m.sender_id) AND m.time <= ?`
	// queryProbe counts a term's matches in a scope, up to a bound: it tells a selective
	// term from a common one at a cost bounded by the limit.
	queryProbe = `SELECT count(*) FROM (SELECT rowid FROM message_search
		WHERE message_search MATCH ? AND rowid BETWEEN ? AND ? LIMIT +?)`
	// querySearchRecent ranks only the newest matches (FTS5 walks rowids backwards and
	// stops at the inner limit), for queries made of common terms.
	querySearchRecent = `SELECT key, score FROM (
		SELECT rowid AS key, -bm25(message_search, 1.0, ?, ?) AS score FROM message_search
		WHERE message_search MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rowid DESC LIMIT +?)
		ORDER BY score DESC, key DESC LIMIT +?`
	// queryIDAtOrAfter is the first message of a chat at or after an id: its id and time.
	queryIDAtOrAfter = `SELECT message_id, time FROM messages
		WHERE agent = ? AND chat_id = ? AND message_id >= ? ORDER BY message_id LIMIT 1`
	queryIDRange = `SELECT coalesce((SELECT min(message_id) FROM messages WHERE agent = ?1 AND chat_id = ?2), 0),
		coalesce((SELECT max(message_id) FROM messages WHERE agent = ?1 AND chat_id = ?2), -1)`
	queryBefore = `SELECT ` + messageColumns + messageFrom +
		`WHERE m.agent = ? AND m.chat_id = ? AND m.message_id < ? ORDER BY m.message_id DESC LIMIT +?`
	queryFrom = `SELECT ` + messageColumns + messageFrom +
		`WHERE m.agent = ? AND m.chat_id = ? AND m.message_id >= ? ORDER BY m.message_id LIMIT +?`
)

var _ mynah.HistorySearch = (*DB)(nil)

// allColumns are the columns of the message index, in order.
var allColumns = []string{"body", "context", "previous"}

// SearchHistory returns up to q.Limit of agent's messages matching any of q.Terms, best
// BM25 score first (FTS5's bm25; porter stemming for English, internal/stem's for Russian
// and Ukrainian, on both the index and the terms; diacritics folded). Each term is
// matched as a quoted phrase, so no query syntax reaches FTS5. The scope (agent, or agent
// and chat) is a rowid range of the index: the cost grows with the matches inside it.
// Messages stored since the last IndexPending are indexed first.
func (db *DB) SearchHistory(ctx context.Context, q mynah.SearchQuery) ([]mynah.SearchHit, error) {
	q.Terms, q.Boost = stemTerms(q.Terms), stemTerms(q.Boost)
	cols := []string{"body"}
	if q.ContextWeight > 0 {
		cols = append(cols, "context")
	}
	if q.PreviousWeight > 0 {
		cols = append(cols, "previous")
	}
	match := matchExpr(slices.Concat(q.Terms, q.Boost), cols)
	if match == "" || q.Limit <= 0 {
		return nil, nil
	}
	_, mark, err := db.indexPending(ctx, nil)
	if err != nil {
		return nil, err
	}
	// The search's reads run without ctx's cancellation (see brief): a dozen statements
	// of a few hundred microseconds each, where watching ctx cost every statement two
	// goroutines, ~5% of a search's CPU (BenchmarkSearch, within its noise of ±8%).
	ctx = brief(ctx)
	lo, hi, err := db.searchRange(ctx, q.Agent, q.Chat)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil // nothing of this agent or chat was ever stored
	}
	if err != nil {
		return nil, fail(ctx, err, "search history of %s", q.Agent)
	}
	terms, rare, common, partial, err := db.termsByCount(ctx, q.Terms, cols, lo, hi, mark, q.Typos)
	if err != nil {
		return nil, fail(ctx, err, "search history of %s", q.Agent)
	}
	var boost []string // the words of q.Boost that add to the others' matches
	if len(q.Boost) > 0 {
		_, rareBoost, commonBoost, partialBoost, err := db.termsByCount(ctx, q.Boost, cols, lo, hi, mark, false)
		switch {
		case err != nil:
			return nil, fail(ctx, err, "search history of %s", q.Agent)
		case len(rare)+len(common) == 0 && !partial: // nothing else to meet: searched as Terms
			terms, rare, common, partial = append(terms, q.Boost...), rareBoost, commonBoost, partial || partialBoost
		default:
			boost = append(rareBoost, commonBoost...)
		}
	}
	match = rankedMatch(terms, rare, cols)
	w := []any{q.ContextWeight, q.PreviousWeight}
	f := filterOf(q)
	keys, err := db.rankKeys(ctx, w, f, rare, common, boost, cols, match, lo, hi, q.Limit+max(q.WithinLimit, 0))
	if err == nil && q.WithinLimit > 0 && q.Chat != 0 && (len(keys) > q.Limit || partial) {
		var more func(first, last int64) ([]scoredKey, error)
		if partial { // the chat's messages of the time, by their index keys
			more = func(first, last int64) ([]scoredKey, error) {
				return db.rankPart(ctx, w, f, terms, cols, lo|first, min(lo|last, hi), mark, q.Limit+q.WithinLimit)
			}
		}
		keys, err = db.keepWithin(ctx, q, keys, more)
	}
	var hits []mynah.SearchHit
	if err == nil {
		hits, err = db.messagesByKey(ctx, q.Agent, keys)
	}
	if err != nil {
		return nil, fail(ctx, err, "search history of %s", q.Agent)
	}
	return q.KeepWithin(slices.DeleteFunc(hits, func(h mynah.SearchHit) bool { return q.Later(h.Message.Time) })), nil
}

// rankKeys returns the limit best index keys in [lo, hi] for terms split by count, with
// their scores, best first, of the messages f keeps; the boost terms (see
// mynah.SearchQuery.Boost) add their weight where they meet the others.
func (db *DB) rankKeys(ctx context.Context, w []any, f filter, rare, common, boost, cols []string, match string, lo, hi int64, limit int) ([]scoredKey, error) {
	r := ranking{}
	search, recent := db.stmts.search, db.stmts.searchRecent
	if f.on() {
		search, recent = db.stmts.searchFiltered, db.stmts.searchRecentFiltered
	}
	var err error
	switch {
	case len(rare) > 0:
		// The messages with a rare term, then those where a common (or boost) term meets a
		// rare one, scored by all of them: together, the best by BM25 over every term but
		// the very common ones, of the messages with a rare term.
		err = r.add(ctx, search, f.args(w, match, lo, hi, limit)...)
		if more := slices.Concat(common, boost); err == nil && len(more) > 0 {
			both := "(" + match + ") AND (" + matchExpr(more, cols) + ")"
			err = r.add(ctx, search, f.args(w, both, lo, hi, limit)...)
		}
		if err == nil && len(common) > 0 && len(boost) > 0 {
			// and those where a common term meets a boost term: what the person a question
			// names said in the time it names, in other words than the question's
			both := "(" + matchExpr(common, cols) + ") AND (" + matchExpr(boost, cols) + ")"
			err = r.add(ctx, search, f.args(w, both, lo, hi, limit)...)
		}
	case f.sender != 0:
		// Every match of one person's words: fewer than a chat's, and what the agent knows
		// about them is in the best of them, not the newest.
		err = r.add(ctx, search, f.args(w, match, lo, hi, limit)...)
	default:
		// The newest matches of the common terms (of all when none is common), and the
		// newest where the least common term meets another (or a boost term): a very
		// common term's IDF would cost FTS5's bm25 a walk of its whole doclist for a small
		// weight. With a time, the newest said by then.
		if len(common) > 0 {
			match = matchExpr(common, cols)
		}
		err = r.add(ctx, recent, f.args(w, match, lo, hi, termcount.RecentMatches, limit)...)
		if err == nil && len(common) > 1 {
			both := "(" + matchExpr(common[:1], cols) + ") AND (" + matchExpr(common[1:], cols) + ")"
			err = r.add(ctx, recent, f.args(w, both, lo, hi, termcount.RecentMatches, limit)...)
		}
		if err == nil && len(boost) > 0 {
			both := "(" + match + ") AND (" + matchExpr(boost, cols) + ")"
			err = r.add(ctx, recent, f.args(w, both, lo, hi, termcount.RecentMatches, limit)...)
		}
	}
	if err != nil {
		return nil, err
	}
	return r.best(limit), nil
}

// filter is what a search keeps of its matches besides their words and scope: one
// sender's messages (0: anyone's), and those said by a time (UnixMilli; math.MaxInt64:
// whenever). A search with a filter reads each match's message to apply it
// (querySearchFiltered).
type filter struct{ sender, asOf int64 }

func filterOf(q mynah.SearchQuery) filter {
	f := filter{sender: int64(q.Sender), asOf: math.MaxInt64}
	if !q.AsOf.IsZero() {
		f.asOf = q.AsOf.UnixMilli()
	}
	return f
}

func (f filter) on() bool { return f.sender != 0 || f.asOf != math.MaxInt64 }

// args are a search statement's arguments: weights w, the match expression, the scope,
// the filter's when on, and limits.
func (f filter) args(w []any, match string, lo, hi int64, limits ...int) []any {
	args := append(slices.Clone(w), match, lo, hi)
	if f.on() {
		args = append(args, f.sender, f.asOf)
	}
	for _, l := range limits {
		args = append(args, l)
	}
	return args
}

// keepWithin returns keys, best first, with those beyond the first q.Limit kept only for
// messages said between q.Since and q.Until, before their messages are read: in a chat,
// its messages of a time are a range of message ids (ids grow with time), so a range of
// the index's keys. When none of them was said then and the keys may miss messages of
// the time (terms were left out of the search, or ranked only where they met others, as
// too common: a month's name in a busy chat), more (when not nil), a search of the range
// of ids first..last alone, adds its best: there the terms are rarer. (Where ids do not
// grow with time, as when chats of different times were imported into one, some are
// missed; those kept but not of the time are left out once read.)
func (db *DB) keepWithin(ctx context.Context, q mynah.SearchQuery, keys []scoredKey, more func(first, last int64) ([]scoredKey, error)) ([]scoredKey, error) {
	first, last, ok, err := db.idsBetween(ctx, q.Agent, q.Chat, q.Since, q.Until)
	if err != nil {
		return nil, err
	}
	best := keys[:min(q.Limit, len(keys))]
	within := slices.DeleteFunc(keys[len(best):], func(k scoredKey) bool {
		id := k.key & (1<<messageBits - 1)
		return !ok || id < first || id > last
	})
	if !ok || more == nil || len(within) > 0 {
		return append(best, within...), nil
	}
	found, err := more(first, last)
	if err != nil {
		return nil, err
	}
	found = slices.DeleteFunc(found, func(k scoredKey) bool {
		return slices.ContainsFunc(best, func(b scoredKey) bool { return b.key == k.key })
	})
	return append(best, found[:min(q.WithinLimit, len(found))]...), nil
}

// rankPart returns the limit best index keys in [lo, hi], a part of a search's scope, for
// terms in cols weighed by w, the terms counted there: a term too common in a whole chat
// to be ranked in all its matches may be rare in a week of it.
func (db *DB) rankPart(ctx context.Context, w []any, f filter, terms, cols []string, lo, hi, mark int64, limit int) ([]scoredKey, error) {
	_, rare, common, _, err := db.termsByCount(ctx, terms, cols, lo, hi, mark, false)
	if err != nil {
		return nil, err
	}
	match := rankedMatch(terms, rare, cols)
	if match == "" {
		return nil, nil
	}
	return db.rankKeys(ctx, w, f, rare, common, nil, cols, match, lo, hi, limit)
}

// rankedMatch is the match expression whose every match a search ranks: its rare terms,
// or all of its terms when none is rare (see rankKeys).
func rankedMatch(terms, rare, cols []string) string {
	if len(rare) > 0 {
		return matchExpr(rare, cols)
	}
	return matchExpr(terms, cols)
}

// idsBetween returns the range of message ids first..last of agent's chat that holds the
// messages said between since and until (see mynah.IDsBetween); ok is false when no
// message of the chat was said then.
func (db *DB) idsBetween(ctx context.Context, agent string, chat mynah.ChatID, since, until time.Time) (first, last int64, ok bool, err error) {
	var lowest, highest int64
	if err := db.stmts.idRange.QueryRowContext(ctx, agent, int64(chat)).Scan(&lowest, &highest); err != nil {
		return 0, 0, false, err
	}
	return mynah.IDsBetween(lowest, highest, since, until, func(id int64) (int64, time.Time, bool, error) {
		var got, ms int64
		err := db.stmts.idAtOrAfter.QueryRowContext(ctx, agent, int64(chat), id).Scan(&got, &ms)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, time.Time{}, false, nil
		}
		return got, time.UnixMilli(ms), err == nil, err
	})
}

// ranking collects the index keys that a search's queries score, each with the highest
// of its scores.
type ranking map[int64]float64

// add runs st, a query of keys and scores, with args.
func (r ranking) add(ctx context.Context, st *stmt, args ...any) error {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var key int64
		var score float64
		if err := rows.Scan(&key, &score); err != nil {
			return err
		}
		if score > 0 { // not a match only in a column weighted 0
			r[key] = max(r[key], score)
		}
	}
	return rows.Err()
}

// best returns the n best-scoring keys, best first, and on equal scores the newest
// first (the highest key: in a chat, the latest message), as PostgreSQL's search orders
// them.
func (r ranking) best(n int) []scoredKey {
	out := make([]scoredKey, 0, len(r))
	for k, s := range r {
		out = append(out, scoredKey{k, s})
	}
	slices.SortFunc(out, func(a, b scoredKey) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(b.key, a.key))
	})
	return out[:min(n, len(out))]
}

type scoredKey struct {
	key   int64
	score float64
}

// messagesByKey reads the messages of keys, in one statement, and returns them as hits
// in the order of keys. A key whose message is gone is left out.
func (db *DB) messagesByKey(ctx context.Context, agent string, keys []scoredKey) ([]mynah.SearchHit, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	sorted := make([]int64, len(keys))
	for i, k := range keys {
		sorted[i] = k.key
	}
	slices.Sort(sorted)
	var arr strings.Builder
	arr.WriteByte('[')
	for i, k := range sorted {
		if i > 0 {
			arr.WriteByte(',')
		}
		arr.WriteString(strconv.FormatInt(k, 10))
	}
	arr.WriteByte(']')
	rows, err := db.stmts.messagesByKey.QueryContext(ctx, arr.String())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byKey := make(map[int64]mynah.Message, len(keys))
	for rows.Next() {
		var key int64
		m, err := scanMessage(agent, keyScanner{rows, &key})
		if err != nil {
			return nil, err
		}
		byKey[key] = m
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	hits := make([]mynah.SearchHit, 0, len(keys))
	for _, k := range keys {
		if m, ok := byKey[k.key]; ok {
			hits = append(hits, mynah.SearchHit{Message: m, Score: k.score})
		}
	}
	return hits, nil
}

// keyScanner scans a message row followed by its index key.
type keyScanner struct {
	rows *sql.Rows
	key  *int64
}

func (s keyScanner) Scan(dest ...any) error { return s.rows.Scan(append(dest, s.key)...) }

// How many matches in the scope make a term common or very common. Ranking every match
// of a term is what makes a search slow (BM25 costs ~2.5 µs a match: 80 ms for a term in
// a third of 100,000 messages). So only the rare terms' matches are all ranked; a common
// term adds its weight to the messages where it meets a rare term (the second query of
// SearchHistory), which gives those messages their whole BM25 score at the cost of the
// meetings alone; a very common one (in a fifth of a chat of 100,000 messages) is left
// out, a stop word found in the data rather than listed. A query made only of common
// terms ranks the newest termcount.RecentMatches matches of any of them and of the least
// common meeting another: such a query says little, and in a chat the newest matches are
// the likely ones. Scopes below termcount.Common messages, the usual chat, are searched
// exactly.
//
// termcount.VeryCommon was 2,000 (2% of 100,000 messages): fast, but in a long chat-assistant
// history, where an answer of 400 words holds 200 different words, a question's telling
// words ("paint", "birthday") are in 2% of the messages, and were dropped. Each LoCoMo
// conversation hidden in 100,000 messages of the others, spoken by its own two speakers
// (TestLoCoMoHaystack): turn recall@10 over categories 1-4 0.133 with 2,000 (0.145 with
// 5,000, 0.149 with 10,000, 0.155 with 20,000, 0.150 with no bound), against the
// reference BM25's 0.126, which single-hop questions were below with 2,000 (0.147 against
// 0.148) and are now above (0.175). TestLoCoMoBigChat 0.711 / 0.712 -> 0.722 / 0.746,
// TestLongTurns up by 0.010-0.030 in each of its eight settings; LoCoMo itself unchanged.
// The price is paid in the largest chats: BenchmarkSearch's CPU a search 5.3-6.0 ->
// 7.7-8.6 ms, p95 8.8-10.5 -> 13.7-14.7 ms; mynah memory search on 100,000 messages p50
// unchanged (74-80 ms), p95 88-105 -> 98-119 ms.
// The thresholds are termcount's (Common, VeryCommon, RecentMatches), shared with the
// PostgreSQL store.

// termsByCount returns terms (corrected: below), the rare and the common ones (least
// common first), and whether some are common or very common, by their matches in cols of
// the scope (termcount.Split) but the previous column (saidColumns). Each probe stops at
// termcount.VeryCommon matches, so it costs at most that; its count is remembered (see
// termcount.Cache) while it still decides the same, so a chat's usual words are probed
// once. With typos, the longest terms that match nothing are replaced by their
// corrections (see correctAll).
func (db *DB) termsByCount(ctx context.Context, terms, cols []string, lo, hi, mark int64, typos bool) (corrected, rare, common []string, partial bool, err error) {
	cols = saidColumns(cols)
	counts := make([]int64, len(terms))
	for i, t := range terms {
		if counts[i], err = db.count(ctx, t, cols, lo, hi, mark); err != nil {
			return nil, nil, nil, false, err
		}
	}
	if typos && slices.Contains(counts, 0) {
		if terms, counts, err = db.correctAll(ctx, terms, counts, cols, lo, hi, mark); err != nil {
			return nil, nil, nil, false, err
		}
	}
	rareAt, commonAt, partial := termcount.Split(counts)
	for _, i := range rareAt {
		rare = append(rare, terms[i])
	}
	for _, i := range commonAt {
		common = append(common, terms[i])
	}
	return terms, rare, common, partial, nil
}

// saidColumns are cols without the previous column: a term is counted in the messages
// that say it (and their senders' names), not again in the conversation before each
// message, which holds the words of the one before it. Counted there too, a word of a
// big chat was about twice as common as it is, crossed termcount.Common at half the
// matches, and was ranked only in its newest matches: TestLoCoMoBigChat's half A lost
// 0.022 of recall@10 (0.745 against 0.767 counted in the messages that say it), temporal
// questions 0.022 on both halves. Ranking the matches of a rare term costs more (~20%
// more CPU a search in BenchmarkSearch); LoCoMo's halves are as they were.
func saidColumns(cols []string) []string {
	return slices.DeleteFunc(slices.Clone(cols), func(c string) bool { return c == "previous" })
}

// count returns how many matches term has in cols of the scope, up to termcount.VeryCommon:
// probed, or remembered from an earlier probe (see termcount.Cache; the mark is the
// index's, see indexPending).
func (db *DB) count(ctx context.Context, term string, cols []string, lo, hi, mark int64) (int64, error) {
	m := matchExpr([]string{term}, cols)
	if m == "" {
		return 0, nil
	}
	key := termKey{lo: lo, hi: hi, match: m}
	n, ok := db.terms.Get(key, mark)
	if !ok {
		if err := db.stmts.probe.QueryRowContext(ctx, m, lo, hi, termcount.VeryCommon).Scan(&n); err != nil {
			return 0, err
		}
		db.terms.Put(key, n, mark)
	}
	return n, nil
}

// termKey is a term's probe: its match expression in a scope.
type termKey struct {
	lo, hi int64
	match  string
}

// searchRange returns the index keys of agent's chat, or of all agent's chats when chat is
// 0; sql.ErrNoRows when the index has none.
func (db *DB) searchRange(ctx context.Context, agent string, chat mynah.ChatID) (lo, hi int64, err error) {
	if chat != 0 {
		var scope int64
		err = db.stmts.chatScope.QueryRowContext(ctx, agent, int64(chat)).Scan(&scope)
		return scope << messageBits, (scope+1)<<messageBits - 1, err
	}
	var no int64
	err = db.stmts.agentScope.QueryRowContext(ctx, agent).Scan(&no)
	return no << (chatBits + messageBits), (no+1)<<(chatBits+messageBits) - 1, err
}

// matchExpr is terms as an FTS5 query: each term a quoted string (quotes doubled), OR-ed,
// searched in cols only: a column weighted 0 must not bring in matches that score 0. With
// every column of the message index in cols there is no filter: FTS5 would check each
// match's columns against it for nothing.
func matchExpr(terms []string, cols []string) string {
	var b strings.Builder
	for _, t := range terms {
		if strings.TrimSpace(t) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(`"` + strings.ReplaceAll(t, `"`, `""`) + `"`)
	}
	if b.Len() == 0 {
		return ""
	}
	if slices.Equal(cols, allColumns) {
		return b.String()
	}
	return "{" + strings.Join(cols, " ") + "} : (" + b.String() + ")"
}

// Around returns message id of agent's chat with up to before messages preceding it and up
// to after following it, oldest first. When id is not stored, the neighbours of where it
// would be are returned. It costs O(before + after).
func (db *DB) Around(ctx context.Context, agent string, chat mynah.ChatID, id mynah.MessageID, before, after int) ([]mynah.Message, error) {
	var out []mynah.Message
	read := func(st *stmt, limit int) error {
		rows, err := st.QueryContext(brief(ctx), agent, int64(chat), int64(id), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			m, err := scanMessage(agent, rows)
			if err != nil {
				return err
			}
			out = append(out, m)
		}
		return rows.Err()
	}
	if before > 0 {
		if err := read(db.stmts.before, before); err != nil {
			return nil, fail(ctx, err, "messages around %d in chat %d of %s", id, chat, agent)
		}
		slices.Reverse(out)
	}
	n := len(out)
	if err := read(db.stmts.from, max(after, 0)+1); err != nil {
		return nil, fail(ctx, err, "messages around %d in chat %d of %s", id, chat, agent)
	}
	if len(out) > n && out[n].ID != id && len(out)-n > max(after, 0) {
		out = out[:len(out)-1] // id is not stored: keep after messages after it
	}
	return out, nil
}
