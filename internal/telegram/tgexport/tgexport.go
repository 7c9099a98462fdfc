// Package tgexport reads the chat history that Telegram Desktop exports ("Export chat
// history", format JSON) as mynah values: the chat as a mynah.Chat in the Bot API's form,
// each message as a mynah.Message.
//
// An export is one JSON object holding the chat's "name", "type" and "id" and a "messages"
// array. The reader streams it, so an export of any size is read in constant memory, and
// it does not stop at a bad message: Decode reports each one with where it is, which lets
// a caller check a whole export before it stores any of it, then decode it again to store.
// Service messages (joins, pins, calls) are skipped.
package tgexport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mynah-ai/mynah"
)

// FormatError reports that the input is not a Telegram Desktop export of a single chat.
type FormatError struct {
	// Reason says what is wrong, like `it has no "messages"`.
	Reason string
}

func (e *FormatError) Error() string {
	return "not a Telegram Desktop chat export (JSON): " + e.Reason
}

// ReadChat reads the chat an export belongs to from r, up to its "messages" and, for a
// supergroup, on through them until one creates a forum topic, which makes the chat a
// forum (IsForum). The chat's id is in the Bot API's form: -100… for supergroups and
// channels, negative for basic groups, the user's id for a personal chat (0 when the
// export has none). When r is not an export, the error is a *FormatError.
func ReadChat(r io.Reader) (mynah.Chat, error) {
	var h head
	err := walk(r, &h, func(_ int, raw json.RawMessage) bool {
		var sm struct{ Type, Action string }
		h.Forum = json.Unmarshal(raw, &sm) == nil && sm.Type == "service" && sm.Action == topicCreated
		return !h.Forum
	})
	return h.chat(), err
}

// topicCreated is the action of the service message that creates a forum topic; the
// topic's id is that message's id.
const topicCreated = "topic_created"

// Decode reads the export in r and passes each of its messages, in order, to yield, until
// yield returns false. Each comes with pos, where it is in the export ("messages[3] (id
// 12)"), and err, what is wrong with that message alone; the message is the zero value
// when err is not nil. A message in a forum topic has the topic's id as its ThreadID; it
// is in the topic when it replies to the topic's creation (which is then not a reply) or
// to a message in the topic, so Decode keeps the topic of each such message in memory.
// Decode returns a *FormatError when r is not an export (possibly
// after some messages were yielded) and nil when yield stopped it.
func Decode(r io.Reader, yield func(pos string, m mynah.Message, err error) bool) error {
	topic := map[int64]int64{} // message id → its forum topic, for messages in one
	return walk(r, nil, func(i int, raw json.RawMessage) bool {
		var em message
		if err := json.Unmarshal(raw, &em); err != nil {
			return yield(fmt.Sprintf("messages[%d]", i), mynah.Message{}, fmt.Errorf("not a message object: %w", err))
		}
		if em.Type != "message" {
			if em.Type == "service" && em.Action == topicCreated && em.ID > 0 {
				topic[em.ID] = em.ID
			}
			return true // service messages: joins, pins, calls
		}
		m, err := em.message()
		if err == nil && m.ReplyTo != nil {
			if m.ThreadID = topic[em.ReplyTo]; m.ThreadID == em.ReplyTo {
				m.ReplyTo = nil
			}
			if m.ThreadID != 0 {
				topic[em.ID] = m.ThreadID
			}
		}
		return yield(fmt.Sprintf("messages[%d] (id %d)", i, em.ID), m, err)
	})
}

// head is the export's description of its chat.
type head struct {
	Name  string
	Type  string
	ID    int64
	Forum bool // a message created a forum topic
}

// supergroup reports whether the export is a supergroup's.
func (h head) supergroup() bool {
	return h.Type == "private_supergroup" || h.Type == "public_supergroup"
}

// chat maps the export's chat to the Bot API's ids: supergroups and channels are
// -100…, basic groups negative, personal chats the user's id.
func (h head) chat() mynah.Chat {
	switch h.Type {
	case "private_group":
		return mynah.Chat{ID: mynah.ChatID(-h.ID), Type: mynah.ChatGroup, Title: h.Name}
	case "private_supergroup", "public_supergroup":
		return mynah.Chat{ID: mynah.ChatID(-1_000_000_000_000 - h.ID), Type: mynah.ChatSupergroup, Title: h.Name, IsForum: h.Forum}
	case "private_channel", "public_channel":
		return mynah.Chat{ID: mynah.ChatID(-1_000_000_000_000 - h.ID), Type: mynah.ChatChannel, Title: h.Name}
	}
	return mynah.Chat{ID: mynah.ChatID(h.ID), Type: mynah.ChatPrivate}
}

// walk streams an export: the head fields into h (when not nil), then each element of
// "messages" to fn (when not nil), without holding the input in memory. With fn nil, or
// h not a supergroup (only a supergroup's messages can make it a forum), it stops at
// "messages".
func walk(r io.Reader, h *head, fn func(i int, raw json.RawMessage) bool) error {
	bad := func(reason string) error { return &FormatError{Reason: reason} }
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return bad("it does not hold a JSON object")
	}
	found := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return bad(err.Error())
		}
		key, _ := tok.(string)
		switch {
		case key == "messages":
			found = true
			if fn == nil || h != nil && !h.supergroup() {
				return nil
			}
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
				return bad(`"messages" is not an array`)
			}
			for i := 0; dec.More(); i++ {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return bad(fmt.Sprintf("messages[%d]: %v", i, err))
				}
				if !fn(i, raw) {
					return nil
				}
			}
			if _, err := dec.Token(); err != nil {
				return bad(err.Error())
			}
		case h != nil && (key == "name" || key == "type" || key == "id"):
			var v any
			if err := dec.Decode(&v); err != nil {
				return bad(err.Error())
			}
			switch key {
			case "name":
				h.Name, _ = v.(string)
			case "type":
				h.Type, _ = v.(string)
			case "id":
				n, _ := v.(float64)
				h.ID = int64(n)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return bad(err.Error())
			}
			if key == "chats" {
				return bad("this is a whole-account export; export a single chat instead")
			}
		}
	}
	if !found {
		return bad(`it has no "messages"`)
	}
	return nil
}
