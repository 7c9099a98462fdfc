package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/tokens"
	"github.com/mynah-ai/mynah/internal/tool"
)

func contextCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "context",
		Short: "See what the model sees: the prompt for a chat now, or of a reply already sent",
	}
	cmd.AddCommand(contextShowCommand(), contextExplainCommand())
	return cmd
}

type contextFlags struct {
	agentFlags
	Chat    int64
	Format  string
	Compact bool
	Reply   int64
}

func contextShowCommand() *cobra.Command {
	var f contextFlags
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print exactly the request that would be sent now for a chat, and its tokens per layer",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.Chat == 0 {
				return usageError{errors.New("--chat is required")}
			}
			return contextShow(cmd.Context(), f, cmd.OutOrStdout())
		},
	}
	f.register(cmd, "agent (default: the first)")
	cmd.Flags().Int64Var(&f.Chat, "chat", 0, "chat id")
	cmd.Flags().StringVar(&f.Format, "format", "text", "output: text or json")
	cmd.Flags().BoolVar(&f.Compact, "compact", false, "render the history in the compact format")
	return cmd
}

func contextExplainCommand() *cobra.Command {
	var f contextFlags
	cmd := &cobra.Command{
		Use:   "explain",
		Short: "Print what the prompt of a reply already sent contained",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.Reply == 0 {
				return usageError{errors.New("--reply is required")}
			}
			return contextExplain(cmd.Context(), f, cmd.OutOrStdout())
		},
	}
	f.register(cmd, "agent (default: every agent)")
	cmd.Flags().Int64Var(&f.Chat, "chat", 0, "chat id (default: any chat)")
	cmd.Flags().Int64Var(&f.Reply, "reply", 0, "Telegram message id of the reply")
	cmd.Flags().StringVar(&f.Format, "format", "text", "output: text or json")
	return cmd
}

// agentFlags are the flags of the operator commands that work on one agent's data.
type agentFlags struct {
	Dir   string
	Agent string
}

func (f *agentFlags) register(cmd *cobra.Command, agentHelp string) {
	cmd.Flags().StringVarP(&f.Dir, "config", "c", ".", "configuration directory")
	cmd.Flags().StringVar(&f.Agent, "agent", "", agentHelp)
}

// loadPicked loads the configuration in f.Dir and picks the agent f names.
func loadPicked(f agentFlags, opts loadOptions) (*config, agentConfig, error) {
	cfg, err := loadConfig(f.Dir, os.Getenv, opts)
	if err != nil {
		return nil, agentConfig{}, err
	}
	a, err := pickAgent(cfg, f.Agent)
	return cfg, a, err
}

func pickAgent(cfg *config, name string) (agentConfig, error) {
	if name == "" {
		return cfg.Agents[0], nil
	}
	for _, a := range cfg.Agents {
		if strings.EqualFold(a.Name, name) {
			return a, nil
		}
	}
	return agentConfig{}, usageError{fmt.Errorf("--agent %q: no such agent in %s", name, filepath.Join(cfg.Dir, "agents"))}
}

func contextShow(ctx context.Context, f contextFlags, w io.Writer) error {
	// Offline: nothing is sent, so no secret is needed.
	cfg, a, err := loadPicked(f.agentFlags, loadOptions{NoKeys: true})
	if err != nil {
		return err
	}
	if f.Compact {
		a.Format = prompt.FormatCompact
	}
	db, err := openStore(ctx, cfg, false)
	if err != nil {
		return err
	}
	defer db.Close()

	chat := mynah.ChatID(f.Chat)
	sess, err := db.Session(ctx, a.Name, chat, 0)
	if err != nil {
		return err
	}
	recent, err := db.History(ctx, a.Name, chat, 0, sess.Start, 50)
	if err != nil {
		return err
	}
	// The agent's own account is known from what it sent; the target is the newest
	// message from someone else.
	bot := mynah.User{FirstName: a.Name}
	var target mynah.Message
	for _, m := range recent {
		if m.Outgoing {
			bot = m.Sender
		} else {
			target = m
		}
	}
	if target.ID == 0 {
		return fmt.Errorf("chat %d has no message of agent %s to respond to in its current session", chat, a.Name)
	}
	// Offline: the member count is left out, and recall is keyword-only (embedding the
	// query would call the provider). Tokens are counted as serve last calibrated them.
	a.Count = agentCount(ctx, a, tokens.NewCalibrations(db, nil))
	mem, _ := agentMemory(cfg, a, db, nil, false, nil, slog.New(slog.DiscardHandler))
	tools, err := tool.NewRegistry(mem.Tools()...)
	if err != nil {
		return err
	}
	asm := newAssembler(a, bot, db, mem, nil, agentTools(a, tools), nil)
	pt := prompt.Turn{Chat: chat, Thread: target.ThreadID, Target: target.ID}
	crewNote, err := crewTurn(ctx, cfg, db, a.Name, chat, &pt) // a crew member sees its crew's layer
	if err != nil {
		return err
	}
	req, comp, err := asm.Assemble(ctx, pt)
	if err != nil {
		return err
	}
	req.Model, req.MaxTokens, req.CacheSystem, req.Tools = a.ModelID, a.ReplyTokens, true, agentTools(a, tools)

	// Render the request exactly as the provider's SDK would send it, without sending it.
	capture := &captureTransport{}
	p := a.Provider
	p.APIKey = secret(keyOrPlaceholder(p)) // the key is not part of what is shown
	model, err := newAdapter(p, a.ReplyTokens, &http.Client{Transport: capture})
	if err != nil {
		return err
	}
	_, _ = model.Generate(ctx, req) // fails by design once the request is captured
	if capture.body == nil {
		return errors.New("the provider adapter sent no request")
	}
	if f.Format == "json" {
		return json.NewEncoder(w).Encode(map[string]any{
			"agent": a.Name, "model": a.Model, "method": capture.method, "path": capture.path,
			"request": json.RawMessage(capture.body), "composition": comp,
		})
	}
	var body bytes.Buffer
	if json.Indent(&body, capture.body, "", "  ") != nil {
		body.Write(capture.body)
	}
	fmt.Fprintf(w, "%s %s  (agent %s, model %s, chat %d, target message %d%s)\n%s\n\n", capture.method, capture.path, a.Name, a.Model, chat, pt.Target, crewNote, body.String())
	writeComposition(w, comp)
	return nil
}

func contextExplain(ctx context.Context, f contextFlags, w io.Writer) error {
	cfg, err := loadConfig(f.Dir, os.Getenv, loadOptions{NoKeys: true})
	if err != nil {
		return err
	}
	agents := cfg.Agents
	if f.Agent != "" {
		a, err := pickAgent(cfg, f.Agent)
		if err != nil {
			return err
		}
		agents = []agentConfig{a}
	}
	db, err := openStore(ctx, cfg, false)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, a := range agents {
		rec, err := db.PromptForReply(ctx, a.Name, mynah.ChatID(f.Chat), mynah.MessageID(f.Reply))
		if errors.Is(err, mynah.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		var comp prompt.Composition
		if err := json.Unmarshal(rec.Composition, &comp); err != nil {
			return fmt.Errorf("reading the recorded composition: %w", err)
		}
		if f.Format == "json" {
			return json.NewEncoder(w).Encode(map[string]any{
				"agent": rec.Agent, "chat": rec.Chat, "turn": rec.Turn, "model": rec.Model, "time": rec.Time,
				"usage":       map[string]int{"input_tokens": rec.Usage.InputTokens, "output_tokens": rec.Usage.OutputTokens, "cached_tokens": rec.Usage.CachedTokens},
				"composition": comp,
			})
		}
		fmt.Fprintf(w, "reply %d in chat %d by agent %s (turn %d, %s)\nmodel %s; usage: %d tokens in (%d cached), %d out\n\n",
			f.Reply, rec.Chat, rec.Agent, rec.Turn, rec.Time.Format("2006-01-02 15:04:05 MST"), rec.Model,
			rec.Usage.InputTokens, rec.Usage.CachedTokens, rec.Usage.OutputTokens)
		writeComposition(w, comp)
		return nil
	}
	return fmt.Errorf("no recorded prompt for reply %d (is it a message the agent sent?)", f.Reply)
}

// writeComposition prints the per-layer token table and what the history held.
func writeComposition(w io.Writer, c prompt.Composition) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "layer\ttokens\tbudget\titems\ttrimmed\t")
	for _, l := range c.Layers {
		budget := "-"
		if l.Budget > 0 {
			budget = fmt.Sprint(l.Budget)
		}
		items, trimmed := len(l.Items), len(l.Trimmed)
		if l.Name == prompt.LayerHistory {
			items, trimmed = len(c.Messages)+len(c.Quoted), c.Trimmed
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t\n", l.Name, l.Tokens, budget, items, trimmed)
	}
	total := "-"
	if c.Budget > 0 {
		total = fmt.Sprint(c.Budget)
	}
	fmt.Fprintf(tw, "total\t%d\t%s\t\t\t\n", c.Tokens, total)
	tw.Flush()
	fmt.Fprintf(w, "\nformat %s, policy %s, target message %d\nhistory: %s", c.Format, c.Policy, c.Target, idRange(c.Messages))
	if len(c.Quoted) > 0 {
		fmt.Fprintf(w, "; quoted from outside the window: %s", idRange(c.Quoted))
	}
	if c.Trimmed > 0 || c.Omitted > 0 {
		fmt.Fprintf(w, "; left out: %d for the budget, %d by the policy", c.Trimmed, c.Omitted)
	}
	fmt.Fprintln(w)
	for _, l := range c.Layers {
		if len(l.Items) > 0 || len(l.Trimmed) > 0 {
			fmt.Fprintf(w, "%s: %s", l.Name, strings.Join(l.Items, " "))
			if len(l.Trimmed) > 0 {
				fmt.Fprintf(w, " (trimmed: %s)", strings.Join(l.Trimmed, " "))
			}
			fmt.Fprintln(w)
		}
	}
}

// idRange lists message ids compactly: "3 5-9 12".
func idRange(ids []mynah.MessageID) string {
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		} else {
			parts = append(parts, fmt.Sprint(ids[i]))
		}
		i = j + 1
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// captureTransport records the request an SDK would send and sends nothing.
type captureTransport struct {
	method, path string
	body         []byte
}

var errCaptured = errors.New("request captured, not sent")

func (c *captureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.method, c.path = r.Method, r.URL.Path
	if r.Body != nil {
		c.body, _ = io.ReadAll(r.Body)
		r.Body.Close()
	}
	return nil, errCaptured
}
