package mynah

// Update is one Telegram update in domain terms, as the adapter received it (getUpdates or
// a webhook) and intake stores it.
type Update struct {
	ID   int64
	Chat Chat // the chat the update belongs to; zero when it has none
	// Message is the message of a message, edited_message, channel_post or
	// edited_channel_post update, with Agent left empty for the caller; nil for kinds that
	// are not handled yet (Kind says which).
	Message *Message
	Edited  bool // edited_message or edited_channel_post
	// Users are the people seen in the update: the sender, the replied-to sender, users of
	// text_mention entities, a forwarded message's author, members who joined or left. A
	// chat that speaks for itself (anonymous admin, channel) appears as a user with the
	// chat's negative id and title.
	Users []User
	// Kind is the Telegram field that carried the update ("message", "edited_message",
	// "callback_query", …) or "unknown" for a kind newer than the adapter.
	Kind string
	// MediaGroup is the album the message belongs to ("" if none): the other items arrive
	// as separate updates moments later.
	MediaGroup string
	// Callback is the button press of a callback_query update, in Chat (then Message is
	// nil); nil otherwise.
	Callback *Callback
}

// Callback is a press of an inline keyboard button under a message the agent sent; the
// chat is the update's.
type Callback struct {
	// ID identifies the query for answerCallbackQuery; Telegram keeps the button spinning
	// until it is answered.
	ID   string
	From User
	// Message is the agent's message carrying the button, in Update.Chat; 0 when Telegram
	// no longer shows it to the bot (inline mode, or older than it can access).
	Message MessageID
	Data    string // the button's callback data, at most 64 bytes
}
