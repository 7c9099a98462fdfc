package prompt

import (
	"strconv"
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
// {date}, {time}.
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
		"chatname":     chatName,
		"chatid":       strconv.FormatInt(int64(in.Chat.ID), 10),
		"chattype":     string(in.Chat.Type),
		"username":     in.User.Username,
		"userfullname": in.User.Name(),
		"userid":       strconv.FormatInt(int64(in.User.ID), 10),
		"botname":      in.Bot.Name(),
		"botusername":  in.Bot.Username,
		"membercount":  members,
		"tools":        in.Tools,
		"date":         in.Now.Format("2006-01-02"),
		"time":         in.Now.Format("15:04 MST"),
	}
}
