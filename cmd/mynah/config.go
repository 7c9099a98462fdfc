package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
	"go.yaml.in/yaml/v3"

	"github.com/mynah-ai/mynah/internal/access"
)

// config is the whole configuration directory, resolved and validated.
type config struct {
	Dir       string
	DataDir   string
	Log       logConfig
	Telegram  telegramConfig
	Providers map[string]providerConfig
	Agents    []agentConfig
	Shutdown  time.Duration
	Parallel  int // turns answered at once per agent, across chats
	Metrics   metricsConfig
	getenv    func(string) string
	accessEnv accessEnv
}

// fileConfig is mynah.yaml as written.
type fileConfig struct {
	DataDir   string                    `yaml:"data_dir"`
	Log       logConfig                 `yaml:"log"`
	Telegram  telegramConfig            `yaml:"telegram"`
	Providers map[string]providerConfig `yaml:"providers"`
	Defaults  agentSettings             `yaml:"defaults"`
	Shutdown  string                    `yaml:"shutdown_timeout"`
	Parallel  int                       `yaml:"parallel_turns"`
	Metrics   metricsConfig             `yaml:"metrics"`
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
}

type webhookConfig struct {
	Listen    string `yaml:"listen"`     // address the webhook server listens on
	PublicURL string `yaml:"public_url"` // https URL Telegram reaches Listen at
	Path      string `yaml:"path"`       // path prefix; each agent gets <path>/<agent>
	Secret    string `yaml:"secret"`     // X-Telegram-Bot-Api-Secret-Token
}

type providerConfig struct {
	Kind    string `yaml:"kind"` // openai, anthropic, gemini
	APIKey  secret `yaml:"api_key"`
	BaseURL string `yaml:"base_url"`
}

// agentSettings are the tunables an agent inherits from defaults and may override.
type agentSettings struct {
	Model           string        `yaml:"model"`            // provider/model
	ContextTokens   int           `yaml:"context_tokens"`   // the model's context window
	ReplyTokens     int           `yaml:"reply_tokens"`     // reserved for the answer
	HistoryMessages int           `yaml:"history_messages"` // cap on history messages per prompt
	Timezone        string        `yaml:"timezone"`         // IANA zone for times shown to the model
	History         string        `yaml:"history"`          // full, delta or window
	HistoryWindow   int           `yaml:"history_window"`   // window: how many recent messages
	Format          string        `yaml:"format"`           // structured or compact
	Shares          *sharesConfig `yaml:"shares"`           // budget shares of the optional layers
	Stream          *bool         `yaml:"stream"`           // show answers in private chats as drafts while they are written
	Debounce        string        `yaml:"debounce"`         // wait this long before answering, so a burst gets one answer
	Session         string        `yaml:"session"`          // never, idle or daily: when a chat starts a new session
	SessionIdle     string        `yaml:"session_idle"`     // idle: how long without messages, e.g. 2h
	SessionHour     *int          `yaml:"session_hour"`     // daily: the hour (0-23, in timezone) a new session starts
	Access          accessConfig  `yaml:"access"`           // who the agent answers
	Stickers        []string      `yaml:"stickers"`         // sticker sets the agent may send from
	TypingDelay     *bool         `yaml:"typing_delay"`     // show "typing…" as long as typing each message would take
	TaskRetries     int           `yaml:"task_retries"`     // tries of a failed task before its plan is dropped
	TaskRetryDelay  string        `yaml:"task_retry_delay"` // pause between tries, e.g. 10s
	ToolRounds      int           `yaml:"tool_rounds"`      // model calls per turn when tools answer back
	MaxFacts        int           `yaml:"max_facts"`        // facts kept per person, the oldest evicted; ≤ 0: 100
	Embeddings      string        `yaml:"embeddings"`       // provider/model for vector search; empty: keyword search only
	// Summaries: rolling compaction and periodic summaries (summaries.go).
	Summaries summariesConfig `yaml:"summaries"`
	// Search: how memory search ranks (tools.go).
	Search searchConfig `yaml:"search"`
}

// sharesConfig are the fractions of the prompt budget the optional layers may use.
type sharesConfig struct {
	Tools     float64 `yaml:"tools"`
	Memory    float64 `yaml:"memory"`
	Summaries float64 `yaml:"summaries"`
	Recall    float64 `yaml:"recall"`
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
	ProviderName  string // key in providers
	Provider      providerConfig
	ModelID       string // model name without the provider prefix
	ProviderNotes string
	Location      *time.Location
	Policy        access.Policy // Access resolved, with the environment's overrides
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
	LogLevel       string `env:"MYNAH_LOG_LEVEL"`
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
}

// loadConfig reads and validates the configuration directory dir, with getenv resolving
// ${NAME} references and overrides.
func loadConfig(dir string, getenv func(string) string, opts loadOptions) (*config, error) {
	path := filepath.Join(dir, "mynah.yaml")
	var fc fileConfig
	if err := decodeYAML(path, mustRead(path), getenv, &fc); err != nil {
		return nil, err
	}
	var ov envOverrides
	if err := env.ParseWithOptions(&ov, env.Options{Environment: environ(getenv, "MYNAH_TELEGRAM_API_URL", "MYNAH_DATA_DIR", "MYNAH_LOG_LEVEL")}); err != nil {
		return nil, fmt.Errorf("environment: %w", err)
	}
	var ae accessEnv
	if err := env.ParseWithOptions(&ae, env.Options{Environment: environ(getenv, "MYNAH_ACCESS_PRIVATE", "MYNAH_ACCESS_ALLOW")}); err != nil {
		return nil, fmt.Errorf("environment: %w", err)
	}
	if err := ae.validate(); err != nil {
		return nil, err
	}
	if _, err := accessPolicy(path, "defaults.access", fc.Defaults.Access); err != nil {
		return nil, err
	}
	cfg := &config{Dir: dir, getenv: getenv, accessEnv: ae, Log: fc.Log, Telegram: fc.Telegram, Providers: map[string]providerConfig{}, Shutdown: 15 * time.Second}
	cfg.DataDir = firstNonEmpty(ov.DataDir, fc.DataDir, "data")
	if !filepath.IsAbs(cfg.DataDir) {
		cfg.DataDir = filepath.Join(dir, cfg.DataDir)
	}
	cfg.Telegram.APIURL = strings.TrimRight(firstNonEmpty(ov.TelegramAPIURL, fc.Telegram.APIURL, "https://api.telegram.org"), "/")
	cfg.Log.Level = firstNonEmpty(ov.LogLevel, fc.Log.Level, "info")
	if fc.Shutdown != "" {
		d, err := time.ParseDuration(fc.Shutdown)
		if err != nil || d <= 0 {
			return nil, &configError{path, "shutdown_timeout", fmt.Sprintf("%q is not a duration like 15s", fc.Shutdown)}
		}
		cfg.Shutdown = d
	}
	cfg.Parallel = fc.Parallel
	switch {
	case fc.Parallel == 0:
		cfg.Parallel = 8
	case fc.Parallel < 0 || fc.Parallel > 256:
		return nil, &configError{path, "parallel_turns", fmt.Sprintf("%d is not between 1 and 256", fc.Parallel)}
	}
	cfg.Metrics = fc.Metrics
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
		cfg.Providers[name] = p
	}
	agents, err := loadAgents(cfg, fc.Defaults, getenv, opts)
	if err != nil {
		return nil, err
	}
	cfg.Agents = agents
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
		if !secretPattern.MatchString(w.Secret) {
			return &configError{path, "telegram.webhook.secret", "must be 1-256 characters A-Z a-z 0-9 _ -"}
		}
		w.Listen = firstNonEmpty(w.Listen, ":8080")
		w.Path = "/" + strings.Trim(firstNonEmpty(w.Path, "/telegram"), "/")
	default:
		return &configError{path, "telegram.mode", fmt.Sprintf("%q is not polling or webhook", cfg.Telegram.Mode)}
	}
	return nil
}

var secretPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`)

// fileBytes carries a file's content or the error reading it.
type fileBytes struct {
	data []byte
	err  error
}

func mustRead(path string) fileBytes {
	data, err := os.ReadFile(path)
	return fileBytes{data, err}
}

// decodeYAML expands ${NAME} in scalar values and decodes strictly: unknown keys are errors.
func decodeYAML(path string, fb fileBytes, getenv func(string) string, out any) error {
	if fb.err != nil {
		if errors.Is(fb.err, os.ErrNotExist) {
			return &configError{File: path, Msg: "file not found (create one with: mynah init DIR)"}
		}
		return &configError{File: path, Msg: fb.err.Error()}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(fb.data, &root); err != nil {
		return &configError{File: path, Msg: yamlMessage(err)}
	}
	if len(root.Content) == 0 {
		return nil
	}
	// Unknown keys are found on the file as written (exact line numbers); values are
	// checked after ${NAME} expansion, on the same nodes, so their lines are exact too.
	strict := yaml.NewDecoder(bytes.NewReader(fb.data))
	strict.KnownFields(true)
	if err := strict.Decode(reflect.New(reflect.TypeOf(out).Elem()).Interface()); err != nil {
		if msgs := unknownKeys(err); len(msgs) > 0 {
			return &configError{File: path, Msg: strings.Join(msgs, "; ")}
		}
	}
	expandNode(&root, getenv)
	if err := root.Decode(out); err != nil {
		return &configError{File: path, Msg: yamlMessage(err)}
	}
	return nil
}

// unknownKeys extracts the unknown-key complaints from a strict decoding error.
func unknownKeys(err error) []string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return nil
	}
	var msgs []string
	for _, e := range te.Errors {
		if unknownField.MatchString(e) {
			msgs = append(msgs, unknownField.ReplaceAllString(e, `line $1: unknown key "$2"`))
		}
	}
	return msgs
}

var unknownField = regexp.MustCompile(`line (\d+): field (\S+) not found in type \S+`)
var cannotUnmarshal = regexp.MustCompile(`line (\d+): cannot unmarshal !!(\w+) ` + "`" + `([^` + "`" + `]*)` + "`" + ` into (\S+)`)

// yamlMessage rewrites yaml.v3's errors in words a user understands.
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	msg = unknownField.ReplaceAllString(msg, `line $1: unknown key "$2"`)
	msg = cannotUnmarshal.ReplaceAllString(msg, `line $1: "$3" is not a valid $4`)
	return strings.ReplaceAll(msg, "\n  ", "; ")
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandNode replaces ${NAME} in every scalar value (not keys) with the variable's value.
func expandNode(n *yaml.Node, getenv func(string) string) {
	switch n.Kind {
	case yaml.ScalarNode:
		if strings.Contains(n.Value, "${") {
			n.Value = envRef.ReplaceAllStringFunc(n.Value, func(m string) string { return getenv(m[2 : len(m)-1]) })
			if n.Tag == "!!null" || n.Value == "" {
				n.Tag = "!!str"
			}
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			expandNode(n.Content[i], getenv)
		}
	default:
		for _, c := range n.Content {
			expandNode(c, getenv)
		}
	}
}

func environ(getenv func(string) string, names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		if v := getenv(n); v != "" {
			m[n] = v
		}
	}
	return m
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
