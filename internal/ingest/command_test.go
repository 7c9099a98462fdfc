package ingest

import (
	"testing"

	"github.com/mynah-ai/mynah/internal/access"
)

// TestCommandsAdminAgreesWithPolicy: the table's admin flag is what the access policy
// enforces, so menus never offer admins less, or everybody more, than they may use.
func TestCommandsAdminAgreesWithPolicy(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Commands() {
		if seen[c.Name] {
			t.Errorf("/%s is listed twice", c.Name)
		}
		seen[c.Name] = true
		if got, want := c.Admin, access.AdminCommand(c.Name); got != want {
			t.Errorf("/%s: Admin = %v, but access.AdminCommand says %v", c.Name, got, want)
		}
		if c.Description == "" {
			t.Errorf("/%s has no menu description", c.Name)
		}
		if !answers(c.Name) {
			t.Errorf("/%s is in the table but not answered", c.Name)
		}
	}
	if answers("weather") {
		t.Error("a command outside the table is answered")
	}
}
