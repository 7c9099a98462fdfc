package main

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/mynah-ai/mynah/internal/access"
	"github.com/mynah-ai/mynah/internal/postgres"
)

// config is the whole configuration directory, resolved and validated.
type config struct {
	Dir     string
	DataDir string
	// Store is the PostgreSQL database (a postgres:// URL) when one is configured; empty:
	// the SQLite file in DataDir.
	Store     secret
	Log       logConfig
	Telegram  telegramConfig
	Providers map[string]providerConfig
	Agents    []agentConfig
	Shutdown  time.Duration
	Parallel  int // at most this many turns answered at once per agent and model calls per provider; 0: as many as the providers accept
	Metrics   metricsConfig
	Crews     []crewConfig // crew_config.go
	getenv    func(string) string
	accessEnv accessEnv
}

// fileConfig is mynah.yaml as written.
type fileConfig struct {
	DataDir   string                    `yaml:"data_dir"`
	Store     string                    `yaml:"store"`
	Log       logConfig                 `yaml:"log"`
	Telegram  telegramConfig            `yaml:"telegram"`
	Providers map[string]providerConfig `yaml:"providers"`
	Defaults  agentSettings             `yaml:"defaults"`
	Shutdown  duration                  `yaml:"shutdown_timeout"`
	Parallel  int                       `yaml:"parallel_turns"`
	Metrics   metricsConfig             `yaml:"metrics"`
	Crews     []crewFile                `yaml:"crews"`
}

type metricsConfig struct {
	Listen string `yaml:"listen"` // address of the Prometheus /metrics endpoint; empty: none
}

type logConfig struct {
	Level  string `yaml:"level"`  // debug, info, warn, error
	Format string `yaml:"format"` // text or json
}

type telegramConfig struct {
	APIURL  string        `yaml:"api_url"`
	Mode    string        `yaml:"mode"` // polling or webhook
	Webhook webhookConfig `yaml:"webhook"`
	// StartupTimeout is how long serve keeps trying to reach Telegram at start (the
	// network may come up after the service) before it exits; default 5m.
	StartupTimeout duration `yaml:"startup_timeout"`
}

type webhookConfig struct {
	Listen    string `yaml:"listen"`     // address the webhook server listens on
	PublicURL string `yaml:"public_url"` // https URL Telegram reaches Listen at
	Path      string `yaml:"path"`       // path prefix; each agent gets <path>/<agent>
	Secret    string `yaml:"secret"`     // X-Telegram-Bot-Api-Secret-Token
}

type providerConfig struct {
	Kind        string           `yaml:"kind"` // openai, anthropic, gemini, cli
	APIKey      secret           `yaml:"api_key"`
	BaseURL     string           `yaml:"base_url"`
	cliSettings `yaml:",inline"` // kind cli (cli_config.go)
}

// agentFront is the front matter of agents/<Name>.md.
type agentFront struct {
	agentSettings `yaml:",inline"`
	TelegramToken secret   `yaml:"telegram_token"`
	Roles         []string `yaml:"roles"` // prompts/<Role>.md, in order
	Names         []string `yaml:"names"` // words that address the agent in groups
	Greeting      string   `yaml:"greeting"`
	Help          string   `yaml:"help"`
	ResetText     string   `yaml:"reset_text"`
	Apology       string   `yaml:"apology"`
}

// agentConfig is one agent, resolved.
type agentConfig struct {
	agentFront
	Name          string
	File          string
	Instructions  string
	RolePrompts   []string
	Model         string // the first of the model key: provider/model
	ProviderName  string // key in providers
	Provider      providerConfig
	ModelID       string     // model name without the provider prefix
	Fallbacks     []modelRef // the rest of the model key, in order
	Describer     modelRef   // media.model: describes images (default: Model)
	Transcriber   modelRef   // media.transcribe, when Transcribes
	Transcribes   bool
	ProviderNotes string
	Location      *time.Location
	Policy        access.Policy // Access resolved, with the environment's overrides
	// Count is the agent's token counter, set by the command that runs the agent (see
	// agentCount); nil counts with the plain estimate.
	Count func(string) int
}

// modelRef is one model of an agent's model key, resolved.
type modelRef struct {
	Name     string // provider/model
	ID       string // the model as the provider names it
	Provider providerConfig
}

// secret is a configuration value that must never be printed.
type secret string

func (s secret) String() string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

// GoString keeps secrets out of %#v too.
func (s secret) GoString() string { return s.String() }

// envOverrides are settings the environment overrides regardless of the files.
type envOverrides struct {
	TelegramAPIURL string `env:"MYNAH_TELEGRAM_API_URL"`
	DataDir        string `env:"MYNAH_DATA_DIR"`
	DatabaseURL    string `env:"MYNAH_DATABASE_URL"`
	LogLevel       string `env:"MYNAH_LOG_LEVEL"`
	MetricsListen  string `env:"MYNAH_METRICS_LISTEN"`
}

// configError names the file, the key and what is wrong with it.
type configError struct {
	File string
	Key  string
	Msg  string
}

func (e *configError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("config %s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("config %s: %s: %s", e.File, e.Key, e.Msg)
}

// loadOptions relax validation for commands that do not talk to Telegram.
type loadOptions struct {
	NoTokens bool // play runs against the in-process emulator: bot tokens are not needed
	// NoKeys skips the checks of bot tokens and provider keys: pair works on the database
	// only and must not need the secrets serve needs.
	NoKeys bool
	// missing, when set, collects the secrets that are not set instead of failing at the
	// first, so that one run names them all (loadConfig sets it).
	missing *[]error
}

// missingSecret reports err, a secret that is not set: collected when opts asks for it,
// else returned.
func (opts loadOptions) missingSecret(err error) error {
	if opts.missing != nil {
		*opts.missing = append(*opts.missing, err)
		return nil
	}
	return err
}

// loadConfig reads and validates the configuration directory dir, with getenv resolving
// ${NAME} references and overrides.
func loadConfig(dir string, getenv func(string) string, opts loadOptions) (*config, error) {
	path := filepath.Join(dir, "mynah.yaml")
	root, err := parseYAML(path, mustRead(path), getenv, &fileConfig{})
	if err != nil {
		return nil, err
	}
	// mynah.yaml's defaults are decoded over mynah's own, as each agent's settings are
	// decoded over them.
	fc := fileConfig{Defaults: defaultSettings(), Shutdown: duration(15 * time.Second)}
	if root != nil {
		dropUnset(lookup(root, "defaults"))
		if err := decodeNode(path, root, &fc); err != nil {
			return nil, err
		}
	}
	var ov envOverrides
	if err := env.ParseWithOptions(&ov, env.Options{Environment: environ(getenv, "MYNAH_TELEGRAM_API_URL", "MYNAH_DATA_DIR", "MYNAH_DATABASE_URL", "MYNAH_LOG_LEVEL", "MYNAH_METRICS_LISTEN")}); err != nil {
		return nil, fmt.Errorf("environment: %w", err)
	}
	var ae accessEnv
	if err := env.ParseWithOptions(&ae, env.Options{Environment: environ(getenv, "MYNAH_ACCESS_PRIVATE", "MYNAH_ACCESS_ALLOW", "MYNAH_ACCESS_GROUPS_ALLOW")}); err != nil {
		return nil, fmt.Errorf("environment: %w", err)
	}
	if err := ae.validate(); err != nil {
		return nil, err
	}
	if err := fc.Defaults.validate(path, "defaults."); err != nil {
		return nil, err
	}
	cfg := &config{Dir: dir, getenv: getenv, accessEnv: ae, Log: fc.Log, Telegram: fc.Telegram, Providers: map[string]providerConfig{}}
	cfg.DataDir = cmp.Or(ov.DataDir, fc.DataDir, "data")
	if !filepath.IsAbs(cfg.DataDir) {
		cfg.DataDir = filepath.Join(dir, cfg.DataDir)
	}
	if cfg.Store = secret(strings.TrimSpace(cmp.Or(ov.DatabaseURL, fc.Store))); cfg.Store != "" && !postgres.IsURL(string(cfg.Store)) {
		return nil, &configError{path, "store", "want a PostgreSQL URL like postgres://mynah@localhost/mynah (or no store: the SQLite file in data_dir)"}
	}
	cfg.Telegram.APIURL = strings.TrimRight(cmp.Or(ov.TelegramAPIURL, fc.Telegram.APIURL, "https://api.telegram.org"), "/")
	cfg.Log.Level = cmp.Or(ov.LogLevel, fc.Log.Level, "info")
	if cfg.Telegram.StartupTimeout < 0 {
		return nil, &configError{path, "telegram.startup_timeout", fmt.Sprintf("%s is negative", time.Duration(cfg.Telegram.StartupTimeout))}
	}
	cfg.Telegram.StartupTimeout = cmp.Or(cfg.Telegram.StartupTimeout, duration(5*time.Minute))
	if cfg.Shutdown = time.Duration(fc.Shutdown); cfg.Shutdown <= 0 {
		return nil, &configError{path, "shutdown_timeout", fmt.Sprintf("%q is not a duration like 15s", fc.Shutdown)}
	}
	cfg.Parallel = fc.Parallel
	if fc.Parallel < 0 || fc.Parallel > 256 {
		return nil, &configError{path, "parallel_turns", fmt.Sprintf("%d is not between 1 and 256 (or 0: no fixed limit)", fc.Parallel)}
	}
	cfg.Metrics = fc.Metrics
	cfg.Metrics.Listen = cmp.Or(ov.MetricsListen, cfg.Metrics.Listen)
	if l := cfg.Metrics.Listen; l != "" {
		if _, _, err := net.SplitHostPort(l); err != nil {
			return nil, &configError{path, "metrics.listen", fmt.Sprintf("%q is not host:port, like 127.0.0.1:9464", l)}
		}
	}
	if err := validateTop(path, cfg); err != nil {
		return nil, err
	}
	for name, p := range fc.Providers {
		if p.Kind == "" {
			p.Kind = name
		}
		if _, ok := kindOf(p.Kind); !ok {
			return nil, &configError{path, "providers." + name + ".kind", fmt.Sprintf("unknown provider %q (want %s)", p.Kind, orList(kindNames(anyKind)))}
		}
		if p.Kind == "cli" {
			if err := validateCLI(path, name, p); err != nil {
				return nil, err
			}
		}
		cfg.Providers[name] = p
	}
	var missing []error
	if opts.missing == nil {
		opts.missing = &missing
	}
	agents, err := loadAgents(cfg, fc.Defaults, opts)
	if err == nil && len(missing) > 0 {
		err = errors.Join(missing...)
	}
	if err != nil {
		return nil, err
	}
	cfg.Agents = agents
	if cfg.Crews, err = resolveCrews(path, fc.Crews, agents); err != nil {
		return nil, err
	}
	return cfg, nil
}

func validateTop(path string, cfg *config) error {
	switch cfg.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		return &configError{path, "log.level", fmt.Sprintf("%q is not one of debug, info, warn, error", cfg.Log.Level)}
	}
	switch cfg.Log.Format {
	case "", "text", "json":
	default:
		return &configError{path, "log.format", fmt.Sprintf("%q is not text or json", cfg.Log.Format)}
	}
	switch cfg.Telegram.Mode {
	case "", "polling":
		cfg.Telegram.Mode = "polling"
	case "webhook":
		w := &cfg.Telegram.Webhook
		if w.PublicURL == "" {
			return &configError{path, "telegram.webhook.public_url", "required in webhook mode"}
		}
		if w.Secret == "" {
			return &configError{path, "telegram.webhook.secret", "required in webhook mode (1-256 characters A-Z a-z 0-9 _ -)"}
		}
		if !secretPattern().MatchString(w.Secret) {
			return &configError{path, "telegram.webhook.secret", "must be 1-256 characters A-Z a-z 0-9 _ -"}
		}
		w.Listen = cmp.Or(w.Listen, ":8080")
		w.Path = "/" + strings.Trim(cmp.Or(w.Path, "/telegram"), "/")
	default:
		return &configError{path, "telegram.mode", fmt.Sprintf("%q is not polling or webhook", cfg.Telegram.Mode)}
	}
	return nil
}

var secretPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`) })

func environ(getenv func(string) string, names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		if v := getenv(n); v != "" {
			m[n] = v
		}
	}
	return m
}
