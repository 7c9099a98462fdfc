package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

var (
	agentName  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`) })
	tokenShape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+:[A-Za-z0-9_-]{35}$`) })
	// tokenVar finds the variable a front matter's telegram_token names.
	tokenVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^telegram_token:\s*["']?\$\{(\w+)\}`) })
)

// loadAgents reads every agents/<Name>.md of cfg.Dir, each over defaults.
func loadAgents(cfg *config, defaults agentSettings, opts loadOptions) ([]agentConfig, error) {
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
		a, err := loadAgent(cfg, file, defaults, opts)
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

// loadAgent reads the agent of file: its front matter decoded over a copy of defaults,
// and its instructions.
func loadAgent(cfg *config, file string, defaults agentSettings, opts loadOptions) (agentConfig, error) {
	a := agentConfig{Name: strings.TrimSuffix(filepath.Base(file), ".md"), File: file}
	if !agentName().MatchString(a.Name) {
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
	root, err := parseYAML(file, fileBytes{data: append([]byte("\n"), front...)}, cfg.getenv, &agentFront{})
	if err != nil {
		return a, err
	}
	a.agentSettings = defaults
	if root != nil {
		dropUnset(root)
		a.replaceWhole(root)
		if err := decodeNode(file, root, &a.agentFront); err != nil {
			return a, err
		}
	}
	a.Instructions = strings.TrimSpace(string(body))
	if err := a.validate(file, ""); err != nil {
		return a, err
	}
	cfg.accessEnv.apply(&a.Access)
	if a.Policy, err = accessPolicy(file, "access", a.Access); err != nil {
		return a, err
	}
	if a.TelegramToken == "" && !opts.NoTokens && !opts.NoKeys {
		if err := opts.missingSecret(&configError{file, "telegram_token", tokenHint(front)}); err != nil {
			return a, err
		}
	}
	if a.TelegramToken != "" && !opts.NoTokens && !opts.NoKeys && !tokenShape().MatchString(string(a.TelegramToken)) {
		return a, &configError{file, "telegram_token", "does not look like a bot token (want <bot id>:<35 characters>, as @BotFather gives it)"}
	}
	if err := resolveModel(cfg, &a, opts); err != nil {
		return a, err
	}
	if err := validateEmbeddings(cfg, &a, opts); err != nil {
		return a, err
	}
	if a.Describer, a.Transcriber, a.Transcribes, err = mediaRefs(cfg, &a, opts); err != nil {
		return a, err
	}
	if a.ContextTokens <= a.ReplyTokens {
		return a, &configError{file, "context_tokens", fmt.Sprintf("%d leaves no room for history after reply_tokens %d", a.ContextTokens, a.ReplyTokens)}
	}
	if a.Location, err = a.location(file, ""); err != nil {
		return a, err
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

// tokenHint says why an agent has no bot token and what to do: set the variable its front
// matter names, or name one.
func tokenHint(front []byte) string {
	if m := tokenVar().FindSubmatch(front); m != nil {
		return "empty: set " + string(m[1]) + " to the token @BotFather gave you"
	}
	if !bytes.Contains(front, []byte("telegram_token")) {
		return "not set: add telegram_token: ${TELEGRAM_BOT_TOKEN} to the front matter and set that variable to the token @BotFather gave you"
	}
	return "empty: set it to the token @BotFather gave you (as ${VARIABLE}, keeping the token out of the file)"
}

// resolveModel splits each "provider/model" of the model key and finds the provider's
// settings: the first becomes the agent's model, the rest its fallbacks.
func resolveModel(cfg *config, a *agentConfig, opts loadOptions) error {
	if len(a.agentSettings.Model) == 0 {
		return &configError{a.File, "model", "empty: set provider/model, e.g. openai/gpt-4o-mini"}
	}
	for i, name := range a.agentSettings.Model {
		provider, model, ok := strings.Cut(name, "/")
		if !ok || provider == "" || model == "" {
			return &configError{a.File, "model", fmt.Sprintf("%q must be provider/model, e.g. openai/gpt-4o-mini", name)}
		}
		p, k, err := cfg.lookupProvider(a.File, "model", provider)
		if provider == "cli" { // cli/NAME: the command-line agent of provider NAME
			if p, err = cfg.cliProvider(a.File, model); err == nil {
				k, _ = kindOf("cli")
			}
		}
		if err != nil {
			return err
		}
		if k.missingKey(p) && !opts.NoKeys {
			if err := opts.missingSecret(&configError{a.File, "model", fmt.Sprintf("provider %q has no API key: set %s", provider, k.KeyVar)}); err != nil {
				return err
			}
		}
		if i == 0 {
			a.Model, a.ProviderName, a.ModelID, a.Provider = name, provider, model, p
			continue
		}
		a.Fallbacks = append(a.Fallbacks, modelRef{Name: name, ID: model, Provider: p})
	}
	return nil
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
