package access

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/mynah-ai/mynah"
)

// Users is a set of users named by id or by @username. The zero value is empty. Usernames
// match case-insensitively; a user who renames loses a username entry, so ids are the
// safer choice.
type Users struct {
	ids   map[mynah.UserID]bool
	names map[string]bool // lower case, without '@'
}

var usernamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{4,31}$`) })

// ParseUsers reads refs, each a numeric user id or an @username. The error names the
// first entry that is neither.
func ParseUsers(refs []string) (Users, error) {
	var u Users
	for _, ref := range refs {
		ref = strings.TrimSpace(ref)
		if name, ok := strings.CutPrefix(ref, "@"); ok {
			if !usernamePattern().MatchString(name) {
				return Users{}, fmt.Errorf("%q is not a Telegram username (5-32 letters, digits or _)", ref)
			}
			if u.names == nil {
				u.names = map[string]bool{}
			}
			u.names[strings.ToLower(name)] = true
			continue
		}
		id, err := strconv.ParseInt(ref, 10, 64)
		if err != nil || id <= 0 {
			return Users{}, fmt.Errorf("%q is neither a user id (a positive number) nor an @username", ref)
		}
		if u.ids == nil {
			u.ids = map[mynah.UserID]bool{}
		}
		u.ids[mynah.UserID(id)] = true
	}
	return u, nil
}

// Contains reports whether user is in the set, by id or by username.
func (u Users) Contains(user mynah.User) bool {
	if u.ids[user.ID] {
		return true
	}
	return user.Username != "" && u.names[strings.ToLower(user.Username)]
}

// Len is the number of entries.
func (u Users) Len() int { return len(u.ids) + len(u.names) }
