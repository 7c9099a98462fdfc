package mynah_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

func TestChatFromID(t *testing.T) {
	for _, tt := range []struct {
		id   mynah.ChatID
		want mynah.ChatType
	}{
		{42, mynah.ChatPrivate},
		{-100777, mynah.ChatGroup},
		{-1_000_000_000_000, mynah.ChatGroup},
		{-1001234567890, mynah.ChatSupergroup},
	} {
		if got, want := mynah.ChatFromID(tt.id), (mynah.Chat{ID: tt.id, Type: tt.want}); got != want {
			t.Errorf("ChatFromID(%d) = %+v, want %+v", tt.id, got, want)
		}
	}
}

func TestUserNamed(t *testing.T) {
	for _, tt := range []struct {
		name string
		want mynah.User
	}{
		{"Alice", mynah.User{ID: 7, FirstName: "Alice"}},
		{" Alice Smith ", mynah.User{ID: 7, FirstName: "Alice", LastName: "Smith"}},
		{"Jean Luc  Picard", mynah.User{ID: 7, FirstName: "Jean", LastName: "Luc  Picard"}},
		{"Jean  Luc", mynah.User{ID: 7, FirstName: "Jean", LastName: "Luc"}},
		{"", mynah.User{ID: 7}},
	} {
		got := mynah.UserNamed(7, tt.name)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("UserNamed(7, %q) (-want +got):\n%s", tt.name, diff)
		}
	}
}
