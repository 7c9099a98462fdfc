package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah/internal/postgres"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

func storeCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Work on the store: move an installation between SQLite and PostgreSQL",
	}
	cmd.AddCommand(storeCopyCommand())
	return cmd
}

func storeCopyCommand() *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "copy --from sqlite:PATH --to postgres://…",
		Short: "Copy every stored row from one store to another (SQLite ⇄ PostgreSQL)",
		Long: `Copy every stored row from one store to another: an installation's SQLite file
(sqlite:PATH, e.g. sqlite:data/mynah.db) into a PostgreSQL database (postgres://…), or back.

The copy is idempotent and resumable: rows are copied table by table in key order, in
batches of one transaction each, and a row the target holds already is kept as it is, so
running it again (after an interruption, or to catch up on what a running instance stored
meanwhile) copies only what is missing. The target's derived data is rebuilt at the end
(the search index, PostgreSQL's id sequences); note indexes are rebuilt from the note files
by serve. Finally each table's rows are counted on both sides.

To switch a running installation: copy while it runs, stop it, copy again (this copies
only the last minutes), set store: in mynah.yaml (or MYNAH_DATABASE_URL), start it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return usageError{errors.New("--from and --to are required")}
			}
			return storeCopy(cmd.Context(), from, to, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the store to copy: sqlite:PATH or postgres://…")
	cmd.Flags().StringVar(&to, "to", "", "the store to copy into: sqlite:PATH or postgres://…")
	return cmd
}

// copyTable is one table as both stores hold it: the same name and columns, with the
// booleans PostgreSQL types as boolean and SQLite as 0 or 1.
type copyTable struct {
	name  string
	cols  []string
	key   []string // the primary key: the copy's order
	bools []string
	// mirror marks the tables mynah deletes rows of (a fact forgotten, a media file
	// described, a description an operator dropped, a member a crew no longer lists): a row the source no longer holds is
	// deleted from the target too, so that a second copy does not bring a forgotten fact
	// back.
	mirror bool
}

// copyTables are the tables a copy moves, parents before children (foreign keys). The
// derived tables are not among them: the search indexes are rebuilt from the messages,
// the notes index from the note files, and the embedders' cursors start over (a vector
// already computed is found by its text and not computed again).
func copyTables() []copyTable {
	table := func(name, cols, key, bools string) copyTable {
		return copyTable{name: name, cols: strings.Fields(cols), key: strings.Fields(key), bools: strings.Fields(bools),
			mirror: name == "facts" || name == "media_notes" || name == "media_queue" || name == "crew_members"}
	}
	return []copyTable{
		table("chats", "agent chat_id type title username is_forum updated_at", "agent chat_id", "is_forum"),
		table("users", "agent user_id first_name last_name username is_bot updated_at", "agent user_id", "is_bot"),
		table("messages", "agent chat_id message_id thread_id sender_id sender_first_name sender_last_name sender_username sender_is_bot time edited text entities reply_to forward media outgoing stored_at", "agent chat_id message_id", "sender_is_bot outgoing"),
		table("sessions", "id agent chat_id thread_id start_id started", "id", ""),
		table("updates", "agent update_id accepted_at", "agent update_id", ""),
		table("turns", "id agent chat_id thread_id target static reply_to created done_at not_before buttons edit_id due preview_id", "id", ""),
		table("outbox", "id agent chat_id thread_id key html plain reply_to turn_id created sent_at tg_message_id failed_at failed_reason kind task attempts", "id", ""),
		table("usage", "id agent chat_id model input_tokens output_tokens cached_tokens time", "id", ""),
		table("chat_state", "agent chat_id blocked updated_at", "agent chat_id", "blocked"),
		table("prompts", "agent turn_id chat_id model composition input_tokens output_tokens cached_tokens time", "agent turn_id", ""),
		table("pairings", "code agent user_id first_name last_name username created expires approved_at", "code", ""),
		table("chat_modes", "agent chat_id trigger stopped updated_at", "agent chat_id", "stopped"),
		table("facts", "id agent user_id text norm chat_id message_id created scope", "id", ""),
		table("fact_removals", "agent key user_id fact_id count at", "agent key", ""),
		table("summaries", "id agent chat_id thread_id kind first_id last_id period_start period_end text model created", "id", ""),
		table("summary_flushes", "agent chat_id thread_id first_id at", "agent chat_id thread_id first_id", ""),
		table("vectors", "id model hash data", "id", ""),
		table("vector_items", "seq agent model kind chat_id item_id time vector_id", "seq", ""),
		table("group_access", "agent chat_id title added_by added_by_first_name added_by_last_name added_by_username added_at approved_at approved_by noticed_at created", "agent chat_id", ""),
		table("media_notes", "unique_id kind set_name emoji status description problem source attempts updated", "unique_id", ""),
		table("media_queue", "id agent chat_id message_id due", "id", ""),
		table("token_calibration", "agent model state updated", "agent model", ""),
		table("crew_states", "crew chat_id thread_id version cycle active round next closing turn_id outcome target asked replied spoke passed failed ended command session updated", "crew chat_id", "active closing"),
		table("crew_members", "crew chat_id agent position last_seen turns", "crew chat_id agent", ""),
		table("model_sessions", "key session_id seen turns started used", "key", ""),
	}
}

// derivedTables are the tables a copy leaves out on purpose (see copyTables).
var derivedTables = []string{"schema_migrations", "search_agents", "search_chats", "search_progress", "message_search", "search_rebuild",
	"note_files", "note_chunks", "note_search", "vector_progress"}

// copyBatch is how many rows one transaction of the copy writes.
const copyBatch = 500

// storeCopy copies from into to (see storeCopyCommand), reporting progress on stderr and
// the final counts on out.
func storeCopy(ctx context.Context, from, to string, out, stderr io.Writer) error {
	if strings.TrimPrefix(from, "sqlite:") == strings.TrimPrefix(to, "sqlite:") {
		return usageError{errors.New("--from and --to name the same store")}
	}
	src, err := openCopyEnd(ctx, from, false)
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	defer src.close()
	dst, err := openCopyEnd(ctx, to, true)
	if err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	defer dst.close()
	tables := copyTables()
	if have, err := src.tables(ctx); err == nil {
		for _, name := range have {
			if !slices.ContainsFunc(tables, func(t copyTable) bool { return t.name == name }) && !slices.Contains(derivedTables, name) &&
				!strings.HasPrefix(name, "message_search_") && !strings.HasPrefix(name, "note_search_") && !strings.HasPrefix(name, "sqlite_") {
				fmt.Fprintf(stderr, "warning: table %s of %s is not copied: this mynah does not know it\n", name, src.name())
			}
		}
	}
	for _, t := range tables {
		total, err := src.count(ctx, t.name)
		if err != nil {
			return err
		}
		prog := newProgress(stderr, "copying "+t.name)
		prog.report(0, int(total))
		var after []any
		done := 0
		for {
			rows, err := src.page(ctx, t, after, copyBatch)
			if err != nil {
				return fmt.Errorf("reading %s of %s: %w", t.name, src.name(), err)
			}
			if len(rows) == 0 {
				break
			}
			if err := dst.insert(ctx, t, rows); err != nil {
				return fmt.Errorf("writing %s into %s: %w", t.name, dst.name(), err)
			}
			done += len(rows)
			prog.report(min(done, int(total)), int(total))
			after = keyOf(t, rows[len(rows)-1])
		}
		prog.done()
		if t.mirror {
			if err := mirror(ctx, t, src, dst); err != nil {
				return fmt.Errorf("removing from %s the %s the source no longer holds: %w", dst.name(), t.name, err)
			}
		}
	}
	if err := dst.finish(ctx, stderr); err != nil {
		return err
	}
	return checkCounts(ctx, tables, src, dst, out)
}

// mirror deletes from dst the rows of t whose keys src does not hold.
func mirror(ctx context.Context, t copyTable, src, dst copyEnd) error {
	keys := copyTable{name: t.name, cols: t.key, key: t.key}
	all := func(e copyEnd) ([][]any, error) {
		var out [][]any
		var after []any
		for {
			rows, err := e.page(ctx, keys, after, 10*copyBatch)
			if err != nil || len(rows) == 0 {
				return out, err
			}
			out = append(out, rows...)
			after = rows[len(rows)-1]
		}
	}
	have, err := all(src)
	if err != nil {
		return err
	}
	held := make(map[string]bool, len(have))
	for _, k := range have {
		held[fmt.Sprint(k...)] = true
	}
	theirs, err := all(dst)
	if err != nil {
		return err
	}
	var gone [][]any
	for _, k := range theirs {
		if !held[fmt.Sprint(k...)] {
			gone = append(gone, k)
		}
	}
	return dst.remove(ctx, t, gone)
}

// checkCounts prints each table's rows on both sides and fails when the target holds
// fewer than the source.
func checkCounts(ctx context.Context, tables []copyTable, src, dst copyEnd, out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "table\t%s\t%s\t\t\n", src.name(), dst.name())
	var short []string
	for _, t := range tables {
		a, err := src.count(ctx, t.name)
		if err != nil {
			return err
		}
		b, err := dst.count(ctx, t.name)
		if err != nil {
			return err
		}
		verdict := "ok"
		if b < a {
			verdict = fmt.Sprintf("MISSING %d", a-b)
			short = append(short, t.name)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t\n", t.name, a, b, verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(short) > 0 {
		return fmt.Errorf("the target holds fewer rows than the source in %s: run the copy again (rows stored meanwhile by a running instance are copied then)", strings.Join(short, ", "))
	}
	return nil
}

// keyOf returns the key columns of row, a row of t.cols.
func keyOf(t copyTable, row []any) []any {
	key := make([]any, len(t.key))
	for i, k := range t.key {
		key[i] = row[slices.Index(t.cols, k)]
	}
	return key
}

// copyEnd is one side of a copy.
type copyEnd interface {
	name() string
	tables(ctx context.Context) ([]string, error)
	count(ctx context.Context, table string) (int64, error)
	// page returns up to limit rows of t.cols after the key after (nil: from the
	// start), in key order.
	page(ctx context.Context, t copyTable, after []any, limit int) ([][]any, error)
	// insert writes rows in one transaction, keeping rows whose key (or any unique key)
	// is held already.
	insert(ctx context.Context, t copyTable, rows [][]any) error
	// remove deletes the rows of t with keys, in one transaction.
	remove(ctx context.Context, t copyTable, keys [][]any) error
	// finish rebuilds what the copy left out.
	finish(ctx context.Context, stderr io.Writer) error
	close() error
}

// openCopyEnd opens sqlite:PATH or a postgres:// URL, migrated to this binary's schema.
// A SQLite source must exist; a target is created when missing.
func openCopyEnd(ctx context.Context, spec string, create bool) (copyEnd, error) {
	switch {
	case postgres.IsURL(spec):
		db, err := postgres.Open(ctx, spec, postgres.Options{})
		if err != nil {
			return nil, err
		}
		return &pgEnd{db: db}, nil
	case strings.HasPrefix(spec, "sqlite:"):
		path := strings.TrimPrefix(spec, "sqlite:")
		if _, err := os.Stat(path); err != nil && !create {
			return nil, fmt.Errorf("no SQLite database at %s", path)
		}
		db, err := sqlite.Open(ctx, path) // migrates; the rows are then read and written beside it
		if err != nil {
			return nil, err
		}
		raw, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_txlock=immediate")
		if err != nil {
			db.Close()
			return nil, err
		}
		raw.SetMaxOpenConns(1)
		return &sqliteEnd{db: db, raw: raw, path: path}, nil
	}
	return nil, fmt.Errorf("%q: want sqlite:PATH or postgres://…", postgres.Redact(spec))
}

// sqliteEnd is a SQLite file.
type sqliteEnd struct {
	db   *sqlite.DB
	raw  *sql.DB
	path string
}

func (e *sqliteEnd) name() string { return "sqlite:" + e.path }

func (e *sqliteEnd) tables(ctx context.Context) ([]string, error) {
	rows, err := e.raw.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func (e *sqliteEnd) count(ctx context.Context, table string) (int64, error) {
	var n int64
	err := e.raw.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n)
	return n, err
}

func (e *sqliteEnd) page(ctx context.Context, t copyTable, after []any, limit int) ([][]any, error) {
	rows, err := e.raw.QueryContext(ctx, pageQuery(t, after != nil, func(int) string { return "?" }), append(after, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		row := make([]any, len(t.cols))
		ptrs := make([]any, len(row))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

func (e *sqliteEnd) insert(ctx context.Context, t copyTable, rows [][]any) error {
	tx, err := e.raw.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	stmt, err := tx.PrepareContext(ctx, upsertQuery(t, 1, func(int) string { return "?" }, "IS NOT"))
	if err != nil {
		return err
	}
	for _, row := range rows {
		vals := slices.Clone(row)
		for i, v := range vals {
			if b, ok := v.(bool); ok { // from PostgreSQL: SQLite keeps 0 or 1
				vals[i] = map[bool]int64{false: 0, true: 1}[b]
			}
		}
		if _, err := stmt.ExecContext(ctx, vals...); err != nil {
			return fmt.Errorf("row %v: %w", keyOf(t, row), err)
		}
	}
	return tx.Commit()
}

func (e *sqliteEnd) remove(ctx context.Context, t copyTable, keys [][]any) error {
	tx, err := e.raw.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, deleteQuery(t, func(int) string { return "?" }), k...); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (e *sqliteEnd) finish(ctx context.Context, stderr io.Writer) error {
	prog := newProgress(stderr, "indexing for search")
	_, err := e.db.IndexPendingFunc(ctx, prog.report)
	prog.done()
	return err
}

func (e *sqliteEnd) close() error { return errors.Join(e.raw.Close(), e.db.Close()) }

// pgEnd is a PostgreSQL database.
type pgEnd struct{ db *postgres.DB }

func (e *pgEnd) name() string { return e.db.String() }

func (e *pgEnd) tables(ctx context.Context) ([]string, error) {
	rows, err := e.db.Pool().Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func (e *pgEnd) count(ctx context.Context, table string) (int64, error) {
	var n int64
	err := e.db.Pool().QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n)
	return n, err
}

func (e *pgEnd) page(ctx context.Context, t copyTable, after []any, limit int) ([][]any, error) {
	rows, err := e.db.Pool().Query(ctx, pageQuery(t, after != nil, func(i int) string { return fmt.Sprintf("$%d", i) }), append(after, limit)...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
}

func (e *pgEnd) insert(ctx context.Context, t copyTable, rows [][]any) error {
	values := func(row []any) []any {
		out := slices.Clone(row)
		for i, v := range out {
			if n, ok := v.(int64); ok && slices.Contains(t.bools, t.cols[i]) { // from SQLite's 0 or 1
				out[i] = n != 0
			}
		}
		return out
	}
	query := func(n int) string {
		q := upsertQuery(t, n, func(i int) string { return fmt.Sprintf("$%d", i) }, "IS DISTINCT FROM")
		if t.name == "messages" {
			// The search entry of a message changed since the last copy is dropped here,
			// and written anew by Rebuild.
			q = `WITH up AS (` + q + ` RETURNING agent, chat_id, message_id, xmax <> 0 AS updated)
				DELETE FROM message_search s USING up
				WHERE up.updated AND s.agent = up.agent AND s.chat_id = up.chat_id AND s.message_id = up.message_id`
		}
		return q
	}
	var args []any
	for _, row := range rows {
		args = append(args, values(row)...)
	}
	if _, err := e.db.Pool().Exec(ctx, query(len(rows)), args...); err != nil {
		// Find the row PostgreSQL refuses (text with a NUL byte, say), to name it.
		for _, row := range rows {
			if _, err1 := e.db.Pool().Exec(ctx, query(1), values(row)...); err1 != nil {
				return fmt.Errorf("row %v: %w", keyOf(t, row), err1)
			}
		}
		return err
	}
	return nil
}

func (e *pgEnd) remove(ctx context.Context, t copyTable, keys [][]any) error {
	return pgx.BeginFunc(ctx, e.db.Pool(), func(tx pgx.Tx) error {
		for _, k := range keys {
			if _, err := tx.Exec(ctx, deleteQuery(t, func(i int) string { return fmt.Sprintf("$%d", i) }), k...); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *pgEnd) finish(ctx context.Context, stderr io.Writer) error {
	prog := newProgress(stderr, "indexing for search")
	err := e.db.Rebuild(ctx, prog.report)
	prog.done()
	return err
}

func (e *pgEnd) close() error { return e.db.Close() }

// pageQuery is the keyset query of one page of t: after the key bound first (when
// bounded), the limit last; param numbers its parameters from 1.
func pageQuery(t copyTable, bounded bool, param func(int) string) string {
	q := `SELECT ` + strings.Join(t.cols, ", ") + ` FROM ` + t.name
	n := 0
	if bounded {
		ps := make([]string, len(t.key))
		for i := range ps {
			n++
			ps[i] = param(n)
		}
		q += ` WHERE (` + strings.Join(t.key, ", ") + `) > (` + strings.Join(ps, ", ") + `)`
	}
	return q + ` ORDER BY ` + strings.Join(t.key, ", ") + ` LIMIT ` + param(n+1)
}

// deleteQuery deletes the row of t with a key.
func deleteQuery(t copyTable, param func(int) string) string {
	conds := make([]string, len(t.key))
	for i, k := range t.key {
		conds[i] = k + " = " + param(i+1)
	}
	return `DELETE FROM ` + t.name + ` WHERE ` + strings.Join(conds, " AND ")
}

// upsertQuery writes rows rows of t.cols: a row whose key is stored already is
// overwritten with the source's values when they differ (a turn finished, a part sent, a
// message edited since the last copy), so the target ends up as the source is. distinct
// is the dialect's null-safe inequality (IS NOT, IS DISTINCT FROM).
func upsertQuery(t copyTable, rows int, param func(int) string, distinct string) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO ` + t.name + ` AS t (` + strings.Join(t.cols, ", ") + `) VALUES `)
	n := 0
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range t.cols {
			if c > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString(param(n))
		}
		b.WriteByte(')')
	}
	var set, changed []string
	for _, c := range t.cols {
		if !slices.Contains(t.key, c) {
			set = append(set, c+" = excluded."+c)
			changed = append(changed, "t."+c+" "+distinct+" excluded."+c)
		}
	}
	b.WriteString(` ON CONFLICT (` + strings.Join(t.key, ", ") + `) `)
	if len(set) == 0 {
		b.WriteString(`DO NOTHING`)
		return b.String()
	}
	b.WriteString(`DO UPDATE SET ` + strings.Join(set, ", ") + ` WHERE ` + strings.Join(changed, " OR "))
	return b.String()
}
