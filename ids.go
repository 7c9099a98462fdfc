package mynah

import "strings"

// MaxMessageID is the largest message id mynah stores: Telegram's ids are 32-bit, and the
// history index keys on them. Readers of past messages reject ids above it.
const MaxMessageID = 1<<31 - 1

// ChatFromID is a chat known only by its id, typed by the Bot API's conventions:
// positive ids are private chats, -100… ids supergroups, other negative ids basic groups.
func ChatFromID(id ChatID) Chat {
	switch {
	case id > 0:
		return Chat{ID: id, Type: ChatPrivate}
	case id < -1_000_000_000_000:
		return Chat{ID: id, Type: ChatSupergroup}
	}
	return Chat{ID: id, Type: ChatGroup}
}

// UserNamed is a user known by id and display name, as an export or a log names them:
// the first word is the first name and the rest the last, so that "Alice Smith" reads
// back as Alice Smith (see User.Name) and is addressed as Alice.
func UserNamed(id UserID, name string) User {
	first, last, _ := strings.Cut(strings.TrimSpace(name), " ")
	return User{ID: id, FirstName: first, LastName: strings.TrimSpace(last)}
}
