package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Defaults for agent settings left unset in both mynah.yaml and the agent file.
const (
	defaultContextTokens = 32000
	defaultReplyTokens   = 1024
)

var (
	agentName  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)
	tokenShape = regexp.MustCompile(`^[0-9]+:[A-Za-z0-9_-]{35}$`)
)

// loadAgents reads every agents/<Name>.md of cfg.Dir.
func loadAgents(cfg *config, defaults agentSettings, getenv func(string) string, opts loadOptions) ([]agentConfig, error) {
	dir := filepath.Join(cfg.Dir, "agents")
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, &configError{File: dir, Msg: "no agents: add agents/<Name>.md (mynah init writes one)"}
	}
	var agents []agentConfig
	tokens := map[string]string{}
	for _, file := range files {
		a, err := loadAgent(cfg, file, defaults, getenv, opts)
		if err != nil {
			return nil, err
		}
		if other, ok := tokens[string(a.TelegramToken)]; ok && a.TelegramToken != "" {
			return nil, &configError{file, "telegram_token", fmt.Sprintf("the same bot token as agent %s: each agent needs its own bot", other)}
		}
		tokens[string(a.TelegramToken)] = a.Name
		agents = append(agents, a)
	}
	return agents, nil
}

func loadAgent(cfg *config, file string, defaults agentSettings, getenv func(string) string, opts loadOptions) (agentConfig, error) {
	a := agentConfig{Name: strings.TrimSuffix(filepath.Base(file), ".md"), File: file}
	if !agentName.MatchString(a.Name) {
		return a, &configError{File: file, Msg: "agent file names must be letters, digits, _ or - (the name is the agent's name)"}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return a, &configError{File: file, Msg: err.Error()}
	}
	front, body, err := splitFrontMatter(data)
	if err != nil {
		return a, &configError{File: file, Msg: err.Error()}
	}
	// The leading newline stands for the opening "---", so YAML line numbers match the file.
	if err := decodeYAML(file, fileBytes{data: append([]byte("\n"), front...)}, getenv, &a.agentFront); err != nil {
		return a, err
	}
	a.Instructions = strings.TrimSpace(string(body))
	if _, err := accessPolicy(file, "access", a.Access); err != nil {
		return a, err
	}
	inherit(&a.agentSettings, defaults)
	cfg.accessEnv.apply(&a.Access)
	if a.Policy, err = accessPolicy(file, "access", a.Access); err != nil {
		return a, err
	}
	if a.TelegramToken == "" && !opts.NoTokens && !opts.NoKeys {
		return a, &configError{file, "telegram_token", "empty: set TELEGRAM_BOT_TOKEN (or the variable the file names) to the token @BotFather gave you"}
	}
	if a.TelegramToken != "" && !opts.NoTokens && !opts.NoKeys && !tokenShape.MatchString(string(a.TelegramToken)) {
		return a, &configError{file, "telegram_token", "does not look like a bot token (want <bot id>:<35 characters>, as @BotFather gives it)"}
	}
	if err := resolveModel(cfg, &a, opts); err != nil {
		return a, err
	}
	if err := validateEmbeddings(cfg, &a, opts); err != nil {
		return a, err
	}
	if a.ContextTokens <= a.ReplyTokens {
		return a, &configError{file, "context_tokens", fmt.Sprintf("%d leaves no room for history after reply_tokens %d", a.ContextTokens, a.ReplyTokens)}
	}
	if err := validateSummaries(&a); err != nil {
		return a, err
	}
	if err := validateSearch(&a); err != nil {
		return a, err
	}
	if err := validatePrompt(&a); err != nil {
		return a, err
	}
	if a.Location, err = time.LoadLocation(firstNonEmpty(a.Timezone, "UTC")); err != nil {
		return a, &configError{file, "timezone", fmt.Sprintf("unknown time zone %q", a.Timezone)}
	}
	for _, role := range a.Roles {
		text, err := readPrompt(cfg.Dir, a.Name, role)
		if err != nil {
			return a, &configError{file, "roles", err.Error()}
		}
		a.RolePrompts = append(a.RolePrompts, text)
	}
	if notes, err := os.ReadFile(filepath.Join(cfg.Dir, "prompts", "providers", a.Provider.Kind+".md")); err == nil {
		a.ProviderNotes = string(notes)
	}
	return a, nil
}

// resolveModel splits "provider/model" and finds the provider's settings. A provider named
// after a known kind works without a providers entry, with its key from the SDK's variable.
func resolveModel(cfg *config, a *agentConfig, opts loadOptions) error {
	provider, model, ok := strings.Cut(a.Model, "/")
	if !ok || provider == "" || model == "" {
		return &configError{a.File, "model", fmt.Sprintf("%q must be provider/model, e.g. openai/gpt-4o-mini", a.Model)}
	}
	p, k, err := cfg.lookupProvider(a.File, "model", provider)
	if err != nil {
		return err
	}
	a.ProviderName, a.ModelID, a.Provider = provider, model, p
	if k.missingKey(p) && !opts.NoKeys {
		return &configError{a.File, "model", fmt.Sprintf("provider %q has no API key: set %s", provider, k.KeyVar)}
	}
	return nil
}

func inherit(a *agentSettings, d agentSettings) {
	if a.Model == "" {
		a.Model = d.Model
	}
	if a.ContextTokens == 0 {
		a.ContextTokens = firstPositive(d.ContextTokens, defaultContextTokens)
	}
	if a.ReplyTokens == 0 {
		a.ReplyTokens = firstPositive(d.ReplyTokens, defaultReplyTokens)
	}
	if a.HistoryMessages == 0 {
		a.HistoryMessages = firstPositive(d.HistoryMessages, 500)
	}
	if a.Timezone == "" {
		a.Timezone = d.Timezone
	}
	if a.History == "" {
		a.History = firstNonEmpty(d.History, "full")
	}
	if a.HistoryWindow == 0 {
		a.HistoryWindow = firstPositive(d.HistoryWindow, 50)
	}
	if a.Format == "" {
		a.Format = firstNonEmpty(d.Format, "structured")
	}
	if a.Shares == nil {
		a.Shares = d.Shares
	}
	if a.Stream == nil {
		a.Stream = d.Stream
	}
	if a.Stream == nil {
		on := true
		a.Stream = &on
	}
	if a.Debounce == "" {
		a.Debounce = firstNonEmpty(d.Debounce, "0s")
	}
	if a.Session == "" {
		a.Session = firstNonEmpty(d.Session, "never")
	}
	if a.SessionIdle == "" {
		a.SessionIdle = firstNonEmpty(d.SessionIdle, "4h")
	}
	if a.SessionHour == nil {
		a.SessionHour = d.SessionHour
	}
	if a.Stickers == nil {
		a.Stickers = d.Stickers
	}
	if a.TypingDelay == nil {
		a.TypingDelay = d.TypingDelay
	}
	if a.TypingDelay == nil {
		off := false
		a.TypingDelay = &off
	}
	if a.TaskRetries == 0 {
		a.TaskRetries = firstPositive(d.TaskRetries, 10)
	}
	if a.TaskRetryDelay == "" {
		a.TaskRetryDelay = firstNonEmpty(d.TaskRetryDelay, "10s")
	}
	if a.ToolRounds == 0 {
		a.ToolRounds = firstPositive(d.ToolRounds, 4)
	}
	if a.Embeddings == "" {
		a.Embeddings = d.Embeddings
	}
	inheritAccess(&a.Access, d.Access)
	inheritSummaries(&a.Summaries, d.Summaries)
	inheritSearch(&a.Search, d.Search)
}

// validatePrompt checks the prompt settings of an agent.
func validatePrompt(a *agentConfig) error {
	switch a.History {
	case "full", "delta", "window":
	default:
		return &configError{a.File, "history", fmt.Sprintf("%q is not full, delta or window", a.History)}
	}
	switch a.Format {
	case "structured", "compact":
	default:
		return &configError{a.File, "format", fmt.Sprintf("%q is not structured or compact", a.Format)}
	}
	if d, err := time.ParseDuration(a.TaskRetryDelay); err != nil || d < 100*time.Millisecond || d > time.Hour {
		return &configError{a.File, "task_retry_delay", fmt.Sprintf("%q is not a duration between 100ms and 1h, like 10s", a.TaskRetryDelay)}
	}
	if a.TaskRetries < 1 || a.TaskRetries > 1000 {
		return &configError{a.File, "task_retries", fmt.Sprintf("%d is not between 1 and 1000", a.TaskRetries)}
	}
	if a.ToolRounds < 1 || a.ToolRounds > 32 {
		return &configError{a.File, "tool_rounds", fmt.Sprintf("%d is not between 1 and 32", a.ToolRounds)}
	}
	for i, set := range a.Stickers {
		if strings.TrimSpace(set) == "" {
			return &configError{a.File, fmt.Sprintf("stickers[%d]", i), "a sticker set name is empty"}
		}
	}
	if d, err := time.ParseDuration(a.Debounce); err != nil || d < 0 || d > time.Minute {
		return &configError{a.File, "debounce", fmt.Sprintf("%q is not a duration between 0s and 1m, like 1.5s", a.Debounce)}
	}
	switch a.Session {
	case "never", "daily":
	case "idle":
		if d, err := time.ParseDuration(a.SessionIdle); err != nil || d < time.Minute {
			return &configError{a.File, "session_idle", fmt.Sprintf("%q is not a duration of at least 1m, like 30m or 4h", a.SessionIdle)}
		}
	default:
		return &configError{a.File, "session", fmt.Sprintf("%q is not never, idle or daily", a.Session)}
	}
	if h := a.SessionHour; h != nil && (*h < 0 || *h > 23) {
		return &configError{a.File, "session_hour", fmt.Sprintf("%d is not an hour between 0 and 23", *h)}
	}
	if s := a.Shares; s != nil {
		for name, v := range map[string]float64{"tools": s.Tools, "memory": s.Memory, "summaries": s.Summaries, "recall": s.Recall} {
			if v < 0 || v > 1 {
				return &configError{a.File, "shares." + name, fmt.Sprintf("%v is not a fraction between 0 and 1", v)}
			}
		}
		if sum := s.Tools + s.Memory + s.Summaries + s.Recall; sum > 0.9 {
			return &configError{a.File, "shares", fmt.Sprintf("the layers take %.0f%% of the budget; leave at least 10%% for history", sum*100)}
		}
	}
	return nil
}

func firstPositive(vs ...int) int {
	for _, v := range vs {
		if v > 0 {
			return v
		}
	}
	return 0
}

// readPrompt returns the role prompt, preferring agents/<Name>/prompts/<Role>.md.
func readPrompt(dir, agent, role string) (string, error) {
	for _, p := range []string{
		filepath.Join(dir, "agents", agent, "prompts", role+".md"),
		filepath.Join(dir, "prompts", role+".md"),
	} {
		data, err := os.ReadFile(p)
		if err == nil {
			return string(data), nil
		}
		if !os.IsNotExist(err) {
			return "", err
		}
	}
	return "", fmt.Errorf("role prompt %q not found: create prompts/%s.md", role, role)
}

// splitFrontMatter separates "---\nyaml\n---\nbody". A file without front matter is all body.
func splitFrontMatter(data []byte) (front, body []byte, err error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if !bytes.HasPrefix(data, []byte("---\n")) && !bytes.HasPrefix(data, []byte("---\r\n")) {
		return nil, data, nil
	}
	rest := data[bytes.IndexByte(data, '\n')+1:]
	for off := 0; off < len(rest); {
		nl := bytes.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if string(bytes.TrimRight(line, "\r")) == "---" {
			front = rest[:off]
			if nl < 0 {
				return front, nil, nil
			}
			return front, rest[off+nl+1:], nil
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return nil, nil, fmt.Errorf("front matter starts with --- but has no closing --- line")
}
