package main

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/cli"
)

// cliSettings are the settings of a provider of kind cli: a command-line agent used as a
// model (model: cli/NAME names the provider NAME):
//
//	providers:
//	  claude-code:
//	    kind: cli
//	    command: claude -p --output-format stream-json --verbose
//	    format: claude          # claude, codex, gemini or text
//	    timeout: 10m            # a call running longer is killed
//	    idle_timeout: 2h        # a session unused this long starts again
type cliSettings struct {
	Command     commandLine `yaml:"command"`
	Format      string      `yaml:"format"`
	Resume      commandLine `yaml:"resume"` // arguments resuming a session, {session} its id
	Timeout     duration    `yaml:"timeout"`
	IdleTimeout duration    `yaml:"idle_timeout"`
	Dir         string      `yaml:"dir"` // working directory of the command
}

// commandLine is a command with its arguments: a list, or a string split at white space.
type commandLine []string

// UnmarshalYAML reads a list or a string.
func (c *commandLine) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*c = strings.Fields(n.Value)
		return nil
	case yaml.SequenceNode:
		var list []string
		if err := n.Decode(&list); err != nil {
			return valueError(n, "must be a command line or a list of its words")
		}
		*c = list
		return nil
	}
	return valueError(n, "must be a command line or a list of its words")
}

// validateCLI checks the provider name of kind cli in file.
func validateCLI(file, name string, p providerConfig) error {
	key := "providers." + name
	if len(p.Command) == 0 {
		return &configError{file, key + ".command", "required for kind cli: the command line of the agent, e.g. claude -p --output-format stream-json --verbose"}
	}
	if _, err := cli.ParseFormat(p.Format); err != nil {
		return &configError{file, key + ".format", err.Error()}
	}
	if p.Timeout < 0 || p.IdleTimeout < 0 {
		return &configError{file, key, "timeout and idle_timeout must not be negative"}
	}
	return nil
}

// newCLI builds the command-line agent of provider p; sessions (nil: none kept) stores its
// sessions, and it reminds the agent of its instructions every reminderEvery turns.
func newCLI(p providerConfig, sessions cli.Sessions, reminderEvery int) (llm.Model, error) {
	m, err := cli.New(cli.Config{Name: "cli " + strings.Join(p.Command, " "), Command: p.Command, Format: cli.Format(p.Format),
		Resume: p.Resume, Dir: p.Dir, Timeout: time.Duration(p.Timeout), IdleTimeout: time.Duration(p.IdleTimeout),
		ReminderEvery: reminderEvery, Sessions: sessions})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// cliProvider resolves the model key cli/NAME of file: the provider NAME, of kind cli.
func (cfg *config) cliProvider(file, name string) (providerConfig, error) {
	p, ok := cfg.Providers[name]
	if !ok || p.Kind != "cli" {
		return p, &configError{file, "model", fmt.Sprintf("cli/%s: add a provider %s of kind cli under providers in mynah.yaml, with its command and format", name, name)}
	}
	return p, nil
}

// reminderEvery is how often agent's command-line model is reminded of its instructions:
// the shortest reminder_every of its crews; 0 when none sets one.
func (cfg *config) reminderEvery(agent string) int {
	n := 0
	for _, c := range cfg.crewsOf(agent) {
		if c.ReminderEvery > 0 && (n == 0 || c.ReminderEvery < n) {
			n = c.ReminderEvery
		}
	}
	return n
}

// checkCLI logs, plainly, when the command of agent's command-line model r cannot be
// found: every turn would fail, and the operator should hear of it at start.
func checkCLI(r modelRef, agent string, log *slog.Logger) {
	m, err := cli.New(cli.Config{Name: r.Name, Command: r.Provider.Command, Format: cli.Format(r.Provider.Format)})
	if err == nil {
		err = m.Check()
	}
	if err != nil {
		log.Error("the command-line agent cannot be run: install it, or fix providers.<name>.command", "agent", agent, "model", r.Name, "err", err)
	}
}
