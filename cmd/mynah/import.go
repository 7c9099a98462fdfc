package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/ingest"
	"github.com/mynah-ai/mynah/internal/postgres"
	"github.com/mynah-ai/mynah/internal/sqlite"
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
			return runImport(cmd.Context(), f, mynah.ChatFromID(mynah.ChatID(f.Chat)), ingest.JSONL(args[0]), cmd.ErrOrStderr())
		},
	}
	addImportFlags(cmd, &f)
	cmd.Flags().Int64Var(&f.Chat, "chat", 0, "chat id the messages belong to")
	cmd.AddCommand(importTelegramCommand())
	return cmd
}

func importTelegramCommand() *cobra.Command {
	var f importFlags
	var chats []string
	var list bool
	cmd := &cobra.Command{
		Use:   "telegram-export result.json",
		Short: "Import a chat exported by Telegram Desktop (JSON format)",
		Long: `Import chats exported by Telegram Desktop (JSON format) into an agent's history.

A chat's export (Export chat history) is imported whole; its id is the export's, in the
Bot API's form (-100… for supergroups and channels), and --chat ID stores it under
another. A whole-account export (Settings → Advanced → Export Telegram data) holds every
chat: --list shows them, --chat ID|NAME (repeatable) imports the ones named.
Service messages (joins, pins, calls) are skipped.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, out := args[0], cmd.ErrOrStderr()
			chat, err := telegramExportChat(path)
			if fe := (*tgexport.FormatError)(nil); errors.As(err, &fe) {
				if accountErr := readTelegramExport(path, func(r io.Reader) error {
					return tgexport.ReadAccount(r, func(tgexport.AccountChat) bool { return false })
				}); accountErr == nil {
					return importAccount(cmd.Context(), f, path, chats, list, cmd.OutOrStdout(), out)
				}
			}
			if err != nil {
				return err
			}
			if list {
				fmt.Fprintf(cmd.OutOrStdout(), "%d\t%s\t%s\n", chat.ID, chat.Type, chat.Title)
				return nil
			}
			switch {
			case len(chats) > 1:
				return usageError{errors.New("a chat's export holds one chat: give --chat once, with the id to store it under")}
			case len(chats) == 1:
				id, err := strconv.ParseInt(chats[0], 10, 64)
				if err != nil {
					return usageError{fmt.Errorf("--chat %q: a chat's export takes the id to store it under", chats[0])}
				}
				chat.ID = mynah.ChatID(id)
			}
			if chat.ID == 0 {
				return usageError{fmt.Errorf("%s has no chat id: pass --chat", path)}
			}
			return runImport(cmd.Context(), f, chat, telegramSource(path), out)
		},
	}
	addImportFlags(cmd, &f)
	cmd.Flags().StringSliceVar(&chats, "chat", nil, "a chat's export: the chat id to store it under (default: the export's); a whole-account export: the chats to import, by id or name")
	cmd.Flags().BoolVar(&list, "list", false, "list the chats of the export and import nothing")
	return cmd
}

// importAccount lists the chats of the whole-account export at path, or imports those
// picked (by id or name, case-insensitive), each as its own chat.
func importAccount(ctx context.Context, f importFlags, path string, picks []string, list bool, stdout, stderr io.Writer) error {
	var all []tgexport.AccountChat
	if err := readTelegramExport(path, func(r io.Reader) error {
		return tgexport.ReadAccount(r, func(c tgexport.AccountChat) bool {
			all = append(all, tgexport.AccountChat{Chat: c.Chat, Name: c.Name, Messages: c.Messages})
			return true
		})
	}); err != nil {
		return err
	}
	if list || len(picks) == 0 {
		w := stdout
		if !list {
			w = stderr
		}
		for _, c := range all {
			fmt.Fprintf(w, "%d\t%s\t%d messages\t%s\n", c.Chat.ID, c.Chat.Type, c.Messages, c.Name)
		}
		if !list {
			return usageError{fmt.Errorf("%s is a whole-account export of %d chats (listed above): pick with --chat ID|NAME", path, len(all))}
		}
		return nil
	}
	for _, pick := range picks {
		i := slices.IndexFunc(all, func(c tgexport.AccountChat) bool {
			return strconv.FormatInt(int64(c.Chat.ID), 10) == pick || strings.EqualFold(c.Name, pick)
		})
		if i < 0 {
			return usageError{fmt.Errorf("--chat %q: no such chat in %s (--list shows them)", pick, path)}
		}
		want := all[i].Chat.ID
		src := func(yield func(string, mynah.Message, error) bool) error {
			return readTelegramExport(path, func(r io.Reader) error {
				var err error
				if accErr := tgexport.ReadAccount(r, func(c tgexport.AccountChat) bool {
					if c.Chat.ID != want {
						return true
					}
					err = tgexport.Decode(c.Export(), yield)
					return false
				}); accErr != nil {
					return accErr
				}
				return err
			})
		}
		if err := runImport(ctx, f, all[i].Chat, src, stderr); err != nil {
			return fmt.Errorf("chat %s: %w", all[i].Name, err)
		}
	}
	return nil
}

func addImportFlags(cmd *cobra.Command, f *importFlags) {
	f.register(cmd, "agent (default: the first)")
	cmd.Flags().BoolVar(&f.SkipBad, "skip-bad", false, "import the valid messages even when some are invalid")
}

// runImport imports src into chat for the configured agent, creating the database when
// it does not exist yet (history can be imported before the agent ever runs).
func runImport(ctx context.Context, f importFlags, chat mynah.Chat, src ingest.Source, stderr io.Writer) error {
	cfg, a, err := loadPicked(f.agentFlags, loadOptions{NoKeys: true})
	if err != nil {
		return err
	}
	// Checking reads the whole file first: count what it read, so a big file is not silent.
	check := newProgress(stderr, "checking")
	read := 0
	plan, err := ingest.Check(ctx, func(yield func(string, mynah.Message, error) bool) error {
		read = 0
		return src(func(pos string, m mynah.Message, err error) bool {
			read++
			check.report(read, 0)
			return yield(pos, m, err)
		})
	}, f.SkipBad)
	check.done()
	if err != nil {
		return err
	}
	db, err := openStore(ctx, cfg, true)
	if err != nil {
		return err
	}
	defer db.Close()
	if len(plan.Problems) > 0 {
		fmt.Fprintf(stderr, "skipping %d invalid messages:\n  %s\n", len(plan.Problems), plan.Problems)
	}
	prog := newProgress(stderr, "importing")
	st, err := plan.Store(ctx, db, a.Name, botID(a), chat, prog.report)
	prog.done()
	if err != nil {
		return err
	}
	// SQLite's search index takes the new messages now, with its own bar, so that no
	// search later waits minutes for the backlog. PostgreSQL indexed them as it stored
	// them; its planner learns of them now, or a search planned before autovacuum comes
	// round reads the chat row by row (Analyze).
	switch db := db.(type) {
	case *sqlite.DB:
		prog = newProgress(stderr, "indexing for search")
		_, err = db.IndexPendingFunc(ctx, prog.report)
		prog.done()
	case *postgres.DB:
		if st.Added > 0 {
			err = db.Analyze(ctx)
		}
	}
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
func telegramSource(path string) ingest.Source {
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

// progress shows how a long step of an import advances: a bar redrawn in place on a
// terminal; elsewhere (a log, a pipe) a line every 5 s, so that a big import is never
// silent for long, and nothing for a step that ends sooner.
type progress struct {
	w            io.Writer
	label        string // what the step does: "importing", "indexing for search"
	tty          bool
	total, count int
	start, last  time.Time
	drawn        bool
}

func newProgress(w io.Writer, label string) *progress {
	p := &progress{w: w, label: label, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// report draws the bar after done of total messages: at once for the first report, at
// most every 100ms after that.
func (p *progress) report(done, total int) {
	p.total, p.count = total, done
	p.draw(done == 0)
}

func (p *progress) done() {
	if p.tty && p.drawn {
		p.draw(true)
		fmt.Fprintln(p.w)
	}
}

func (p *progress) draw(force bool) {
	frac := 1.0
	if p.total > 0 {
		frac = float64(p.count) / float64(p.total)
	}
	if !p.tty {
		if time.Since(p.start) >= 5*time.Second && time.Since(p.last) >= 5*time.Second {
			p.last = time.Now()
			if p.total == 0 { // how much there is is not known yet
				fmt.Fprintf(p.w, "%s: %d\n", p.label, p.count)
			} else {
				fmt.Fprintf(p.w, "%s: %d/%d (%.0f%%)\n", p.label, p.count, p.total, frac*100)
			}
		}
		return
	}
	if !force && time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.drawn = time.Now(), true
	if p.total == 0 {
		fmt.Fprintf(p.w, "\r%s %d", p.label, p.count)
		return
	}
	const width = 30
	fill := int(frac * width)
	fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%% %d/%d", p.label, strings.Repeat("#", fill), strings.Repeat(".", width-fill), frac*100, p.count, p.total)
}
