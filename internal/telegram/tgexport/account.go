package tgexport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mynah-ai/mynah"
)

// AccountChat is one chat of a whole-account export (Settings → Advanced → Export
// Telegram data), which holds every chat as an element of "chats" → "list" (and of
// "left_chats" → "list" for chats the account left), each shaped like a single-chat
// export.
type AccountChat struct {
	Chat     mynah.Chat
	Name     string // as the export names it
	Messages int    // messages, service messages not counted
	raw      json.RawMessage
}

// Export returns the chat as a single-chat export, for ReadChat and Decode.
func (c AccountChat) Export() io.Reader { return bytes.NewReader(c.raw) }

// ReadAccount reads a whole-account export from r and passes its chats to yield, one at
// a time (only the chat yield is given is held in memory), until yield returns false.
// When r is not such an export the error is a *FormatError.
func ReadAccount(r io.Reader, yield func(AccountChat) bool) error {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	if err := expectDelim(dec, '{'); err != nil {
		return &FormatError{Reason: "it is not a JSON object"}
	}
	found := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return &FormatError{Reason: err.Error()}
		}
		if key != "chats" && key != "left_chats" {
			if err := skipValue(dec); err != nil {
				return &FormatError{Reason: err.Error()}
			}
			continue
		}
		found = true
		more, err := readChatList(dec, yield)
		if err != nil || !more {
			return err
		}
	}
	if !found {
		return &FormatError{Reason: `it has no "chats" (not a whole-account export)`}
	}
	return nil
}

// readChatList reads {"about": …, "list": [chat, …]} and yields each chat; more is false
// when yield stopped.
func readChatList(dec *json.Decoder, yield func(AccountChat) bool) (more bool, err error) {
	if err := expectDelim(dec, '{'); err != nil {
		return false, &FormatError{Reason: `"chats" is not an object`}
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return false, &FormatError{Reason: err.Error()}
		}
		if key != "list" {
			if err := skipValue(dec); err != nil {
				return false, &FormatError{Reason: err.Error()}
			}
			continue
		}
		if err := expectDelim(dec, '['); err != nil {
			return false, &FormatError{Reason: `"list" is not an array`}
		}
		for i := 0; dec.More(); i++ {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return false, &FormatError{Reason: fmt.Sprintf("chat %d: %v", i, err)}
			}
			c, err := accountChat(raw)
			if err != nil {
				return false, fmt.Errorf("chat %d: %w", i, err)
			}
			if !yield(c) {
				return false, nil
			}
		}
		if _, err := dec.Token(); err != nil { // ]
			return false, &FormatError{Reason: err.Error()}
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return false, &FormatError{Reason: err.Error()}
	}
	return true, nil
}

// accountChat reads one chat of the list: its head and how many messages it holds.
func accountChat(raw json.RawMessage) (AccountChat, error) {
	chat, err := ReadChat(bytes.NewReader(raw))
	if err != nil {
		return AccountChat{}, err
	}
	var body struct {
		Name     string `json:"name"`
		Messages []struct {
			Type string `json:"type"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return AccountChat{}, &FormatError{Reason: err.Error()}
	}
	c := AccountChat{Chat: chat, Name: body.Name, raw: raw}
	for _, m := range body.Messages {
		if m.Type == "message" {
			c.Messages++
		}
	}
	return c, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("want %v, got %v", want, t)
	}
	return nil
}

// skipValue reads past the next value, however big, without keeping it.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}
