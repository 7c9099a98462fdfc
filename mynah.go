// Package mynah is the domain vocabulary of mynah: chats, users, messages, turns and the
// store contracts every backend implements (Store, in store.go, lists them). It imports
// only the standard library; adapters live under internal/ and only cmd/mynah wires them
// together.
package mynah

import "time"

// ChatID identifies a Telegram chat. Private chats have the user's id, groups are negative.
type ChatID int64

// UserID identifies a Telegram user or bot.
type UserID int64

// MessageID identifies a message inside one chat. Telegram assigns it; ids grow with time
// inside a chat, so ordering by id is chronological.
type MessageID int64

// ChatType is Telegram's chat type.
type ChatType string

// Chat types as Telegram names them.
const (
	ChatPrivate    ChatType = "private"
	ChatGroup      ChatType = "group"
	ChatSupergroup ChatType = "supergroup"
	ChatChannel    ChatType = "channel"
)

// Chat is a conversation an agent takes part in.
type Chat struct {
	ID       ChatID
	Type     ChatType
	Title    string // groups
	Username string
	IsForum  bool
}

// IsGroup reports whether the chat is a group of several people.
func (c Chat) IsGroup() bool { return c.Type == ChatGroup || c.Type == ChatSupergroup }

// User is a participant: a person, another bot, or the agent itself.
type User struct {
	ID        UserID
	FirstName string
	LastName  string
	Username  string // without '@'
	IsBot     bool
}

// Name is the user's display name: first and last name, or the username, or the id.
func (u User) Name() string {
	switch {
	case u.FirstName != "" && u.LastName != "":
		return u.FirstName + " " + u.LastName
	case u.FirstName != "":
		return u.FirstName
	case u.LastName != "":
		return u.LastName
	case u.Username != "":
		return u.Username
	}
	return ""
}

// Message is one message of a chat as an agent saw it, inbound or sent by the agent.
// Text holds the text or the caption. Stored messages are never truncated.
type Message struct {
	Agent    string // the agent whose view this is
	Chat     Chat
	ID       MessageID
	ThreadID int64 // forum topic; 0 when none
	Sender   User
	Time     time.Time
	Edited   time.Time // zero unless edited
	Text     string
	Entities []Entity
	ReplyTo  *ReplyRef
	Forward  *Forward
	Media    []Media
	// Outgoing is true for messages the agent sent.
	Outgoing bool
}

// ReplyRef is the message a message replies to, with what Telegram told us about it.
type ReplyRef struct {
	ID     MessageID
	Sender User
	Text   string // text or caption of the replied-to message, possibly empty
}

// Forward describes where a forwarded message came from.
type Forward struct {
	Kind      string // user, hidden_user, chat, channel
	From      User   // kind user
	Name      string // hidden user's name, chat or channel title
	ChatID    ChatID
	MessageID MessageID
	Date      time.Time
}

// Entity is a Telegram message entity; Offset and Length count UTF-16 code units.
type Entity struct {
	Type   string // mention, text_mention, bot_command, url, bold, …
	Offset int
	Length int
	URL    string
	User   *User // text_mention
}

// MediaKind names a kind of attachment.
type MediaKind string

// Media kinds mynah knows; others are kept by their Telegram name.
const (
	MediaPhoto     MediaKind = "photo"
	MediaSticker   MediaKind = "sticker"
	MediaAnimation MediaKind = "animation"
	MediaVideo     MediaKind = "video"
	MediaVideoNote MediaKind = "video_note"
	MediaVoice     MediaKind = "voice"
	MediaAudio     MediaKind = "audio"
	MediaDocument  MediaKind = "document"
	MediaLocation  MediaKind = "location"
	MediaContact   MediaKind = "contact"
	MediaPoll      MediaKind = "poll"
)

// Media is an attachment of a message: its kind and the ids needed to fetch or describe it.
type Media struct {
	Kind         MediaKind
	FileID       string
	FileUniqueID string
	MimeType     string
	FileName     string
	Emoji        string // stickers
	SetName      string // stickers
	Width        int
	Height       int
	Duration     int   // seconds
	Size         int64 // bytes, as Telegram reported; 0 when unknown
	// Description is what the file shows, says or contains (a photo's description, a
	// voice note's words, a document's text), filled by the media describer; empty until
	// then, and the prompt shows a placeholder.
	Description string
}
