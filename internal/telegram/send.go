package telegram

import (
	"context"
	"errors"

	"github.com/mymmrac/telego"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/telegram/tghtml"
)

// Send sends o (sendMessage) and returns the message Telegram created, mapped like an
// inbound one but with Outgoing set and the bot as Sender; Agent is left for the caller.
// When o.Edit is set it edits that message of the bot's instead (see EditText: an edit
// that changes nothing succeeds) and returns it as now shown: chat, id, the text without
// markup, and Edited. Telegram's refusals come back as *Error, which matches the delivery
// failures of package mynah.
func (b *Bot) Send(ctx context.Context, o mynah.Outgoing) (mynah.Message, error) {
	if o.Edit != 0 {
		return b.edit(ctx, o)
	}
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

// edit carries out Send of an edit.
func (b *Bot) edit(ctx context.Context, o mynah.Outgoing) (mynah.Message, error) {
	if err := b.EditText(ctx, o.Chat, o.Edit, o.Text, o.HTML, o.Buttons); err != nil {
		return mynah.Message{}, err
	}
	text := o.Text
	if o.HTML {
		text = tghtml.Plain(text)
	}
	return mynah.Message{Chat: mynah.Chat{ID: o.Chat}, ID: o.Edit, Text: text, Edited: b.now()}, nil
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

// SetWebhook asks Telegram to deliver updates to url with secret in the
// X-Telegram-Bot-Api-Secret-Token header (setWebhook). Poll cannot run while a webhook is
// set.
func (b *Bot) SetWebhook(ctx context.Context, url, secret string) error {
	if err := b.api.SetWebhook(ctx, &telego.SetWebhookParams{URL: url, SecretToken: secret, AllowedUpdates: AllowedUpdates()}); err != nil {
		return b.fail("setWebhook", err)
	}
	b.receiving.Store(true)
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
