package tgexport

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah"
)

// TestReadAccount: a whole-account export yields each chat, left ones too, with its id in
// the Bot API's form and its message count; each reads as a single-chat export.
func TestReadAccount(t *testing.T) {
	f, err := os.Open("testdata/account.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []string
	var texts []string
	err = ReadAccount(f, func(c AccountChat) bool {
		got = append(got, c.Name+" "+string(c.Chat.Type)+" "+strconv.FormatInt(int64(c.Chat.ID), 10)+" "+strconv.Itoa(c.Messages))
		return Decode(c.Export(), func(_ string, m mynah.Message, err error) bool {
			if err != nil {
				t.Errorf("%s: %v", c.Name, err)
			}
			texts = append(texts, m.Text)
			return true
		}) == nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "Bob private 2002 2|Birders supergroup -1000000000777 1|Old club group -888 0"
	if strings.Join(got, "|") != want {
		t.Errorf("chats %q, want %q", strings.Join(got, "|"), want)
	}
	if strings.Join(texts, "|") != "see you at the lake|bring the binoculars|a heron at dawn" {
		t.Errorf("messages %q", texts)
	}
	for _, bad := range []string{`{"name": "x", "type": "personal_chat", "id": 1, "messages": []}`, `[]`, `{"chats": 5}`} {
		var fe *FormatError
		if err := ReadAccount(strings.NewReader(bad), func(AccountChat) bool { return true }); err == nil || !errors.As(err, &fe) {
			t.Errorf("ReadAccount(%s) = %v, want a FormatError", bad, err)
		}
	}
}
