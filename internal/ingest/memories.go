package ingest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
)

// FactStore is what /memories and /forget need of the agent's facts (mynah.Facts).
type FactStore interface {
	ListFacts(ctx context.Context, agent string, user mynah.UserID, offset, limit int) ([]mynah.Fact, int, error)
	RemoveFact(ctx context.Context, agent string, user mynah.UserID, id int64, once string) (mynah.Fact, error)
	RemoveAllFacts(ctx context.Context, agent string, user mynah.UserID, once string) (int, error)
}

const (
	factsPerPage = 10
	// listedFactLength cuts long facts in a listing, so that a page of ten stays one
	// Telegram message (4096 characters) that can be edited in place.
	listedFactLength = 300
)

// Texts of the facts commands, kept together so they read as one voice.
const (
	forgetUsage     = "Usage: /forget N forgets the memory numbered N in /memories; /forget all forgets everything I remember about you."
	noFactStore     = "I don't keep memories about people here."
	notYourMemories = "These are not your memories."
	staleButton     = "This message is too old to change; send /memories again."
)

// Callback data: "m:" then p:<owner>:<page> (a page of /memories), a:<owner> (forget all,
// confirmed) or c:<owner> (cancel). The owner is in the data, so a press by anybody else
// is refused without any lookup; at most 2+2+20+1+10 bytes, well under Telegram's 64.
const callbackPrefix = "m:"

func pageData(owner mynah.UserID, page int) string {
	return fmt.Sprintf("%sp:%d:%d", callbackPrefix, owner, page)
}

func forgetAllData(owner mynah.UserID) string { return fmt.Sprintf("%sa:%d", callbackPrefix, owner) }
func cancelData(owner mynah.UserID) string    { return fmt.Sprintf("%sc:%d", callbackPrefix, owner) }

// parseCallback reads callback data made by the functions above.
func parseCallback(data string) (action string, owner mynah.UserID, page int, ok bool) {
	rest, found := strings.CutPrefix(data, callbackPrefix)
	if !found {
		return "", 0, 0, false
	}
	f := strings.Split(rest, ":")
	if len(f) < 2 {
		return "", 0, 0, false
	}
	id, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || id == 0 {
		return "", 0, 0, false
	}
	switch {
	case f[0] == "p" && len(f) == 3:
		page, err = strconv.Atoi(f[2])
		if err != nil || page < 1 {
			return "", 0, 0, false
		}
	case (f[0] == "a" || f[0] == "c") && len(f) == 2:
	default:
		return "", 0, 0, false
	}
	return f[0], mynah.UserID(id), page, true
}

// factsCommand fills turn with the reply to /memories or /forget from msg's sender.
func (in *Ingester) factsCommand(ctx context.Context, cmd string, msg *mynah.Message, turn *mynah.Turn) error {
	if in.facts == nil {
		turn.Static = noFactStore
		return nil
	}
	owner := msg.Sender
	if cmd == "memories" {
		var err error
		turn.Static, turn.Buttons, err = in.memoriesPage(ctx, owner, 1)
		return err
	}
	arg := commandArg(msg.Text)
	if arg == "all" {
		_, total, err := in.facts.ListFacts(ctx, in.agent.Name, owner.ID, 0, 0)
		switch {
		case err != nil:
			return err
		case total == 0:
			turn.Static = "I don't remember anything about you."
			return nil
		}
		turn.Static = fmt.Sprintf("Forget all %s I remember about you? This cannot be undone.", plural(total, "thing"))
		turn.Buttons = [][]mynah.Button{{{Text: "Forget all", Data: forgetAllData(owner.ID)}, {Text: "Cancel", Data: cancelData(owner.ID)}}}
		return nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(arg, "#"))
	if err != nil || n < 1 {
		turn.Static = forgetUsage
		return nil
	}
	list, total, err := in.facts.ListFacts(ctx, in.agent.Name, owner.ID, n-1, 1)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		turn.Static = fmt.Sprintf("There is no memory number %d: I remember %s about you. /memories lists them.", n, plural(total, "thing"))
		return nil
	}
	// Keyed by the message, so a command Telegram delivers again after a crash does not
	// forget the fact that has moved up into position n since.
	once := fmt.Sprintf("forget:%d:%d", msg.Chat.ID, msg.ID)
	f, err := in.facts.RemoveFact(ctx, in.agent.Name, owner.ID, list[0].ID, once)
	switch {
	case errors.Is(err, mynah.ErrNotFound):
		turn.Static = fmt.Sprintf("Memory number %d is already forgotten.", n)
		return nil
	case err != nil:
		return err
	case f.Text == "":
		turn.Static = fmt.Sprintf("Forgot memory number %d.", n)
	default:
		turn.Static = "Forgot: " + escapeMarkdown(f.Text)
	}
	return nil
}

// memoriesPage renders page (1-based; past the end shows the last) of what the agent
// remembers about owner, with ◀ ▶ buttons when there is more than one page.
func (in *Ingester) memoriesPage(ctx context.Context, owner mynah.User, page int) (string, [][]mynah.Button, error) {
	offset := (page - 1) * factsPerPage
	list, total, err := in.facts.ListFacts(ctx, in.agent.Name, owner.ID, offset, factsPerPage)
	if err != nil {
		return "", nil, err
	}
	pages := max(1, (total+factsPerPage-1)/factsPerPage)
	if page > pages {
		page, offset = pages, (pages-1)*factsPerPage
		if list, total, err = in.facts.ListFacts(ctx, in.agent.Name, owner.ID, offset, factsPerPage); err != nil {
			return "", nil, err
		}
	}
	if total == 0 {
		return "I don't remember anything about you yet.", nil, nil
	}
	var b strings.Builder
	who := owner.Name()
	if who == "" {
		who = "you"
	}
	fmt.Fprintf(&b, "What I remember about %s (%d):\n\n", escapeMarkdown(who), total)
	for i, f := range list {
		text := f.Text
		if utf8.RuneCountInString(text) > listedFactLength {
			text = string([]rune(text)[:listedFactLength-1]) + "…"
		}
		fmt.Fprintf(&b, "%d\\. %s\n", offset+i+1, escapeMarkdown(text))
	}
	if pages > 1 {
		fmt.Fprintf(&b, "\nPage %d of %d. ", page, pages)
	} else {
		b.WriteString("\n")
	}
	b.WriteString("/forget N forgets one, /forget all everything.")
	var row []mynah.Button
	if page > 1 {
		row = append(row, mynah.Button{Text: "◀", Data: pageData(owner.ID, page-1)})
	}
	if page < pages {
		row = append(row, mynah.Button{Text: "▶", Data: pageData(owner.ID, page+1)})
	}
	if len(row) == 0 {
		return b.String(), nil, nil
	}
	return b.String(), [][]mynah.Button{row}, nil
}

// handleCallback stores a button press (the chat and the presser, deduplicated like any
// update), queues the edit it asks for, and then answers it, so the button stops spinning.
// Only the owner of the memories a message shows can page or forget them.
func (in *Ingester) handleCallback(ctx context.Context, u mynah.Update) error {
	cb := u.Callback
	intake := mynah.Intake{Chat: u.Chat, Users: u.Users}
	answer, err := in.planCallback(ctx, u, &intake)
	if err != nil {
		return fmt.Errorf("ingest: update %d: %w", u.ID, err)
	}
	fresh, err := in.inbox.Accept(ctx, in.agent.Name, u.ID, intake)
	if err != nil {
		return fmt.Errorf("ingest: update %d: %w", u.ID, err)
	}
	if fresh && intake.Turn != nil {
		in.queued(intake.Turn.Chat)
	}
	// Answered even when the update was accepted before: the first delivery may have
	// stopped before its answer. A refused answer (too old, answered already) only costs
	// a spinning button, so it is logged, not retried.
	if err := in.answer(ctx, cb.ID, answer); err != nil {
		in.log.Warn("answering a button press failed", "chat", u.Chat.ID, "user", cb.From.ID, "err", err)
	}
	return nil
}

// planCallback decides what a press does and returns the text to answer it with.
func (in *Ingester) planCallback(ctx context.Context, u mynah.Update, intake *mynah.Intake) (string, error) {
	cb := u.Callback
	if in.policy.Block.Contains(cb.From) || u.Chat.ID == 0 {
		return "", nil
	}
	action, owner, page, ok := parseCallback(cb.Data)
	switch {
	case !ok:
		return "", nil
	case owner != cb.From.ID:
		return notYourMemories, nil
	case cb.Message == 0:
		return staleButton, nil
	}
	switch answered, known := messageOwner(u.Chat, cb); {
	case !known:
		return staleButton, nil
	case answered != cb.From.ID:
		return notYourMemories, nil
	case in.facts == nil:
		return noFactStore, nil
	}
	if d := access.DecidePress(in.policy, cb.From, in.now(), in.limits); d.Action != access.Command {
		return d.Notice, nil
	}
	turn := &mynah.Turn{Agent: in.agent.Name, Chat: u.Chat.ID, Target: cb.Message, Edit: cb.Message, Created: in.now()}
	var answer string
	switch action {
	case "p":
		var err error
		if turn.Static, turn.Buttons, err = in.memoriesPage(ctx, cb.From, page); err != nil {
			return "", err
		}
	case "a":
		n, err := in.facts.RemoveAllFacts(ctx, in.agent.Name, owner, "callback:"+cb.ID)
		if err != nil {
			return "", err
		}
		turn.Static = fmt.Sprintf("Forgot all %s I remembered about you.", plural(n, "thing"))
		answer = "Forgotten."
	case "c":
		turn.Static = "Kept everything. /memories shows what I remember about you."
	}
	intake.Turn = turn
	return answer, nil
}

// messageOwner returns whom the message cb is under answered, which must be who pressed
// it: the data names an owner too, but the presser's client sends the data and can forge
// it, while what the message replies to comes from Telegram. In a private chat that is
// the chat's user; in a group, the sender of the message it replies to. known is false
// for a group message that replies to nothing (its command was deleted before the
// answer went out).
func messageOwner(chat mynah.Chat, cb *mynah.Callback) (owner mynah.UserID, known bool) {
	switch {
	case chat.Type == mynah.ChatPrivate:
		return mynah.UserID(chat.ID), true
	case cb.ReplyTo != nil && cb.ReplyTo.Sender.ID != 0:
		return cb.ReplyTo.Sender.ID, true
	}
	return 0, false
}

// plural spells n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// escapeMarkdown keeps what people said from being read as Markdown when a static reply
// is formatted for Telegram: "*" in a fact is an asterisk, not emphasis.
func escapeMarkdown(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_{}[]()<>#+-.!|~&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
