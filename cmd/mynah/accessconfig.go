package main

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
)

// defaultPrivate is the private-chat policy when nothing sets one: strangers pair.
const defaultPrivate = access.Pairing

// accessConfig is the access section, under defaults in mynah.yaml or in an agent's front
// matter. An agent inherits each key it leaves unset from defaults; a list set to [] in
// the agent clears the inherited one, and rate_limit and per_group replace the inherited
// ones whole.
type accessConfig struct {
	Private   string           `yaml:"private"` // open, allowlist or pairing (default)
	Allow     []string         `yaml:"allow"`   // user ids or "@usernames"
	Block     []string         `yaml:"block"`   // user ids or "@usernames"
	Admins    []string         `yaml:"admins"`  // user ids
	Groups    groupsConfig     `yaml:"groups"`
	RateLimit *rateLimitConfig `yaml:"rate_limit"`
}

type groupsConfig struct {
	// Allow lists chat ids; ["*"] allows every group; empty allows the groups approved at
	// runtime (the bot added by an approved user, an admin's /activation, pair
	// approve-group).
	Allow    []string          `yaml:"allow"`
	Trigger  string            `yaml:"trigger"`   // mention (default), reply, name or always
	PerGroup map[string]string `yaml:"per_group"` // chat id → trigger
}

type rateLimitConfig struct {
	Messages int      `yaml:"messages"` // 0 turns the limit off
	Per      duration `yaml:"per"`      // e.g. 1h
	Commands int      `yaml:"commands"` // commands and button presses per period; 0: messages
}

// accessEnv are the environment's overrides of every agent's access settings.
type accessEnv struct {
	Private     string   `env:"MYNAH_ACCESS_PRIVATE"`
	Allow       []string `env:"MYNAH_ACCESS_ALLOW" envSeparator:","`
	GroupsAllow []string `env:"MYNAH_ACCESS_GROUPS_ALLOW" envSeparator:","`
}

// apply overrides c with the environment's settings: MYNAH_ACCESS_ALLOW replaces the
// allowlist, MYNAH_ACCESS_GROUPS_ALLOW the groups'.
func (e accessEnv) apply(c *accessConfig) {
	if e.Private != "" {
		c.Private = e.Private
	}
	if e.Allow != nil {
		c.Allow = e.Allow
	}
	if e.GroupsAllow != nil {
		c.Groups.Allow = e.GroupsAllow
	}
}

// validate checks the overrides, naming the variable at fault.
func (e accessEnv) validate() error {
	if e.Private != "" {
		if _, err := access.ParsePrivate(e.Private); err != nil {
			return fmt.Errorf("environment: MYNAH_ACCESS_PRIVATE: %v", err)
		}
	}
	if _, err := access.ParseUsers(e.Allow); err != nil {
		return fmt.Errorf("environment: MYNAH_ACCESS_ALLOW: %v", err)
	}
	if _, _, err := parseGroups(e.GroupsAllow); err != nil {
		return fmt.Errorf("environment: MYNAH_ACCESS_GROUPS_ALLOW: %v", err)
	}
	return nil
}

// accessPolicy turns c into the policy; unset keys take their defaults. The error is a
// configError naming file and the key under prefix ("access" or "defaults.access").
func accessPolicy(file, prefix string, c accessConfig) (access.Policy, error) {
	bad := func(key string, err error) error {
		return &configError{file, prefix + "." + key, err.Error()}
	}
	p := access.Policy{Private: defaultPrivate, Trigger: access.Mention}
	var err error
	if c.Private != "" {
		if p.Private, err = access.ParsePrivate(c.Private); err != nil {
			return p, bad("private", err)
		}
	}
	if p.Allow, err = access.ParseUsers(c.Allow); err != nil {
		return p, bad("allow", err)
	}
	if p.Block, err = access.ParseUsers(c.Block); err != nil {
		return p, bad("block", err)
	}
	for _, s := range c.Admins {
		id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || id <= 0 {
			return p, bad("admins", fmt.Errorf("%q is not a user id (admins are named by id: usernames can change hands)", s))
		}
		if p.Admins == nil {
			p.Admins = map[mynah.UserID]bool{}
		}
		p.Admins[mynah.UserID(id)] = true
	}
	var every bool
	if p.Groups, every, err = parseGroups(c.Groups.Allow); err != nil {
		return p, bad("groups.allow", err)
	}
	p.ApprovedGroups = !every && len(p.Groups) == 0
	if c.Groups.Trigger != "" {
		if p.Trigger, err = access.ParseTrigger(c.Groups.Trigger); err != nil {
			return p, bad("groups.trigger", err)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.Groups.PerGroup)) {
		id, err := parseChatID(k)
		if err != nil {
			return p, bad("groups.per_group", err)
		}
		t, err := access.ParseTrigger(c.Groups.PerGroup[k])
		if err != nil {
			return p, bad("groups.per_group."+k, err)
		}
		if p.PerGroup == nil {
			p.PerGroup = map[mynah.ChatID]access.Trigger{}
		}
		p.PerGroup[id] = t
	}
	if r := c.RateLimit; r != nil && r.Messages != 0 {
		if r.Messages < 0 {
			return p, bad("rate_limit.messages", fmt.Errorf("%d is negative (0 turns the limit off)", r.Messages))
		}
		if time.Duration(r.Per) < time.Second {
			return p, bad("rate_limit.per", fmt.Errorf("%q is not a duration of at least 1s, like 1h or 10m", r.Per))
		}
		if r.Commands < 0 {
			return p, bad("rate_limit.commands", fmt.Errorf("%d is negative (0 allows as many as messages)", r.Commands))
		}
		p.Limit = access.RateLimit{Messages: r.Messages, Per: time.Duration(r.Per), Commands: r.Commands}
	}
	return p, nil
}

// everyGroup is the groups.allow entry that allows every group.
const everyGroup = "*"

// parseGroups reads groups.allow: the listed groups, or every group for ["*"].
func parseGroups(refs []string) (groups map[mynah.ChatID]bool, every bool, err error) {
	for _, s := range refs {
		if strings.TrimSpace(s) == everyGroup {
			every = true
			continue
		}
		id, err := parseChatID(s)
		if err != nil {
			return nil, false, err
		}
		if groups == nil {
			groups = map[mynah.ChatID]bool{}
		}
		groups[id] = true
	}
	if every && len(groups) > 0 {
		return nil, false, fmt.Errorf(`"*" allows every group: list it alone, or list chat ids without it`)
	}
	return groups, every, nil
}

// parseChatID reads a group's chat id: a negative number, as Telegram numbers groups.
func parseChatID(s string) (mynah.ChatID, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || id >= 0 {
		return 0, fmt.Errorf("%q is not a group's chat id (a negative number, e.g. -1001234567890; /status in the group shows it)", s)
	}
	return mynah.ChatID(id), nil
}
