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
		turn.Static, turn.Buttons, err = in.memoriesPage(ctx, msg.Chat.ID, owner, 1)
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
	// The numbers are those /memories shows in this chat: in a group, of what the group
	// may see, so a number can never reach (or echo) a fact told in private.
	visible, hidden, err := in.visibleFacts(ctx, msg.Chat.ID, owner.ID)
	if err != nil {
		return err
	}
	if n > len(visible) {
		here := ""
		if hidden > 0 {
			here = " here"
		}
		turn.Static = fmt.Sprintf("There is no memory number %d: I remember %s about you%s. /memories lists them.", n, plural(len(visible), "thing"), here)
		return nil
	}
	list := visible[n-1 : n]
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
// remembers about owner, for chat, with ◀ ▶ buttons when there is more than one page.
// Each run of facts with the same scope is headed by where they are shown.
func (in *Ingester) memoriesPage(ctx context.Context, chat mynah.ChatID, owner mynah.User, page int) (string, [][]mynah.Button, error) {
	all, hidden, err := in.visibleFacts(ctx, chat, owner.ID)
	if err != nil {
		return "", nil, err
	}
	total := len(all)
	pages := max(1, (total+factsPerPage-1)/factsPerPage)
	page = min(page, pages)
	offset := (page - 1) * factsPerPage
	list := all[offset:min(offset+factsPerPage, total)]
	if total == 0 && hidden > 0 {
		return "What you told me in private stays there: send /memories to me in a private chat to see it.", nil, nil
	}
	if total == 0 {
		return "I don't remember anything about you yet.", nil, nil
	}
	var b strings.Builder
	who := owner.Name()
	if who == "" {
		who = "you"
	}
	fmt.Fprintf(&b, "What I remember about %s (%d):\n", escapeMarkdown(who), total)
	heading := ""
	for i, f := range list {
		if h := scopeHeading(f, chat); h != heading {
			heading = h
			fmt.Fprintf(&b, "\n_%s_\n", escapeMarkdown(h))
		}
		text := f.Text
		if utf8.RuneCountInString(text) > listedFactLength {
			text = string([]rune(text)[:listedFactLength-1]) + "…"
		}
		fmt.Fprintf(&b, "%d\\. %s\n", offset+i+1, escapeMarkdown(text))
	}
	if hidden > 0 {
		note := "1 more memory stays private: /memories in a private chat shows it."
		if hidden > 1 {
			note = fmt.Sprintf("%d more memories stay private: /memories in a private chat shows them.", hidden)
		}
		fmt.Fprintf(&b, "\n_%s_\n", escapeMarkdown(note))
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

// maxListedFacts bounds the facts /memories and /forget read at once (max_facts is far
// below it).
const maxListedFacts = 10000

// visibleFacts lists owner's facts that may be shown in chat, in /memories order, and how
// many others stay hidden there (told in private, or in another group).
func (in *Ingester) visibleFacts(ctx context.Context, chat mynah.ChatID, owner mynah.UserID) ([]mynah.Fact, int, error) {
	all, _, err := in.facts.ListFacts(ctx, in.agent.Name, owner, 0, maxListedFacts)
	if err != nil {
		return nil, 0, err
	}
	visible := all[:0]
	for _, f := range all {
		if f.VisibleIn(chat) {
			visible = append(visible, f)
		}
	}
	return visible, len(all) - len(visible), nil
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
		in.queued(*intake.Turn)
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
		if turn.Static, turn.Buttons, err = in.memoriesPage(ctx, u.Chat.ID, cb.From, page); err != nil {
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

// scopeHeading says where f is shown, as /memories heads it in chat.
func scopeHeading(f mynah.Fact, chat mynah.ChatID) string {
	switch {
	case f.Scope == mynah.FactShared:
		return "Shared: shown in every chat with you"
	case f.Scope == mynah.FactChat && f.Chat == chat:
		return "From this group: shown here and in our private chat"
	case f.Scope == mynah.FactChat:
		return "From a group: shown there and in our private chat"
	}
	return "Private: shown only in our private chat"
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
