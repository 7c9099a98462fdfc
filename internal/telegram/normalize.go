package telegram

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/mymmrac/telego"

	"github.com/mynah-ai/mynah"
)

// Normalize maps a Telegram update onto the domain. It keeps everything mynah may need of a
// message: text or caption with its entities (UTF-16 offsets as Telegram gave them), the
// replied-to message or external reply, forward origin, sender, forum topic and media. A
// kind of content it does not describe in detail becomes a placeholder Media named after
// the Telegram field, so no message is silently reduced to nothing.
func Normalize(u telego.Update) mynah.Update {
	out := mynah.Update{ID: int64(u.UpdateID), Kind: updateKind(u)}
	var m *telego.Message
	switch {
	case u.Message != nil:
		m = u.Message
	case u.EditedMessage != nil:
		m, out.Edited = u.EditedMessage, true
	case u.ChannelPost != nil:
		m = u.ChannelPost
	case u.EditedChannelPost != nil:
		m, out.Edited = u.EditedChannelPost, true
	}
	if m != nil {
		msg := message(m)
		out.Message = &msg
		out.Chat = msg.Chat
		out.Users = messageUsers(m, msg)
		out.MediaGroup = m.MediaGroupID
		return out
	}
	// Kinds mynah does not handle yet still say where they happened and who was there.
	var us []mynah.User
	switch {
	case u.CallbackQuery != nil:
		us = append(us, user(&u.CallbackQuery.From))
		out.Callback = callback(u.CallbackQuery)
		if msg := u.CallbackQuery.Message; msg != nil {
			out.Chat = chat(msg.GetChat())
		}
	case u.MyChatMember != nil:
		out.Chat, us = chat(u.MyChatMember.Chat), append(us, user(&u.MyChatMember.From))
		out.Member = &mynah.MemberChange{By: user(&u.MyChatMember.From),
			Old: memberStatus(u.MyChatMember.OldChatMember), New: memberStatus(u.MyChatMember.NewChatMember)}
	case u.ChatMember != nil:
		out.Chat, us = chat(u.ChatMember.Chat), append(us, user(&u.ChatMember.From))
	case u.ChatJoinRequest != nil:
		out.Chat, us = chat(u.ChatJoinRequest.Chat), append(us, user(&u.ChatJoinRequest.From))
	case u.MessageReaction != nil:
		out.Chat = chat(u.MessageReaction.Chat)
		if u.MessageReaction.User != nil {
			us = append(us, user(u.MessageReaction.User))
		}
	case u.BusinessMessage != nil:
		out.Chat = chat(u.BusinessMessage.Chat)
	case u.EditedBusinessMessage != nil:
		out.Chat = chat(u.EditedBusinessMessage.Chat)
	}
	out.Users = dedupe(us)
	return out
}

// memberStatus is m's status as Telegram names it, "left" for a restricted user who is
// not a member, and "" when Telegram sent none that telego knows.
func memberStatus(m telego.ChatMember) string {
	if m == nil || reflect.ValueOf(m).IsNil() {
		return ""
	}
	if s := m.MemberStatus(); s != telego.MemberStatusRestricted || m.MemberIsMember() {
		return s
	}
	return telego.MemberStatusLeft
}

// decodeUpdate decodes one update of getUpdates or a webhook and normalises it. When the
// JSON does not decode it returns the update's id, if that much could be read, with the
// error. A message without a chat, or without a sender outside a channel (Telegram always
// names one there), is malformed too: the store or the access policy would refuse it, and
// an update that is refused every time it is redelivered holds back all those behind it.
// Fields newer than telego are kept as placeholder media when the message would otherwise
// be empty.
func decodeUpdate(raw []byte) (mynah.Update, error) {
	var tu telego.Update
	err := snakeCaseKeys(raw)
	if err == nil {
		err = json.Unmarshal(raw, &tu)
	}
	if err != nil {
		var id struct {
			UpdateID int64 `json:"update_id"`
		}
		_ = json.Unmarshal(raw, &id) // best effort: the id lets Poll skip the update
		return mynah.Update{ID: id.UpdateID, Kind: "unknown"}, fmt.Errorf("malformed update %d: %w", id.UpdateID, err)
	}
	u := Normalize(tu)
	if m := u.Message; m != nil && m.Chat.ID == 0 {
		return mynah.Update{ID: u.ID, Kind: u.Kind}, fmt.Errorf("malformed update %d: %s without a chat", u.ID, u.Kind)
	} else if m != nil && m.Sender.ID == 0 && m.Chat.Type != mynah.ChatChannel {
		return mynah.Update{ID: u.ID, Kind: u.Kind}, fmt.Errorf("malformed update %d: %s without a sender", u.ID, u.Kind)
	}
	if u.Message != nil && u.Message.Text == "" && len(u.Message.Media) == 0 {
		u.Message.Media = unknownContent(raw, u.Kind)
	}
	return u, nil
}

// snakeCaseKeys checks that raw is JSON whose object keys are all lower-case snake_case,
// as every key of the Bot API is. Any other key is refused before telego sees it: telego
// picks the concrete type of an interface field (callback_query.message, forward_origin,
// …) by the exact key, then decodes with a JSON library that matches keys ignoring case
// and, given only a differently cased key ("messAge"), writes an invalid value into the
// nil interface. Such an update would crash the process, and again after every restart,
// since it is never confirmed.
func snakeCaseKeys(raw []byte) error {
	// A scan for keys, not a decode: a string followed by a colon is a key. Whether raw is
	// JSON at all is json.Unmarshal's to say, afterwards. (json.Decoder.Token did the same
	// at ten times the cost: every token boxed, every string allocated.)
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := i + 1
		for end < len(raw) && raw[end] != '"' {
			if raw[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(raw) {
			return errors.New("unterminated string")
		}
		next := end + 1
		for next < len(raw) && (raw[next] == ' ' || raw[next] == '\t' || raw[next] == '\n' || raw[next] == '\r') {
			next++
		}
		if next < len(raw) && raw[next] == ':' {
			key := raw[i+1 : end]
			if len(key) == 0 || len(bytes.TrimLeft(key, "abcdefghijklmnopqrstuvwxyz0123456789_")) != 0 {
				return fmt.Errorf("key %q is not snake_case", key)
			}
		}
		i = end
	}
	return nil
}

// updateKind returns the JSON name of the update's payload field, or "unknown".
func updateKind(u telego.Update) string {
	v := reflect.ValueOf(u)
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer && !f.IsNil() {
			return jsonName(v.Type().Field(i))
		}
	}
	return "unknown"
}

// jsonName is the JSON key of a struct field.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// message maps a Telegram message; Agent and Outgoing are the caller's.
func message(m *telego.Message) mynah.Message {
	msg := mynah.Message{
		Chat:     chat(m.Chat),
		ID:       mynah.MessageID(m.MessageID),
		Sender:   sender(m.From, m.SenderChat),
		Time:     unix(m.Date),
		Edited:   unix(m.EditDate),
		Text:     m.Text,
		Entities: entities(m.Entities),
		ReplyTo:  replyRef(m),
		Forward:  forward(m.ForwardOrigin),
		Media:    media(m),
	}
	if m.IsTopicMessage {
		msg.ThreadID = int64(m.MessageThreadID)
	}
	if m.Text == "" && m.Caption != "" {
		msg.Text, msg.Entities = m.Caption, entities(m.CaptionEntities)
	}
	return msg
}

// messageUsers lists the people seen in m, each once, in order of appearance.
func messageUsers(m *telego.Message, msg mynah.Message) []mynah.User {
	us := []mynah.User{msg.Sender}
	if msg.ReplyTo != nil {
		us = append(us, msg.ReplyTo.Sender)
	}
	for _, e := range msg.Entities {
		if e.User != nil {
			us = append(us, *e.User)
		}
	}
	if msg.Forward != nil && msg.Forward.Kind == telego.OriginTypeUser {
		us = append(us, msg.Forward.From)
	}
	for i := range m.NewChatMembers {
		us = append(us, user(&m.NewChatMembers[i]))
	}
	if m.LeftChatMember != nil {
		us = append(us, user(m.LeftChatMember))
	}
	return dedupe(us)
}

// dedupe drops users without an id and repeats, keeping the first of each.
func dedupe(us []mynah.User) []mynah.User {
	var out []mynah.User
	for _, u := range us {
		if u.ID != 0 && !slices.ContainsFunc(out, func(o mynah.User) bool { return o.ID == u.ID }) {
			out = append(out, u)
		}
	}
	return out
}

func chat(c telego.Chat) mynah.Chat {
	return mynah.Chat{
		ID:       mynah.ChatID(c.ID),
		Type:     mynah.ChatType(c.Type),
		Title:    c.Title,
		Username: c.Username,
		IsForum:  c.IsForum,
	}
}

func user(u *telego.User) mynah.User {
	if u == nil {
		return mynah.User{}
	}
	return mynah.User{
		ID:        mynah.UserID(u.ID),
		FirstName: u.FirstName,
		LastName:  u.LastName,
		Username:  u.Username,
		IsBot:     u.IsBot,
	}
}

// chatUser presents a chat that speaks for itself (a channel, a group's anonymous admin)
// as a user: the chat's (negative) id and its title as the name.
func chatUser(c telego.Chat) mynah.User {
	u := mynah.User{ID: mynah.UserID(c.ID), FirstName: c.Title, Username: c.Username}
	if u.FirstName == "" {
		u.FirstName, u.LastName = c.FirstName, c.LastName
	}
	return u
}

// sender is the author of a message: sender_chat when the message was sent on behalf of a
// chat (from then names a placeholder bot), else from.
func sender(from *telego.User, senderChat *telego.Chat) mynah.User {
	if senderChat != nil {
		return chatUser(*senderChat)
	}
	return user(from)
}

func unix(sec int64) time.Time {
	if sec == 0 {
		return time.Time{}
	}
	return time.Unix(sec, 0).UTC()
}

func entities(es []telego.MessageEntity) []mynah.Entity {
	if len(es) == 0 {
		return nil
	}
	out := make([]mynah.Entity, len(es))
	for i, e := range es {
		out[i] = mynah.Entity{Type: e.Type, Offset: e.Offset, Length: e.Length, URL: e.URL}
		if e.User != nil {
			u := user(e.User)
			out[i].User = &u
		}
	}
	return out
}

// replyRef describes what m replies to: a message of the same chat, or an external reply
// (another chat or topic), whose id is kept only when it is in the same chat. A quote
// stands in for the text when the replied-to message has none to show. Telegram marks
// every message of a forum topic as a reply to the topic's creation message; that is not a
// reply and yields nil.
func replyRef(m *telego.Message) *mynah.ReplyRef {
	var quote string
	if m.Quote != nil {
		quote = m.Quote.Text
	}
	if r := m.ReplyToMessage; r != nil {
		if m.IsTopicMessage && r.ForumTopicCreated != nil && r.MessageID == m.MessageThreadID {
			return nil
		}
		ref := &mynah.ReplyRef{ID: mynah.MessageID(r.MessageID), Sender: sender(r.From, r.SenderChat), Text: textOf(r)}
		if ref.Text == "" {
			ref.Text = quote
		}
		return ref
	}
	if e := m.ExternalReply; e != nil {
		ref := &mynah.ReplyRef{Sender: originSender(e.Origin), Text: quote}
		if e.Chat != nil && e.Chat.ID == m.Chat.ID {
			ref.ID = mynah.MessageID(e.MessageID)
		}
		return ref
	}
	return nil
}

func textOf(m *telego.Message) string {
	if m.Text != "" {
		return m.Text
	}
	return m.Caption
}

// originSender is the author a MessageOrigin names; a hidden user has only a name.
func originSender(o telego.MessageOrigin) mynah.User {
	switch o := o.(type) {
	case *telego.MessageOriginUser:
		return user(&o.SenderUser)
	case *telego.MessageOriginHiddenUser:
		return mynah.User{FirstName: o.SenderUserName}
	case *telego.MessageOriginChat:
		return chatUser(o.SenderChat)
	case *telego.MessageOriginChannel:
		return chatUser(o.Chat)
	}
	return mynah.User{}
}

func forward(o telego.MessageOrigin) *mynah.Forward {
	switch o := o.(type) {
	case *telego.MessageOriginUser:
		return &mynah.Forward{Kind: o.Type, From: user(&o.SenderUser), Date: unix(o.Date)}
	case *telego.MessageOriginHiddenUser:
		return &mynah.Forward{Kind: o.Type, Name: o.SenderUserName, Date: unix(o.Date)}
	case *telego.MessageOriginChat:
		return &mynah.Forward{Kind: o.Type, Name: chatUser(o.SenderChat).Name(),
			ChatID: mynah.ChatID(o.SenderChat.ID), Date: unix(o.Date)}
	case *telego.MessageOriginChannel:
		return &mynah.Forward{Kind: o.Type, Name: chatUser(o.Chat).Name(), ChatID: mynah.ChatID(o.Chat.ID),
			MessageID: mynah.MessageID(o.MessageID), Date: unix(o.Date)}
	}
	return nil
}
