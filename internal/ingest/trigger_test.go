package ingest

import (
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/mynah-ai/mynah"
)

var (
	bot     = mynah.User{ID: 777, FirstName: "Mynah", Username: "mynah_bot", IsBot: true}
	group   = mynah.Chat{ID: -100123, Type: mynah.ChatSupergroup, Title: "Friends"}
	private = mynah.Chat{ID: 42, Type: mynah.ChatPrivate}
	alice   = mynah.User{ID: 42, FirstName: "Alice", Username: "alice"}
)

// mention builds a mention entity for the first occurrence of word in text, with UTF-16
// offsets as Telegram sends them.
func mention(text, word string) mynah.Entity {
	u := utf16.Encode([]rune(text))
	w := utf16.Encode([]rune(word))
	for i := 0; i+len(w) <= len(u); i++ {
		if string(utf16.Decode(u[i:i+len(w)])) == word {
			return mynah.Entity{Type: "mention", Offset: i, Length: len(w)}
		}
	}
	panic("word not in text")
}

func TestAddressed(t *testing.T) {
	trig := NewTrigger(bot, []string{"Mynah", "Майна"})
	tests := []struct {
		name string
		msg  mynah.Message
		want bool
	}{
		{"private always", mynah.Message{Chat: private, Text: "hello"}, true},
		{"group chatter", mynah.Message{Chat: group, Text: "lunch anyone?"}, false},
		{"group mention", mynah.Message{Chat: group, Text: "hey @mynah_bot what's up", Entities: []mynah.Entity{mention("hey @mynah_bot what's up", "@mynah_bot")}}, true},
		{"mention case-insensitive", mynah.Message{Chat: group, Text: "@Mynah_Bot hi", Entities: []mynah.Entity{mention("@Mynah_Bot hi", "@Mynah_Bot")}}, true},
		{"mention of another bot", mynah.Message{Chat: group, Text: "@other_bot hi", Entities: []mynah.Entity{mention("@other_bot hi", "@other_bot")}}, false},
		{"mention after emoji and Cyrillic (UTF-16 offsets)", mynah.Message{Chat: group, Text: "🦜 Привіт, @mynah_bot, як справи?", Entities: []mynah.Entity{mention("🦜 Привіт, @mynah_bot, як справи?", "@mynah_bot")}}, true},
		{"text mention", mynah.Message{Chat: group, Text: "Mynah look", Entities: []mynah.Entity{{Type: "text_mention", Offset: 0, Length: 5, User: &mynah.User{ID: 777}}}}, true},
		{"text mention of someone else", mynah.Message{Chat: group, Text: "Bob look", Entities: []mynah.Entity{{Type: "text_mention", Offset: 0, Length: 3, User: &mynah.User{ID: 5}}}}, false},
		{"reply to the bot", mynah.Message{Chat: group, Text: "why?", ReplyTo: &mynah.ReplyRef{ID: 9, Sender: bot}}, true},
		{"reply to a person", mynah.Message{Chat: group, Text: "why?", ReplyTo: &mynah.ReplyRef{ID: 9, Sender: alice}}, false},
		{"named", mynah.Message{Chat: group, Text: "mynah, what time is it?"}, true},
		{"named Cyrillic", mynah.Message{Chat: group, Text: "Майна, котра година?"}, true},
		{"named Cyrillic lower case", mynah.Message{Chat: group, Text: "а що думає майна?"}, true},
		{"Cyrillic name inside a word", mynah.Message{Chat: group, Text: "Майнабуд сьогодні"}, false},
		{"Cyrillic letter before name", mynah.Message{Chat: group, Text: "прМайна"}, false},
		{"name inside a word", mynah.Message{Chat: group, Text: "mynahs are birds"}, false},
		{"name after digits", mynah.Message{Chat: group, Text: "2mynah"}, false},
		{"name with punctuation", mynah.Message{Chat: group, Text: "(Mynah!)"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := trig.Addressed(&tt.msg); got != tt.want {
				t.Errorf("Addressed(%q) = %v, want %v", tt.msg.Text, got, tt.want)
			}
		})
	}
}

func TestParseCommand(t *testing.T) {
	cmd := func(text string) *mynah.Message {
		word := text
		for i, r := range text {
			if r == ' ' {
				word = text[:i]
				break
			}
		}
		return &mynah.Message{Text: text, Entities: []mynah.Entity{{Type: "bot_command", Offset: 0, Length: len(utf16.Encode([]rune(word)))}}}
	}
	tests := []struct {
		msg    *mynah.Message
		want   string
		wantOK bool
	}{
		{cmd("/start"), "start", true},
		{cmd("/reset@mynah_bot"), "reset", true},
		{cmd("/RESET@Mynah_Bot"), "reset", true},
		{cmd("/new please"), "new", true},
		{cmd("/reset@other_bot"), "", false},
		{&mynah.Message{Text: "/start"}, "", false}, // no entity: not a command
		{&mynah.Message{Text: "see /help", Entities: []mynah.Entity{{Type: "bot_command", Offset: 4, Length: 5}}}, "", false},
	}
	for _, tt := range tests {
		got, ok := ParseCommand(tt.msg, "mynah_bot")
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ParseCommand(%q) = %q, %v; want %q, %v", tt.msg.Text, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestHoldBack(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	long := strings.Repeat("слово ", 700) // 4200 characters: a part of a split paste
	tests := []struct {
		name     string
		text     string
		album    string
		forward  bool
		debounce time.Duration
		want     time.Duration
	}{
		{"short message runs at once", "hello", "", false, 0, 0},
		{"a part of a long paste waits for the rest", long, "", false, 0, splitHold},
		{"an album item waits for the others", "look", "13579", false, 0, albumHold},
		{"a forwarded message waits for the rest of the batch", "fwd", "", true, 0, forwardHold},
		{"debounce holds every message", "hello", "", false, time.Second, time.Second},
		{"the longer wait wins", "look", "13579", false, time.Second, time.Second},
	}
	for _, tt := range tests {
		msg := &mynah.Message{Text: tt.text}
		if tt.forward {
			msg.Forward = &mynah.Forward{Kind: "user", From: mynah.User{ID: 5, FirstName: "Eve"}}
		}
		got := holdBack(msg, tt.album, tt.debounce, now)
		if tt.want == 0 && !got.IsZero() || tt.want != 0 && got.Sub(now) != tt.want {
			t.Errorf("%s: holdBack = %v, want now+%v", tt.name, got, tt.want)
		}
	}
}
