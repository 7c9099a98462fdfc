package telegramtest

import (
	"encoding/json"
)

// InlineButton is a button of an inline keyboard (Bot API InlineKeyboardButton), with
// the fields the emulator understands.
type InlineButton struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data,omitempty"`
	URL          string `json:"url,omitempty"`
}

// inlineKeyboard is an InlineKeyboardMarkup.
type inlineKeyboard struct {
	InlineKeyboard [][]InlineButton `json:"inline_keyboard"`
}

// Buttons returns the inline keyboard under the message as it is now (after edits), row
// by row; nil when it has none.
func (m SentMessage) Buttons() [][]InlineButton { return buttons(m.ReplyMarkup) }

// buttons decodes an inline keyboard stored by inlineMarkup.
func buttons(markup json.RawMessage) [][]InlineButton {
	if len(markup) == 0 {
		return nil
	}
	var kb inlineKeyboard
	if json.Unmarshal(markup, &kb) != nil {
		return nil
	}
	return kb.InlineKeyboard
}

// maxCallbackData is the most bytes of callback_data a button may carry.
const maxCallbackData = 64

// msgButtonDataInvalid is the server's error for callback_data outside 1-64 bytes.
const msgButtonDataInvalid = "BUTTON_DATA_INVALID"

// checkKeyboard refuses an inline keyboard Telegram would refuse: callback data longer
// than 64 bytes, or empty on a button that has nothing else to do.
func checkKeyboard(p params) *Error {
	for _, row := range buttons(inlineMarkup(p)) {
		for _, b := range row {
			if len(b.CallbackData) > maxCallbackData || (b.CallbackData == "" && b.URL == "") {
				return badRequest(msgButtonDataInvalid)
			}
		}
	}
	return nil
}

// hasButton reports whether markup has a button with callback data.
func hasButton(markup json.RawMessage, data string) bool {
	for _, row := range buttons(markup) {
		for _, b := range row {
			if b.CallbackData == data {
				return true
			}
		}
	}
	return false
}
