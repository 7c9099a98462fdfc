package telegramtest

import (
	"bytes"
	"context"
	"slices"
	"strings"
)

// outgoing is a message a bot is sending: its text or caption, parsed, and
// how to fill in media.
type outgoing struct {
	method  string
	raw     string
	f       formatted
	rule    textRule
	caption bool
	// media fills in the media fields; it runs under s.mu and returns the
	// file id, or an error.
	media func(m *Message) (string, *Error)
}

// send stores and returns a new message from b, after the checks the server
// makes in its order: chat, reply target, text limits, blocked user.
func (s *Server) send(b *bot, p params, out outgoing) (any, string, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := checkKeyboard(p); e != nil {
		return nil, "", e
	}
	cs, e := s.chatFor(b, p)
	if e != nil {
		return nil, "", e
	}
	reply, e := s.replyTarget(cs, p)
	if e != nil {
		return nil, "", e
	}
	f, e := out.f.finish(out.rule)
	if e != nil {
		return nil, "", e
	}
	if e := s.checkBlocked(cs); e != nil {
		return nil, "", e
	}
	from := b.asUser()
	msg := Message{
		From:           &from,
		Date:           s.now().Unix(),
		Chat:           cs.chat,
		ReplyToMessage: reply,
		ReplyMarkup:    inlineMarkup(p),
	}
	if t := threadFor(cs, p, reply); t != 0 {
		msg.MessageThreadID, msg.IsTopicMessage = t, true
	}
	var fileID string
	if out.media != nil {
		if fileID, e = out.media(&msg); e != nil {
			return nil, "", e
		}
	}
	if out.caption {
		msg.Caption, msg.CaptionEntities = f.text, f.entities
	} else {
		msg.Text, msg.Entities = f.text, f.entities
	}
	msg.MessageID = cs.nextID()
	sm := &SentMessage{
		BotID:       b.user.ID,
		ChatID:      cs.chat.ID,
		MessageID:   msg.MessageID,
		ThreadID:    msg.MessageThreadID,
		Method:      out.method,
		Text:        f.text,
		Raw:         out.raw,
		ParseMode:   p.str("parse_mode"),
		Entities:    slices.Clone(f.entities),
		ReplyMarkup: msg.ReplyMarkup,
		FileID:      fileID,
		Message:     msg.clone(),
	}
	if reply != nil {
		sm.ReplyTo = reply.MessageID
	}
	cs.msgs[msg.MessageID] = &storedMsg{msg: msg.clone(), botID: b.user.ID, sent: sm}
	s.sent = append(s.sent, sm)
	s.drafts = slices.DeleteFunc(s.drafts, func(d Draft) bool {
		return d.BotID == b.user.ID && d.ChatID == cs.chat.ID
	})
	s.emit(Event{Kind: EventSent, Message: sm.clone()})
	return msg, "", nil
}

func (s *Server) sendMessage(_ context.Context, b *bot, p params) (any, string, *Error) {
	raw := p.str("text")
	if raw == "" {
		return nil, "", badRequest(msgTextEmpty)
	}
	f, e := parseText(raw, p, "entities")
	if e != nil {
		return nil, "", e
	}
	return s.send(b, p, outgoing{method: "sendMessage", raw: raw, f: f, rule: messageRule()})
}

// messageID reads message_id, failing as the server does when it is absent.
func messageID(p params) (int, *Error) {
	id, _ := p.int("message_id")
	if id <= 0 {
		return 0, badRequest(msgMessageIDMissing)
	}
	return int(id), nil
}

func (s *Server) editMessageText(_ context.Context, b *bot, p params) (any, string, *Error) {
	if p.has("inline_message_id") && !p.has("chat_id") {
		return nil, "", badRequest(msgInlineUnsupported)
	}
	raw := p.str("text")
	if raw == "" {
		return nil, "", badRequest(msgTextEmpty)
	}
	parsed, e := parseText(raw, p, "entities")
	if e != nil {
		return nil, "", e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sm, e := s.targetMessage(b, p, msgEditNotFound)
	if e != nil {
		return nil, "", e
	}
	if sm.botID != b.user.ID {
		return nil, "", badRequest(msgCantEdit)
	}
	if sm.msg.Text == "" {
		return nil, "", badRequest("there is no text in the message to edit")
	}
	f, e := parsed.finish(messageRule())
	if e != nil {
		return nil, "", e
	}
	if e := checkKeyboard(p); e != nil {
		return nil, "", e
	}
	markup := inlineMarkup(p)
	if f.text == sm.msg.Text && slices.Equal(f.entities, sm.msg.Entities) && bytes.Equal(markup, sm.msg.ReplyMarkup) {
		return nil, "", badRequest(msgNotModified)
	}
	now := s.now()
	sm.msg.Text, sm.msg.Entities, sm.msg.ReplyMarkup, sm.msg.EditDate = f.text, f.entities, markup, now.Unix()
	sent := sm.sent
	sent.Text, sent.Raw, sent.ParseMode, sent.Entities = f.text, raw, p.str("parse_mode"), slices.Clone(f.entities)
	sent.ReplyMarkup = markup
	sent.Edits = append(sent.Edits, Edit{Text: f.text, Raw: raw, ParseMode: sent.ParseMode, Entities: slices.Clone(f.entities), Date: now})
	sent.Message = sm.msg.clone()
	s.emit(Event{Kind: EventEdited, Message: sent.clone()})
	return sm.msg.clone(), "", nil
}

func (s *Server) deleteMessage(_ context.Context, b *bot, p params) (any, string, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sm, e := s.targetMessage(b, p, msgDeleteNotFound)
	if e != nil {
		return nil, "", e
	}
	sm.deleted = true
	if sm.sent != nil {
		sm.sent.Deleted = true
		s.emit(Event{Kind: EventDeleted, Message: sm.sent.clone()})
	}
	return true, "", nil
}

// validAction reports whether action is one the server accepts
// (Client.cpp get_chat_action), aliases included.
func validAction(action string) bool {
	switch action {
	case "typing", "cancel", "upload_photo", "record_video", "upload_video",
		"record_voice", "record_audio", "upload_voice", "upload_audio",
		"upload_document", "choose_sticker", "find_location", "pick_up_location",
		"record_video_note", "upload_video_note":
		return true
	}
	return false
}

func (s *Server) sendChatAction(_ context.Context, b *bot, p params) (any, string, *Error) {
	action := p.str("action")
	if !validAction(action) {
		return nil, "", badRequest(msgBadAction)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cs, e := s.chatFor(b, p)
	if e != nil {
		return nil, "", e
	}
	if e := s.checkBlocked(cs); e != nil {
		return nil, "", e
	}
	thread, _ := p.int("message_thread_id")
	a := Action{BotID: b.user.ID, ChatID: cs.chat.ID, ThreadID: int(thread), Action: action, Time: s.now()}
	s.actions = append(s.actions, a)
	s.emit(Event{Kind: EventAction, Action: a})
	return true, "", nil
}

func (s *Server) sendMessageDraft(_ context.Context, b *bot, p params) (any, string, *Error) {
	draftID, _ := p.int("draft_id")
	raw := p.str("text")
	parsed, e := parseText(raw, p, "entities")
	if e != nil {
		return nil, "", e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cs, e := s.chatFor(b, p)
	if e != nil {
		return nil, "", e
	}
	if cs.chat.Type != ChatPrivate {
		return nil, "", badRequest(msgDraftNotPrivate)
	}
	if draftID == 0 {
		return nil, "", badRequest(msgDraftIDZero)
	}
	f, e := parsed.finish(draftRule())
	if e != nil {
		return nil, "", e
	}
	if e := s.checkBlocked(cs); e != nil {
		return nil, "", e
	}
	thread, _ := p.int("message_thread_id")
	d := Draft{
		BotID: b.user.ID, ChatID: cs.chat.ID, ThreadID: int(thread), DraftID: draftID,
		Text: f.text, ParseMode: p.str("parse_mode"), Entities: f.entities, Updates: 1, Time: s.now(),
	}
	i := slices.IndexFunc(s.drafts, func(x Draft) bool {
		return x.BotID == d.BotID && x.ChatID == d.ChatID && x.DraftID == d.DraftID
	})
	if i >= 0 {
		d.Updates = s.drafts[i].Updates + 1
		s.drafts[i] = d
	} else {
		s.drafts = append(s.drafts, d)
	}
	d.Entities = slices.Clone(d.Entities)
	s.emit(Event{Kind: EventDraft, Draft: d})
	return true, "", nil
}

func (s *Server) setMessageReaction(_ context.Context, b *bot, p params) (any, string, *Error) {
	var reactions []ReactionType
	if p.has("reaction") {
		if err := p.decode("reaction", &reactions); err != nil {
			return nil, "", badRequest("can't parse ReactionType: " + err.Error())
		}
	}
	allowed := s.reactionEmoji()
	for _, r := range reactions {
		switch r.Type {
		case "emoji":
			if !slices.Contains(allowed, r.Emoji) {
				return nil, "", badRequest(msgReactionInvalid)
			}
		case "custom_emoji":
			if r.CustomEmojiID == "" {
				return nil, "", badRequest(msgBadReactionType)
			}
		default:
			return nil, "", badRequest(msgBadReactionType)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sm, e := s.targetMessage(b, p, msgReactNotFound)
	if e != nil {
		return nil, "", e
	}
	if len(reactions) > 1 {
		return nil, "", badRequest(msgReactionsTooMany)
	}
	r := Reaction{BotID: b.user.ID, ChatID: sm.msg.Chat.ID, MessageID: sm.msg.MessageID, Reaction: reactions, IsBig: p.bool("is_big")}
	s.reactions = append(s.reactions, r)
	r.Reaction = slices.Clone(reactions)
	s.emit(Event{Kind: EventReaction, Reaction: r})
	return true, "", nil
}

// reactionEmoji returns the emoji bots may react with, read from the spec's
// description of ReactionTypeEmoji.emoji.
func (s *Server) reactionEmoji() []string {
	t := s.apiSpec().types["ReactionTypeEmoji"]
	if t == nil || t.byName["emoji"] == nil {
		return nil
	}
	var out []string
	parts := strings.Split(t.byName["emoji"].Description, `"`)
	for i := 1; i < len(parts); i += 2 {
		out = append(out, parts[i])
	}
	return out
}

// targetMessage resolves the chat_id and message_id parameters of a call to a live
// message, answering notFound (Telegram's wording for the method) when there is none.
// The caller holds s.mu.
func (s *Server) targetMessage(b *bot, p params, notFound string) (*storedMsg, *Error) {
	cs, e := s.chatFor(b, p)
	if e != nil {
		return nil, e
	}
	id, e := messageID(p)
	if e != nil {
		return nil, e
	}
	sm := cs.get(id)
	if sm == nil {
		return nil, badRequest(notFound)
	}
	return sm, nil
}
