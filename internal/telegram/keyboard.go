package telegram

import (
	"context"
	"fmt"

	"github.com/mymmrac/telego"

	"github.com/mynah-ai/mynah"
)

// maxCallbackData is the most bytes of callback data a button may carry (Bot API).
const maxCallbackData = 64

// keyboard maps buttons onto an inline keyboard; nil for none. Data that Telegram would
// refuse (empty or longer than 64 bytes) is an error here, before any request is made,
// since Telegram's own answer ("BUTTON_DATA_INVALID") does not say which button.
func keyboard(rows [][]mynah.Button) (*telego.InlineKeyboardMarkup, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	kb := &telego.InlineKeyboardMarkup{InlineKeyboard: make([][]telego.InlineKeyboardButton, 0, len(rows))}
	for _, row := range rows {
		r := make([]telego.InlineKeyboardButton, 0, len(row))
		for _, btn := range row {
			if btn.Text == "" || btn.Data == "" || len(btn.Data) > maxCallbackData {
				return nil, fmt.Errorf("telegram: button %q: want a text and 1-%d bytes of data, have %d", btn.Text, maxCallbackData, len(btn.Data))
			}
			r = append(r, telego.InlineKeyboardButton{Text: btn.Text, CallbackData: btn.Data})
		}
		if len(r) > 0 {
			kb.InlineKeyboard = append(kb.InlineKeyboard, r)
		}
	}
	return kb, nil
}

// EditText replaces the text of the bot's message id in chat, and its inline keyboard
// with buttons (editMessageText): nil buttons remove the keyboard, as Telegram does with
// an edit that names none. html selects parse mode HTML. An edit that changes nothing
// ("message is not modified", as when a user presses the button of the page already
// shown) is not an error. Errors are *Error as for Send.
func (b *Bot) EditText(ctx context.Context, chat mynah.ChatID, id mynah.MessageID, text string, html bool, buttons [][]mynah.Button) error {
	kb, err := keyboard(buttons)
	if err != nil {
		return err
	}
	p := &telego.EditMessageTextParams{
		ChatID:      telego.ChatID{ID: int64(chat)},
		MessageID:   int(id),
		Text:        text,
		ReplyMarkup: kb,
	}
	if html {
		p.ParseMode = telego.ModeHTML
	}
	if _, err := b.api.EditMessageText(ctx, p); err != nil {
		err = b.fail("editMessageText", err)
		if isNotModified(err) {
			return nil
		}
		return err
	}
	return nil
}
