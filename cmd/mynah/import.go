package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/telegram/tgexport"
)

type importFlags struct {
	agentFlags
	Chat    int64
	SkipBad bool
}

func importCommand() *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "import FILE.jsonl",
		Short: "Import past messages into an agent's history",
		Long: `Import past messages of one chat into an agent's history, stored exactly like messages
that arrived live: they become history, recall and summaries like any other.

FILE.jsonl holds one JSON object per line: "id" (integer, unique in the chat), "time"
(RFC 3339), "sender_id" (integer), "sender_name" (string), "text" (string) and optionally
"reply_to" (integer).

The whole file is checked first. A bad line stops the import before anything is stored,
with every bad line reported; --skip-bad imports the good lines and reports the others.
Messages already stored are left as they are, so running an import again adds nothing.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.Chat == 0 {
				return usageError{errors.New("--chat is required")}
			}
			src := jsonlSource(args[0])
			return runImport(cmd.Context(), f, chatFromID(mynah.ChatID(f.Chat)), src, cmd.ErrOrStderr())
		},
	}
	addImportFlags(cmd, &f)
	cmd.Flags().Int64Var(&f.Chat, "chat", 0, "chat id the messages belong to")
	cmd.AddCommand(importTelegramCommand())
	return cmd
}

func importTelegramCommand() *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "telegram-export result.json",
		Short: "Import a chat exported by Telegram Desktop (JSON format)",
		Long: `Import one chat exported by Telegram Desktop (Export chat history, format JSON) into an
agent's history. Service messages (joins, pins, calls) are skipped. The chat id is the
export's, in the Bot API's form (-100… for supergroups and channels); --chat overrides it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			chat, err := telegramExportChat(args[0])
			if err != nil {
				return err
			}
			if f.Chat != 0 {
				chat.ID = mynah.ChatID(f.Chat)
			}
			if chat.ID == 0 {
				return usageError{fmt.Errorf("%s has no chat id: pass --chat", args[0])}
			}
			return runImport(cmd.Context(), f, chat, telegramSource(args[0]), cmd.ErrOrStderr())
		},
	}
	addImportFlags(cmd, &f)
	cmd.Flags().Int64Var(&f.Chat, "chat", 0, "chat id to store the messages under (default: the export's)")
	return cmd
}

func addImportFlags(cmd *cobra.Command, f *importFlags) {
	f.register(cmd, "agent (default: the first)")
	cmd.Flags().BoolVar(&f.SkipBad, "skip-bad", false, "import the valid messages even when some are invalid")
}

// runImport imports src into chat for the configured agent, creating the database when
// it does not exist yet (history can be imported before the agent ever runs).
func runImport(ctx context.Context, f importFlags, chat mynah.Chat, src messageSource, stderr io.Writer) error {
	cfg, a, err := loadPicked(f.agentFlags, loadOptions{NoKeys: true})
	if err != nil {
		return err
	}
	plan, err := checkImport(ctx, src, f.SkipBad)
	if err != nil {
		return err
	}
	db, err := openStore(ctx, cfg, true)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := plan.store(ctx, db, a.Name, botID(a), chat, newProgress(stderr))
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "imported %d new messages into chat %d of %s (%d already stored", st.Added, chat.ID, a.Name, st.Valid-st.Added)
	if st.Bad > 0 {
		fmt.Fprintf(stderr, ", %d invalid skipped", st.Bad)
	}
	fmt.Fprintln(stderr, ")")
	return nil
}

// botID is the agent's own Telegram user id, the number its bot token starts with; 0
// when the token is not at hand.
func botID(a agentConfig) mynah.UserID {
	id, _, _ := strings.Cut(string(a.TelegramToken), ":")
	n, _ := strconv.ParseInt(id, 10, 64)
	return mynah.UserID(n)
}

// chatFromID is a chat known only by its id: positive ids are private chats, -100… ids
// supergroups, other negative ids basic groups (the Bot API's conventions).
func chatFromID(id mynah.ChatID) mynah.Chat {
	switch {
	case id > 0:
		return mynah.Chat{ID: id, Type: mynah.ChatPrivate}
	case id < -1_000_000_000_000:
		return mynah.Chat{ID: id, Type: mynah.ChatSupergroup}
	}
	return mynah.Chat{ID: id, Type: mynah.ChatGroup}
}

// messageSource yields the messages of an import in order, each with where it came from
// ("line 12") and its parse error, if any; it can be run more than once. yield returns
// false to stop early.
type messageSource func(yield func(pos string, m mynah.Message, err error) bool) error

type importStats struct{ Valid, Bad, Added int }

// importBatch is how many messages one transaction stores: large enough that commits
// do not dominate, small enough that progress moves and memory stays flat.
const importBatch = 1000

// importPlan is an import whose messages were all read and checked.
type importPlan struct {
	src      messageSource
	stats    importStats
	problems []string
	first    map[mynah.MessageID]string // where each valid id first appears
}

// checkImport reads every message of src, collecting what is wrong with each bad one (a
// repeated id included). Unless skipBad, one bad message fails the import before anything
// is stored, with every problem listed.
func checkImport(ctx context.Context, src messageSource, skipBad bool) (*importPlan, error) {
	p := &importPlan{src: src, first: map[mynah.MessageID]string{}}
	err := src(func(pos string, m mynah.Message, err error) bool {
		if err == nil {
			if first, dup := p.first[m.ID]; dup {
				err = fmt.Errorf("id %d repeats the message of %s", m.ID, first)
			}
		}
		if err != nil {
			p.stats.Bad++
			p.problems = append(p.problems, pos+": "+err.Error())
			return true
		}
		p.first[m.ID] = pos
		p.stats.Valid++
		return ctx.Err() == nil
	})
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	if len(p.problems) > 0 && !skipBad {
		return nil, fmt.Errorf("nothing imported: %d invalid messages (--skip-bad imports the rest):\n  %s", len(p.problems), listProblems(p.problems))
	}
	return p, nil
}

// store stores the plan's valid messages in batches through the store's import (the path
// live messages take). A message whose sender is the agent's bot (self) is stored as
// the agent's own, outgoing.
func (p *importPlan) store(ctx context.Context, st mynah.HistoryImport, agent string, self mynah.UserID, chat mynah.Chat, prog *progress) (importStats, error) {
	stats := p.stats
	if len(p.problems) > 0 {
		prog.note(fmt.Sprintf("skipping %d invalid messages:\n  %s", len(p.problems), listProblems(p.problems)))
	}
	prog.start(stats.Valid)
	batch := make([]mynah.Message, 0, importBatch)
	flush := func() error {
		n, err := st.ImportMessages(ctx, agent, chat, batch)
		stats.Added += n
		prog.add(len(batch))
		batch = batch[:0]
		return err
	}
	pending := maps.Clone(p.first)
	var storeErr error
	err := p.src(func(_ string, m mynah.Message, err error) bool {
		if err != nil || pending[m.ID] == "" {
			return true
		}
		delete(pending, m.ID) // a repeat of this id later on was reported and is skipped
		m.Outgoing = self != 0 && m.Sender.ID == self
		batch = append(batch, m)
		if len(batch) == importBatch {
			storeErr = flush()
		}
		return storeErr == nil
	})
	if err == nil && storeErr == nil && len(batch) > 0 {
		storeErr = flush()
	}
	prog.done()
	return stats, errors.Join(err, storeErr)
}

// listProblems shows the first problems of an import, one per line.
func listProblems(ps []string) string {
	const shown = 20
	if len(ps) <= shown {
		return strings.Join(ps, "\n  ")
	}
	return strings.Join(ps[:shown], "\n  ") + fmt.Sprintf("\n  … and %d more", len(ps)-shown)
}

// jsonlRecord is one line of a JSONL import.
type jsonlRecord struct {
	ID         *int64  `json:"id"`
	Time       *string `json:"time"`
	SenderID   *int64  `json:"sender_id"`
	SenderName *string `json:"sender_name"`
	Text       *string `json:"text"`
	ReplyTo    int64   `json:"reply_to"`
}

// maxMessageID bounds ids: Telegram's are 32-bit, and the history index keys on it.
const maxMessageID = 1<<31 - 1

func jsonlSource(path string) messageSource {
	return func(yield func(string, mynah.Message, error) bool) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		r := bufio.NewReaderSize(f, 1<<16)
		for n := 1; ; n++ {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				m, perr := parseJSONL(line)
				if !yield("line "+strconv.Itoa(n), m, perr) {
					return nil
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("reading %s: %w", path, err)
			}
		}
	}
}

func parseJSONL(line []byte) (mynah.Message, error) {
	var r jsonlRecord
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return mynah.Message{}, fmt.Errorf("not a JSON object of the import format: %w", err)
	}
	switch {
	case r.ID == nil:
		return mynah.Message{}, errors.New(`"id" is missing`)
	case *r.ID <= 0 || *r.ID > maxMessageID:
		return mynah.Message{}, fmt.Errorf(`"id" %d is not between 1 and %d`, *r.ID, maxMessageID)
	case r.Time == nil:
		return mynah.Message{}, errors.New(`"time" is missing`)
	case r.SenderID == nil || *r.SenderID == 0:
		return mynah.Message{}, errors.New(`"sender_id" is missing or 0`)
	case r.Text == nil:
		return mynah.Message{}, errors.New(`"text" is missing`)
	case r.ReplyTo < 0:
		return mynah.Message{}, fmt.Errorf(`"reply_to" %d is negative`, r.ReplyTo)
	}
	t, err := time.Parse(time.RFC3339, *r.Time)
	if err != nil {
		return mynah.Message{}, fmt.Errorf(`"time" %q is not RFC 3339 (like 2024-05-01T18:30:00Z)`, *r.Time)
	}
	name := ""
	if r.SenderName != nil {
		name = *r.SenderName
	}
	m := mynah.Message{ID: mynah.MessageID(*r.ID), Time: t.UTC(), Sender: senderNamed(mynah.UserID(*r.SenderID), name), Text: *r.Text}
	if r.ReplyTo != 0 {
		m.ReplyTo = &mynah.ReplyRef{ID: mynah.MessageID(r.ReplyTo)}
	}
	return m, nil
}

// senderNamed is a user known by id and display name: the first word is the first name,
// so that "Alice Smith" reads back as Alice Smith and is addressed as Alice.
func senderNamed(id mynah.UserID, name string) mynah.User {
	first, last, _ := strings.Cut(strings.TrimSpace(name), " ")
	return mynah.User{ID: id, FirstName: first, LastName: strings.TrimSpace(last)}
}

// telegramExportChat reads the chat of the Telegram Desktop export at path.
func telegramExportChat(path string) (mynah.Chat, error) {
	var chat mynah.Chat
	err := readTelegramExport(path, func(r io.Reader) (err error) {
		chat, err = tgexport.ReadChat(r)
		return err
	})
	return chat, err
}

// telegramSource is the Telegram Desktop export at path as an import.
func telegramSource(path string) messageSource {
	return func(yield func(string, mynah.Message, error) bool) error {
		return readTelegramExport(path, func(r io.Reader) error { return tgexport.Decode(r, yield) })
	}
}

// readTelegramExport runs read on the file at path, naming the file when it is not an export.
func readTelegramExport(path string, read func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	err = read(f)
	if fe := (*tgexport.FormatError)(nil); errors.As(err, &fe) {
		return fmt.Errorf("%s is %w", path, err)
	}
	return err
}

// progress shows how an import advances: a bar redrawn in place on a terminal; elsewhere
// (a log, a pipe) nothing until the caller's summary line. A nil *progress shows nothing.
type progress struct {
	w            io.Writer
	tty          bool
	total, count int
	last         time.Time
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) note(s string) {
	if p != nil {
		fmt.Fprintln(p.w, s)
	}
}

func (p *progress) start(total int) {
	if p != nil {
		p.total, p.count = total, 0
		p.draw(true)
	}
}

func (p *progress) add(n int) {
	if p != nil {
		p.count += n
		p.draw(false)
	}
}

func (p *progress) done() {
	if p != nil && p.tty {
		p.draw(true)
		fmt.Fprintln(p.w)
	}
}

func (p *progress) draw(force bool) {
	if !p.tty || (!force && time.Since(p.last) < 100*time.Millisecond) {
		return
	}
	p.last = time.Now()
	const width = 30
	frac := 1.0
	if p.total > 0 {
		frac = float64(p.count) / float64(p.total)
	}
	fill := int(frac * width)
	fmt.Fprintf(p.w, "\rimporting [%s%s] %3.0f%% %d/%d", strings.Repeat("#", fill), strings.Repeat(".", width-fill), frac*100, p.count, p.total)
}
