package prompt

import (
	"strconv"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
)

// VarsInput is what the {variables} of instructions are filled from.
type VarsInput struct {
	Chat    mynah.Chat
	Bot     mynah.User
	User    mynah.User // the sender of the target message
	Members int        // 0 when unknown
	Tools   string
	Now     time.Time
}

// Vars returns the substitution table of DESIGN §4: {chatname}, {chatid}, {chattype},
// {username}, {userfullname}, {userid}, {botname}, {botusername}, {membercount}, {tools},
// {date}, {time}. Values users choose (a chat's title, a person's name and username)
// reach the system text quoted and neutralised (quoteUser), never as instructions.
func Vars(in VarsInput) map[string]string {
	chatName := in.Chat.Title
	if chatName == "" {
		chatName = in.User.Name()
	}
	members := ""
	if in.Members > 0 {
		members = strconv.Itoa(in.Members)
	}
	return map[string]string{
		"chatname":     quoteUser(chatName),
		"chatid":       strconv.FormatInt(int64(in.Chat.ID), 10),
		"chattype":     string(in.Chat.Type),
		"username":     username(in.User.Username),
		"userfullname": quoteUser(in.User.Name()),
		"userid":       strconv.FormatInt(int64(in.User.ID), 10),
		"botname":      in.Bot.Name(),
		"botusername":  in.Bot.Username,
		"membercount":  members,
		"tools":        in.Tools,
		"date":         in.Now.Format("2006-01-02"),
		"time":         in.Now.Format("15:04 MST"),
	}
}

// username keeps the characters Telegram allows in a username (letters, digits and
// underscores), so that even a forged one cannot carry words into the system text.
func username(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return -1
	}, s)
}
