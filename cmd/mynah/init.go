package main

import (
	"bytes"
	"cmp"
	"embed"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"text/template"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah/internal/prompt"
)

//go:embed templates/*.tmpl
var templates embed.FS

func initCommand() *cobra.Command {
	var provider, model, name, owner string
	var keyVars []string
	for _, k := range providerKinds {
		if apiKind(k) {
			keyVars = append(keyVars, k.KeyVar)
		}
	}
	cmd := &cobra.Command{
		Use:   "init DIR",
		Short: "Write a working configuration directory",
		Long: `Write mynah.yaml, agents/<Name>.md and prompts/Friendly.md into DIR.
The bot token comes from TELEGRAM_BOT_TOKEN, provider keys from ` + orList(keyVars) + ".",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind, ok := kindOf(provider)
			if !ok || !apiKind(kind) {
				return usageError{fmt.Errorf("--provider %q: want %s", provider, orList(kindNames(apiKind)))}
			}
			if !agentName().MatchString(name) {
				return usageError{fmt.Errorf("--name %q: use letters, digits, _ or -", name)}
			}
			model = cmp.Or(model, kind.Model)
			if id, err := strconv.ParseInt(owner, 10, 64); owner != "" && (err != nil || id <= 0) {
				return usageError{fmt.Errorf("--owner %q: want your numeric Telegram user id (@userinfobot tells it)", owner)}
			}
			if err := writeConfig(args[0], initData{Name: name, Model: provider + "/" + model, Owner: owner}); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), `wrote %[1]s: mynah.yaml, agents/%[2]s.md, prompts/Friendly.md
Next:
  export TELEGRAM_BOT_TOKEN=...   # from @BotFather
  export %[3]s=...
  mynah play --config %[1]s      # try the agent in this terminal
  mynah serve --config %[1]s     # run it on Telegram
Strangers who write to the bot get a pairing code: mynah pair approve CODE --config %[1]s lets them in.
`, args[0], name, kind.KeyVar)
			return nil
		},
	}
	cmd.Flags().StringVar(&provider, "provider", providerKinds[0].Name, "model provider: "+orList(kindNames(apiKind)))
	cmd.Flags().StringVar(&model, "model", "", "model name (default depends on the provider)")
	cmd.Flags().StringVar(&name, "name", "Mynah", "the agent's name")
	cmd.Flags().StringVar(&owner, "owner", "", "your Telegram user id: allowed in private chats and admin (access.allow, access.admins)")
	return cmd
}

type initData struct {
	Name  string
	Model string
	Owner string // a user id or empty
}

// templateData is what the templates see: mynah.yaml spells out mynah's own defaults
// and lists every provider kind.
type templateData struct {
	initData
	Providers []providerKind
	Kinds     string
	Defaults  agentSettings
	Shares    prompt.Shares
}

// writeConfig writes the starter files, refusing to overwrite any that exist.
func writeConfig(dir string, d initData) error {
	files := map[string]string{
		"mynah.yaml":                            "templates/mynah.yaml.tmpl",
		filepath.Join("agents", d.Name+".md"):   "templates/agent.md.tmpl",
		filepath.Join("prompts", "Friendly.md"): "templates/Friendly.md.tmpl",
	}
	for rel := range files {
		if _, err := os.Stat(filepath.Join(dir, rel)); err == nil {
			return fmt.Errorf("%s already exists; not overwriting", filepath.Join(dir, rel))
		}
	}
	var kinds []providerKind
	for _, k := range providerKinds {
		if apiKind(k) {
			kinds = append(kinds, k)
		}
	}
	data := templateData{initData: d, Providers: kinds, Kinds: orList(kindNames(anyKind)), Defaults: defaultSettings(), Shares: prompt.DefaultShares()}
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		var buf bytes.Buffer
		tmpl := template.Must(template.ParseFS(templates, files[rel]))
		if err := tmpl.Execute(&buf, data); err != nil {
			return err
		}
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
