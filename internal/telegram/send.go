package telegram

import (
	"context"
	"errors"

	"github.com/mymmrac/telego"

	"github.com/mynah-ai/mynah"
)

// Outgoing is one text message to send.
type Outgoing struct {
	Chat     mynah.ChatID
	ThreadID int64 // forum topic; 0 for none
	Text     string
	HTML     bool             // send with parse_mode HTML; Text must then be Telegram HTML
	ReplyTo  mynah.MessageID  // reply to this message of Chat; 0 for none
	Buttons  [][]mynah.Button // inline keyboard under the message; see keyboard
}

// Send sends o (sendMessage) and returns the message Telegram created, mapped like an
// inbound one but with Outgoing set and the bot as Sender; Agent is left for the caller.
// Telegram's refusals come back as *Error: see IsParseError, IsReplyNotFound, IsBlocked and
// RetryAfter for the ones a caller can act on.
func (b *Bot) Send(ctx context.Context, o Outgoing) (mynah.Message, error) {
	p := &telego.SendMessageParams{
		ChatID:          telego.ChatID{ID: int64(o.Chat)},
		MessageThreadID: int(o.ThreadID),
		Text:            o.Text,
	}
	if o.HTML {
		p.ParseMode = telego.ModeHTML
	}
	if kb, err := keyboard(o.Buttons); err != nil {
		return mynah.Message{}, err
	} else if kb != nil {
		p.ReplyMarkup = kb
	}
	if o.ReplyTo != 0 {
		// Name the chat: telego would otherwise send "chat_id":"".
		p.ReplyParameters = &telego.ReplyParameters{MessageID: int(o.ReplyTo), ChatID: p.ChatID}
	}
	sent, err := b.api.SendMessage(ctx, p)
	if err != nil {
		return mynah.Message{}, b.fail("sendMessage", err)
	}
	if sent == nil {
		return mynah.Message{}, errors.New("telegram sendMessage: empty result")
	}
	m := message(sent)
	m.Outgoing = true
	if me, ok := b.cachedMe(); ok && (sent.From == nil || sent.From.ID == int64(me.ID)) {
		m.Sender = me
	}
	return m, nil
}

// Typing shows "typing…" in chat (and forum topic thread, when non-zero) for about five
// seconds or until the bot's next message (sendChatAction typing).
func (b *Bot) Typing(ctx context.Context, chat mynah.ChatID, thread int64) error {
	err := b.api.SendChatAction(ctx, &telego.SendChatActionParams{
		ChatID:          telego.ChatID{ID: int64(chat)},
		MessageThreadID: int(thread),
		Action:          telego.ChatActionTyping,
	})
	if err != nil {
		return b.fail("sendChatAction", err)
	}
	return nil
}

// Draft shows text as the streamed draft draftID of a reply in a private chat
// (sendMessageDraft, Bot API 9.3+). Drafts are ephemeral previews: the reply itself must
// still be sent with Send. html selects parse mode HTML.
func (b *Bot) Draft(ctx context.Context, chat mynah.ChatID, thread int64, draftID int, text string, html bool) error {
	p := &telego.SendMessageDraftParams{ChatID: int64(chat), MessageThreadID: int(thread), DraftID: draftID, Text: text}
	if html {
		p.ParseMode = telego.ModeHTML
	}
	if err := b.api.SendMessageDraft(ctx, p); err != nil {
		return b.fail("sendMessageDraft", err)
	}
	return nil
}

// MemberCount returns the number of members of chat (getChatMemberCount).
func (b *Bot) MemberCount(ctx context.Context, chat mynah.ChatID) (int, error) {
	n, err := b.api.GetChatMemberCount(ctx, &telego.GetChatMemberCountParams{ChatID: telego.ChatID{ID: int64(chat)}})
	if err != nil {
		return 0, b.fail("getChatMemberCount", err)
	}
	return *n, nil
}

// SetWebhook asks Telegram to deliver updates to url with secret in the
// X-Telegram-Bot-Api-Secret-Token header (setWebhook). Poll cannot run while a webhook is
// set.
func (b *Bot) SetWebhook(ctx context.Context, url, secret string) error {
	if err := b.api.SetWebhook(ctx, &telego.SetWebhookParams{URL: url, SecretToken: secret}); err != nil {
		return b.fail("setWebhook", err)
	}
	return nil
}

// DeleteWebhook removes the webhook, keeping pending updates for getUpdates
// (deleteWebhook). Deleting an absent webhook succeeds.
func (b *Bot) DeleteWebhook(ctx context.Context) error {
	if err := b.api.DeleteWebhook(ctx, &telego.DeleteWebhookParams{}); err != nil {
		return b.fail("deleteWebhook", err)
	}
	return nil
}
