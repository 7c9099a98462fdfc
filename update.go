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
	// Member is the change of the bot's own membership in Chat of a my_chat_member update
	// (added to a group, removed, promoted); nil otherwise.
	Member *MemberChange
}

// MemberChange is a change of the bot's membership in a chat, and who made it.
type MemberChange struct {
	By User // who added, removed or promoted the bot
	// Old and New are the bot's statuses before and after, as Telegram names them:
	// creator, administrator, member, restricted, left or kicked. A restricted bot that
	// is not a member of the chat is reported as left.
	Old, New string
}

// Joined reports whether the change brought the bot into the chat: it was left or kicked
// and now is in it.
func (c MemberChange) Joined() bool { return !inChat(c.Old) && inChat(c.New) }

func inChat(status string) bool { return status != "" && status != "left" && status != "kicked" }

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
	// ReplyTo is what the button's message replies to, as Telegram shows it: its sender
	// is the person the agent answered with that message. Nil when the message replies to
	// nothing or is not accessible. Unlike Data, which the presser's client sends and may
	// forge, it comes from Telegram.
	ReplyTo *ReplyRef
	Data    string // the button's callback data, at most 64 bytes
}
