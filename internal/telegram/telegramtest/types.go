package telegramtest

import (
	"encoding/json"
	"maps"
	"slices"
)

// User is a Telegram user or bot (Bot API type User).
type User struct {
	ID           int64  `json:"id"`
	IsBot        bool   `json:"is_bot"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name,omitempty"`
	Username     string `json:"username,omitempty"`
	LanguageCode string `json:"language_code,omitempty"`
	IsPremium    bool   `json:"is_premium,omitempty"`
}

// BotUser describes a bot served by the emulator, as getMe reports it.
type BotUser struct {
	ID        int64
	FirstName string
	Username  string
	// CanReadAllGroupMessages reports privacy mode disabled in getMe.
	CanReadAllGroupMessages bool
}

// me is the getMe result; the getMe-only flags are always present.
type me struct {
	User
	CanJoinGroups           bool `json:"can_join_groups"`
	CanReadAllGroupMessages bool `json:"can_read_all_group_messages"`
	SupportsInlineQueries   bool `json:"supports_inline_queries"`
	CanConnectToBusiness    bool `json:"can_connect_to_business"`
	HasMainWebApp           bool `json:"has_main_web_app"`
}

// Chat types.
const (
	ChatPrivate    = "private"
	ChatGroup      = "group"
	ChatSupergroup = "supergroup"
	ChatChannel    = "channel"
)

// Chat is a Telegram chat (Bot API type Chat).
type Chat struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"`
	Title     string `json:"title,omitempty"`
	Username  string `json:"username,omitempty"`
	FirstName string `json:"first_name,omitempty"`
	LastName  string `json:"last_name,omitempty"`
	IsForum   bool   `json:"is_forum,omitempty"`
}

// Group returns a basic group chat.
func Group(id int64, title string) Chat { return Chat{ID: id, Type: ChatGroup, Title: title} }

// Supergroup returns a supergroup chat.
func Supergroup(id int64, title string) Chat { return Chat{ID: id, Type: ChatSupergroup, Title: title} }

// Forum returns a supergroup with forum topics enabled.
func Forum(id int64, title string) Chat {
	return Chat{ID: id, Type: ChatSupergroup, Title: title, IsForum: true}
}

// PrivateChat returns the private chat Telegram uses for messages from u.
func PrivateChat(u User) Chat {
	return Chat{ID: u.ID, Type: ChatPrivate, FirstName: u.FirstName, LastName: u.LastName, Username: u.Username}
}

// MessageEntity is a special entity in a text (Bot API type MessageEntity).
// Offset and Length count UTF-16 code units.
type MessageEntity struct {
	Type          string `json:"type"`
	Offset        int    `json:"offset"`
	Length        int    `json:"length"`
	URL           string `json:"url,omitempty"`
	User          *User  `json:"user,omitempty"`
	Language      string `json:"language,omitempty"`
	CustomEmojiID string `json:"custom_emoji_id,omitempty"`
	UnixTime      int64  `json:"unix_time,omitempty"`
}

// PhotoSize is one size of a photo (Bot API type PhotoSize).
type PhotoSize struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	FileSize     int    `json:"file_size,omitempty"`
}

// Sticker is a sticker (Bot API type Sticker).
type Sticker struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Type         string `json:"type"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	IsAnimated   bool   `json:"is_animated"`
	IsVideo      bool   `json:"is_video"`
	Emoji        string `json:"emoji,omitempty"`
	SetName      string `json:"set_name,omitempty"`
	FileSize     int    `json:"file_size,omitempty"`
}

// Document is a general file (Bot API type Document).
type Document struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int    `json:"file_size,omitempty"`
}

// Voice is a voice note (Bot API type Voice).
type Voice struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Duration     int    `json:"duration"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int    `json:"file_size,omitempty"`
}

// Video is a video file (Bot API type Video).
type Video struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	Duration     int    `json:"duration"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int    `json:"file_size,omitempty"`
}

// VideoNote is a round video message (Bot API type VideoNote).
type VideoNote struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Length       int    `json:"length"`
	Duration     int    `json:"duration"`
	FileSize     int    `json:"file_size,omitempty"`
}

// Animation is a GIF or silent H.264 video (Bot API type Animation).
type Animation struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	Duration     int    `json:"duration"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int    `json:"file_size,omitempty"`
}

// Audio is a music file (Bot API type Audio).
type Audio struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Duration     int    `json:"duration"`
	Performer    string `json:"performer,omitempty"`
	Title        string `json:"title,omitempty"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int    `json:"file_size,omitempty"`
}

// File is a downloadable file (Bot API type File).
type File struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileSize     int    `json:"file_size,omitempty"`
	FilePath     string `json:"file_path,omitempty"`
}

// MessageOrigin describes where a forwarded message came from (Bot API
// MessageOrigin; Type is "user", "hidden_user", "chat" or "channel").
type MessageOrigin struct {
	Type            string `json:"type"`
	Date            int64  `json:"date"`
	SenderUser      *User  `json:"sender_user,omitempty"`
	SenderUserName  string `json:"sender_user_name,omitempty"`
	SenderChat      *Chat  `json:"sender_chat,omitempty"`
	Chat            *Chat  `json:"chat,omitempty"`
	MessageID       int    `json:"message_id,omitempty"`
	AuthorSignature string `json:"author_signature,omitempty"`
}

// Message is a Telegram message (the subset of Bot API Message the emulator
// produces).
type Message struct {
	MessageID       int             `json:"message_id"`
	MessageThreadID int             `json:"message_thread_id,omitempty"`
	From            *User           `json:"from,omitempty"`
	SenderChat      *Chat           `json:"sender_chat,omitempty"`
	Date            int64           `json:"date"`
	Chat            Chat            `json:"chat"`
	ForwardOrigin   *MessageOrigin  `json:"forward_origin,omitempty"`
	IsTopicMessage  bool            `json:"is_topic_message,omitempty"`
	ReplyToMessage  *Message        `json:"reply_to_message,omitempty"`
	EditDate        int64           `json:"edit_date,omitempty"`
	MediaGroupID    string          `json:"media_group_id,omitempty"`
	Text            string          `json:"text,omitempty"`
	Entities        []MessageEntity `json:"entities,omitempty"`
	Animation       *Animation      `json:"animation,omitempty"`
	Audio           *Audio          `json:"audio,omitempty"`
	Document        *Document       `json:"document,omitempty"`
	Photo           []PhotoSize     `json:"photo,omitempty"`
	Sticker         *Sticker        `json:"sticker,omitempty"`
	Video           *Video          `json:"video,omitempty"`
	VideoNote       *VideoNote      `json:"video_note,omitempty"`
	Voice           *Voice          `json:"voice,omitempty"`
	Caption         string          `json:"caption,omitempty"`
	CaptionEntities []MessageEntity `json:"caption_entities,omitempty"`
	ReplyMarkup     json.RawMessage `json:"reply_markup,omitempty"`
}

// clone returns a deep copy of m.
func (m Message) clone() Message {
	m.Entities = slices.Clone(m.Entities)
	m.CaptionEntities = slices.Clone(m.CaptionEntities)
	m.Photo = slices.Clone(m.Photo)
	m.ReplyMarkup = slices.Clone(m.ReplyMarkup)
	if m.ReplyToMessage != nil {
		r := m.ReplyToMessage.clone()
		m.ReplyToMessage = &r
	}
	return m
}

// ReactionType is a reaction (Bot API ReactionType; Type is "emoji",
// "custom_emoji" or "paid").
type ReactionType struct {
	Type          string `json:"type"`
	Emoji         string `json:"emoji,omitempty"`
	CustomEmojiID string `json:"custom_emoji_id,omitempty"`
}

// CallbackQuery is an inline keyboard button press (Bot API CallbackQuery).
type CallbackQuery struct {
	ID           string   `json:"id"`
	From         User     `json:"from"`
	Message      *Message `json:"message,omitempty"`
	ChatInstance string   `json:"chat_instance"`
	Data         string   `json:"data,omitempty"`
}

// MessageReactionUpdated is a change of a user's reactions (Bot API
// MessageReactionUpdated).
type MessageReactionUpdated struct {
	Chat        Chat           `json:"chat"`
	MessageID   int            `json:"message_id"`
	User        *User          `json:"user,omitempty"`
	Date        int64          `json:"date"`
	OldReaction []ReactionType `json:"old_reaction"`
	NewReaction []ReactionType `json:"new_reaction"`
}

// Update is an incoming update (Bot API Update). Kinds without a field here
// go into Extra, keyed by their Bot API name ("chat_member", ...), and are
// marshalled beside the typed fields.
type Update struct {
	UpdateID          int                        `json:"update_id"`
	Message           *Message                   `json:"message,omitempty"`
	EditedMessage     *Message                   `json:"edited_message,omitempty"`
	ChannelPost       *Message                   `json:"channel_post,omitempty"`
	EditedChannelPost *Message                   `json:"edited_channel_post,omitempty"`
	MessageReaction   *MessageReactionUpdated    `json:"message_reaction,omitempty"`
	CallbackQuery     *CallbackQuery             `json:"callback_query,omitempty"`
	Extra             map[string]json.RawMessage `json:"-"`
}

// MarshalJSON encodes u with its Extra kinds inlined.
func (u Update) MarshalJSON() ([]byte, error) {
	type plain Update
	b, err := json.Marshal(plain(u))
	if err != nil || len(u.Extra) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	maps.Copy(m, u.Extra)
	return json.Marshal(m)
}

// Kind returns the Bot API name of the update's payload ("message",
// "edited_message", ...), as used by allowed_updates.
func (u Update) Kind() string {
	switch {
	case u.Message != nil:
		return "message"
	case u.EditedMessage != nil:
		return "edited_message"
	case u.ChannelPost != nil:
		return "channel_post"
	case u.EditedChannelPost != nil:
		return "edited_channel_post"
	case u.MessageReaction != nil:
		return "message_reaction"
	case u.CallbackQuery != nil:
		return "callback_query"
	}
	if keys := slices.Sorted(maps.Keys(u.Extra)); len(keys) > 0 {
		return keys[0]
	}
	return ""
}

// BotCommand is a command in the bot's menu (Bot API BotCommand).
type BotCommand struct {
	Command     string `json:"command"`
	Description string `json:"description"`
}

// WebhookInfo is the getWebhookInfo result.
type WebhookInfo struct {
	URL                  string   `json:"url"`
	HasCustomCertificate bool     `json:"has_custom_certificate"`
	PendingUpdateCount   int      `json:"pending_update_count"`
	IPAddress            string   `json:"ip_address,omitempty"`
	LastErrorDate        int64    `json:"last_error_date,omitempty"`
	LastErrorMessage     string   `json:"last_error_message,omitempty"`
	MaxConnections       int      `json:"max_connections,omitempty"`
	AllowedUpdates       []string `json:"allowed_updates,omitempty"`
}
