package main

import (
	"strings"
	"testing"
)

// TestConfigStore: `store:` in mynah.yaml, or MYNAH_DATABASE_URL, selects PostgreSQL
// (with ${VAR} resolved like any value), the environment winning; without either the
// store is the SQLite file in the data dir; anything but a PostgreSQL URL is refused with
// the key, and the password never shows in the error.
func TestConfigStore(t *testing.T) {
	for _, c := range []struct {
		name  string
		yaml  string
		env   map[string]string
		want  string // cfg.Store
		fails string // in the error
	}{
		{name: "absent", want: ""},
		{name: "in mynah.yaml", yaml: "store: postgres://mynah@db.example/mynah\n", want: "postgres://mynah@db.example/mynah"},
		{name: "from a variable", yaml: "store: ${PG}\n", env: map[string]string{"PG": "postgresql://m:pw@h/d"}, want: "postgresql://m:pw@h/d"},
		{name: "environment wins", yaml: "store: postgres://a@h/one\n", env: map[string]string{"MYNAH_DATABASE_URL": "postgres://b@h/two"}, want: "postgres://b@h/two"},
		{name: "not postgres", yaml: "store: mysql://root:hunter2@h/d\n", fails: "mynah.yaml: store: want a PostgreSQL URL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"OPENAI_API_KEY": "sk-test"}
			for k, v := range c.env {
				env[k] = v
			}
			cfg, err := testConfig(t, map[string]string{"mynah.yaml": c.yaml, "agents/Mynah.md": agentFile("model: openai/gpt-4o-mini\n")}, env)
			if c.fails != "" {
				if err == nil || !strings.Contains(err.Error(), c.fails) || strings.Contains(err.Error(), "hunter2") {
					t.Fatalf("err = %v, want one containing %q without the password", err, c.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(cfg.Store); got != c.want {
				t.Errorf("store = %q, want %q", got, c.want)
			}
		})
	}
}
