package telegramtest

import (
	"fmt"
	"slices"
	"strconv"
)

// MessageOption adjusts a message injected by SendPrivate, SendGroup or
// EditMessage.
type MessageOption func(*messageSpec)

type messageSpec struct {
	bots         []string
	replyTo      int
	thread       int
	entities     []MessageEntity
	textMentions []textMention
	media        func(s *Server, m *Message)
	mediaGroup   string
	origin       *MessageOrigin
}

type textMention struct {
	user User
	sub  string
}

// ToBot addresses a private message to the bot with token instead of the
// first bot; in groups it limits delivery to the given bots (repeatable).
func ToBot(token string) MessageOption {
	return func(m *messageSpec) { m.bots = append(m.bots, token) }
}

// ReplyTo makes the message a reply to messageID in the same chat; the
// update carries the stored message as reply_to_message. The message must
// exist.
func ReplyTo(messageID int) MessageOption {
	return func(m *messageSpec) { m.replyTo = messageID }
}

// InTopic posts the message in a forum topic (message_thread_id,
// is_topic_message).
func InTopic(threadID int) MessageOption {
	return func(m *messageSpec) { m.thread = threadID }
}

// WithEntities adds entities to the text; mention, bot_command, url and
// hashtag entities are computed automatically.
func WithEntities(es ...MessageEntity) MessageOption {
	return func(m *messageSpec) { m.entities = append(m.entities, es...) }
}

// TextMention adds a text_mention entity for user over the first occurrence
// of sub in the text.
func TextMention(user User, sub string) MessageOption {
	return func(m *messageSpec) { m.textMentions = append(m.textMentions, textMention{user, sub}) }
}

// WithPhoto attaches a photo (a file id from AddFile; "" stores an empty
// one); the text becomes its caption. When the file is a GIF, JPEG or PNG
// image, the photo comes in several sizes as on Telegram: scaled copies
// (90, 320, 800, 1280 and 2560 px on the long side, those smaller than the
// image), each its own downloadable file, then the image itself with its
// real dimensions. Other content is a single 1280×960 size.
func WithPhoto(fileID string) MessageOption {
	return func(m *messageSpec) {
		m.media = func(s *Server, msg *Message) { msg.Photo = s.photoSizesLocked(s.fileOrEmpty(fileID, KindPhoto)) }
	}
}

// WithSticker attaches a sticker with its emoji and set name; the text
// should be empty. The sticker is animated or a video sticker when the
// file's content is TGS (gzip) or WEBM (see AddFile).
func WithSticker(fileID, emoji, setName string) MessageOption {
	return func(m *messageSpec) {
		m.media = func(s *Server, msg *Message) {
			msg.Sticker = sticker(s.fileOrEmpty(fileID, KindSticker), emoji, setName)
		}
	}
}

// WithDocument attaches a document named fileName ("" keeps the file's
// name); the text becomes its caption. Its mime_type follows the name's
// extension as a Telegram app sets it (application/pdf, text/plain,
// text/markdown, text/csv, application/json, text/x-go, …;
// application/octet-stream when unknown).
func WithDocument(fileID, fileName string) MessageOption {
	return func(m *messageSpec) {
		m.media = func(s *Server, msg *Message) {
			f := *s.fileOrEmpty(fileID, KindDocument)
			if fileName != "" {
				f.name = fileName
			}
			msg.Document = document(&f)
		}
	}
}

// WithVoice attaches a voice note of duration seconds; the text becomes its
// caption.
func WithVoice(fileID string, duration int) MessageOption {
	return func(m *messageSpec) {
		m.media = func(s *Server, msg *Message) { msg.Voice = voice(s.fileOrEmpty(fileID, KindVoice), duration) }
	}
}

// WithVideo attaches a video of duration seconds; the text becomes its
// caption. Its width and height are the MP4's own, else 1280×720.
func WithVideo(fileID string, duration int) MessageOption {
	return func(m *messageSpec) {
		m.media = func(s *Server, msg *Message) { msg.Video = video(s.fileOrEmpty(fileID, KindVideo), duration) }
	}
}

// WithVideoNote attaches a round video message of duration seconds; its
// side is the MP4's, else 384 px.
func WithVideoNote(fileID string, duration int) MessageOption {
	return func(m *messageSpec) {
		m.media = func(s *Server, msg *Message) {
			msg.VideoNote = videoNote(s.fileOrEmpty(fileID, KindVideoNote), duration)
		}
	}
}

// WithAnimation attaches an animation (a GIF, which Telegram turns into a
// silent MP4) with the MP4's size and duration; as on Telegram the message
// also carries it as its document. The text becomes its caption.
func WithAnimation(fileID string) MessageOption {
	return func(m *messageSpec) {
		m.media = func(s *Server, msg *Message) {
			f := s.fileOrEmpty(fileID, KindAnimation)
			msg.Animation = animation(f)
			a := msg.Animation
			msg.Document = &Document{FileID: a.FileID, FileUniqueID: a.FileUniqueID, FileName: a.FileName,
				MimeType: a.MimeType, FileSize: a.FileSize}
		}
	}
}

// WithAudio attaches a music file of duration seconds with a title; the
// text becomes its caption.
func WithAudio(fileID string, duration int, title string) MessageOption {
	return func(m *messageSpec) {
		m.media = func(s *Server, msg *Message) {
			msg.Audio = audio(s.fileOrEmpty(fileID, KindAudio), duration, title)
		}
	}
}

// WithMediaGroup makes the message part of the album id (media_group_id):
// inject each item of an album as its own message with the same id, as
// Telegram delivers them. They all carry the date of the album's first
// message.
func WithMediaGroup(id string) MessageOption {
	return func(m *messageSpec) { m.mediaGroup = id }
}

// Forwarded marks the message as forwarded from origin.
func Forwarded(origin MessageOrigin) MessageOption {
	return func(m *messageSpec) { m.origin = &origin }
}

func (s *Server) fileOrEmpty(fileID string, kind FileKind) *storedFile {
	if f := s.files[fileID]; f != nil {
		return f
	}
	return s.addFileLocked(nil, kind, "")
}

// AddChat registers a chat so bots can send to it before anyone writes
// there. A private chat counts as started with every bot.
func (s *Server) AddChat(chat Chat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if chat.Type == ChatPrivate {
		s.users[chat.ID] = User{ID: chat.ID, FirstName: chat.FirstName, LastName: chat.LastName, Username: chat.Username}
		for _, b := range s.bots {
			s.chatLocked(chat, b.user.ID)
		}
		return
	}
	s.chatLocked(chat, 0)
}

// AddUser makes a user known without starting a chat: bots sending to them
// get 403 "Forbidden: bot can't initiate conversation with a user".
func (s *Server) AddUser(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users[u.ID] = u
}

// botsFor returns the bots a message goes to: the ToBot ones, else the
// first bot (private) or all bots (groups).
func (s *Server) botsFor(spec *messageSpec, private bool) []*bot {
	var out []*bot
	for _, t := range spec.bots {
		b := s.bots[t]
		if b == nil {
			panic(fmt.Sprintf("telegramtest: unknown bot token %q", t))
		}
		out = append(out, b)
	}
	switch {
	case len(out) > 0 && private:
		return out[:1]
	case len(out) > 0:
		return out
	case private:
		return []*bot{s.defaultBot}
	}
	for _, b := range s.bots {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b *bot) int { return int(a.user.ID - b.user.ID) })
	return out
}

// SendPrivate delivers a message from the user to a bot's private chat (the
// first bot unless ToBot) as a "message" update and returns it.
func (s *Server) SendPrivate(from User, text string, opts ...MessageOption) Message {
	spec := buildSpec(opts)
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.botsFor(spec, true)[0]
	cs := s.chatLocked(PrivateChat(from), b.user.ID)
	msg := s.userMessageLocked(cs, from, text, spec)
	s.enqueue(b, Update{Message: ptr(msg.clone())})
	return msg
}

// SendGroup delivers a message from the user in chat (type "group" if
// unset) to every bot, or to the ToBot ones, and returns it.
func (s *Server) SendGroup(chat Chat, from User, text string, opts ...MessageOption) Message {
	if chat.Type == "" {
		chat.Type = ChatGroup
	}
	spec := buildSpec(opts)
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.chatLocked(chat, 0)
	msg := s.userMessageLocked(cs, from, text, spec)
	for _, b := range s.botsFor(spec, false) {
		s.enqueue(b, Update{Message: ptr(msg.clone())})
	}
	return msg
}

// EditMessage changes the text (or caption) of a user's message and
// delivers an "edited_message" update. Private chats are those of the first
// bot unless ToBot.
func (s *Server) EditMessage(chatID int64, messageID int, text string, opts ...MessageOption) (Message, error) {
	spec := buildSpec(opts)
	s.mu.Lock()
	defer s.mu.Unlock()
	private := chatID > 0
	bots := s.botsFor(spec, private)
	key := chatKey{id: chatID}
	if private {
		key.botID = bots[0].user.ID
	}
	cs := s.chats[key]
	if cs == nil || cs.get(messageID) == nil {
		return Message{}, fmt.Errorf("telegramtest: message %d not found in chat %d", messageID, chatID)
	}
	sm := cs.get(messageID)
	if sm.botID != 0 {
		return Message{}, fmt.Errorf("telegramtest: message %d in chat %d was sent by a bot", messageID, chatID)
	}
	es := messageEntities(text, spec)
	if sm.msg.Text != "" || sm.msg.Caption == "" && !hasMedia(sm.msg) {
		sm.msg.Text, sm.msg.Entities = text, es
	} else {
		sm.msg.Caption, sm.msg.CaptionEntities = text, es
	}
	sm.msg.EditDate = s.now().Unix()
	msg := sm.msg.clone()
	for _, b := range bots {
		s.enqueue(b, Update{EditedMessage: ptr(msg.clone())})
	}
	return msg, nil
}

// Inject queues a raw update for the bot with token, assigning its
// update_id, and returns it. Updates filtered out by the bot's
// allowed_updates are dropped and come back with UpdateID 0.
func (s *Server) Inject(token string, u Update) Update {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bots[token]
	if b == nil {
		panic(fmt.Sprintf("telegramtest: unknown bot token %q", token))
	}
	return s.enqueue(b, u)
}

// PressButton delivers a callback_query for an inline button with data on
// the message messageID that a bot sent to chatID, to that bot. As in a
// Telegram client, only a button the message shows now can be pressed: data
// that none of its buttons carries is an error. The bot may answer the query
// once (answerCallbackQuery; see CallbackAnswers).
func (s *Server) PressButton(from User, chatID int64, messageID int, data string) (Update, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, cs := range s.chats {
		if key.id != chatID {
			continue
		}
		sm := cs.get(messageID)
		if sm == nil || sm.botID == 0 {
			continue
		}
		if !hasButton(sm.msg.ReplyMarkup, data) {
			return Update{}, fmt.Errorf("telegramtest: message %d in chat %d has no button with data %q", messageID, chatID, data)
		}
		for _, b := range s.bots {
			if b.user.ID == sm.botID {
				s.users[from.ID] = from
				msg := sm.msg.clone()
				q := &CallbackQuery{
					ID: strconv.FormatInt(from.ID, 10) + "-" + strconv.Itoa(b.nextUpdateID), From: from, Message: &msg,
					ChatInstance: strconv.FormatInt(chatID, 10), Data: data,
				}
				if s.presses == nil {
					s.presses = map[string]pressed{}
				}
				s.presses[q.ID] = pressed{botID: b.user.ID, from: from.ID, chatID: chatID, messageID: messageID, data: data}
				return s.enqueue(b, Update{CallbackQuery: q}), nil
			}
		}
	}
	return Update{}, fmt.Errorf("telegramtest: no bot message %d in chat %d", messageID, chatID)
}

func buildSpec(opts []MessageOption) *messageSpec {
	spec := &messageSpec{}
	for _, o := range opts {
		o(spec)
	}
	return spec
}

func hasMedia(m Message) bool {
	return m.Photo != nil || m.Sticker != nil || m.Document != nil || m.Voice != nil || m.Video != nil ||
		m.VideoNote != nil || m.Animation != nil || m.Audio != nil
}

func messageEntities(text string, spec *messageSpec) []MessageEntity {
	es := slices.Clone(spec.entities)
	for _, tm := range spec.textMentions {
		if off, n, ok := UTF16Range(text, tm.sub); ok {
			u := tm.user
			es = append(es, MessageEntity{Type: "text_mention", Offset: off, Length: n, User: &u})
		}
	}
	return detectEntities(text, es)
}

// userMessageLocked creates and stores a message from a user in cs.
func (s *Server) userMessageLocked(cs *chatState, from User, text string, spec *messageSpec) Message {
	s.users[from.ID] = from
	msg := Message{From: ptr(from), Date: s.now().Unix(), Chat: cs.chat, ForwardOrigin: spec.origin}
	thread := spec.thread
	if spec.replyTo != 0 {
		target := cs.get(spec.replyTo)
		if target == nil {
			panic(fmt.Sprintf("telegramtest: ReplyTo: no message %d in chat %d", spec.replyTo, cs.chat.ID))
		}
		r := target.msg.clone()
		r.ReplyToMessage = nil
		msg.ReplyToMessage = &r
		if thread == 0 {
			thread = r.MessageThreadID
		}
	}
	if thread != 0 && (cs.chat.IsForum || cs.chat.Type == ChatPrivate) {
		msg.MessageThreadID, msg.IsTopicMessage = thread, true
	}
	if id := spec.mediaGroup; id != "" {
		msg.MediaGroupID = id
		if date, ok := s.groupDates[id]; ok {
			msg.Date = date
		} else {
			s.groupDates[id] = msg.Date
		}
	}
	es := messageEntities(text, spec)
	if spec.media != nil {
		spec.media(s, &msg)
		msg.Caption, msg.CaptionEntities = text, es
	} else {
		msg.Text, msg.Entities = text, es
	}
	msg.MessageID = cs.nextID()
	cs.msgs[msg.MessageID] = &storedMsg{msg: msg.clone()}
	return msg
}

func ptr[T any](v T) *T { return &v }
