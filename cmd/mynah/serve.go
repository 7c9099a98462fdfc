package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/ingest"
	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/metrics"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/telegram"
	"github.com/mynah-ai/mynah/internal/telegram/tghtml"
	"github.com/mynah-ai/mynah/internal/tool"
)

func serveCommand() *cobra.Command {
	var dir, cpuProfile string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run every agent of the configuration on Telegram",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(dir, os.Getenv, loadOptions{})
			if err != nil {
				return err
			}
			log := newLogger(cfg.Log, os.Stderr)
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return err
				}
				defer f.Close()
				if err := pprof.StartCPUProfile(f); err != nil {
					return err
				}
				defer pprof.StopCPUProfile()
			}
			return serve(cmd.Context(), cfg, serveOptions{Log: log, DBFile: "mynah.db"})
		},
	}
	cmd.Flags().StringVarP(&dir, "config", "c", ".", "configuration directory (with mynah.yaml)")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile to this file until exit")
	_ = cmd.Flags().MarkHidden("cpuprofile")
	return cmd
}

// serveOptions adapt serve to its callers (serve and play).
type serveOptions struct {
	Log    *slog.Logger
	DBFile string // database file name inside the data dir
	// Tokens overrides the agents' bot tokens (play runs on the emulator's bots).
	Tokens map[string]string
	// Ready, if set, is called once every agent is running.
	Ready func()
}

// agentProcess is one running agent: its bot, intake and runner.
type agentProcess struct {
	cfg    agentConfig
	bot    *telegram.Bot
	runner *lane.Runner
	ingest *ingest.Ingester
	memory *memory.Engine
}

// serve runs every agent until ctx is cancelled, then shuts down in order: stop intake,
// finish running turns and flush replies (bounded by cfg.Shutdown), close the store.
func serve(ctx context.Context, cfg *config, opts serveOptions) error {
	log := opts.Log
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	dbPath := filepath.Join(cfg.DataDir, opts.DBFile)
	db, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()

	hc := httpClient()
	m := metrics.New()
	if cfg.Metrics.Listen != "" {
		stop, err := serveMetrics(cfg.Metrics.Listen, m, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	var procs []*agentProcess
	for _, a := range cfg.Agents {
		p, err := startAgent(ctx, cfg, a, db, hc, log, m, opts)
		if err != nil {
			return err
		}
		procs = append(procs, p)
	}
	log.Info("mynah is running", "agents", len(procs), "mode", cfg.Telegram.Mode, "db", dbPath)

	intake, stopIntake := context.WithCancel(ctx)
	defer stopIntake()
	g, gctx := errgroup.WithContext(context.WithoutCancel(ctx))
	runners, stopRunners := context.WithCancel(gctx)
	defer stopRunners()
	// New messages join the search index in batches: one write a second rather than one
	// per message (searches catch up on their own first).
	g.Go(func() error { return db.RunIndexer(runners, log) })
	for _, p := range procs {
		g.Go(func() error { return p.runner.Run(runners) })
		g.Go(func() error { return p.memory.Run(runners) })
	}
	var srv *http.Server
	if cfg.Telegram.Mode == "webhook" {
		if srv, err = startWebhook(intake, cfg, procs, log); err != nil {
			stopRunners()
			_ = g.Wait()
			return err
		}
	} else {
		for _, p := range procs {
			g.Go(func() error { return p.bot.Poll(intake, p.ingest.Handle) })
		}
	}
	if opts.Ready != nil {
		opts.Ready()
	}

	// Stop intake on shutdown or when any part fails; then drain.
	select {
	case <-ctx.Done():
		log.Info("shutting down: intake stopped, finishing running turns", "grace", cfg.Shutdown)
	case <-gctx.Done():
	}
	stopIntake()
	if srv != nil {
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = srv.Shutdown(shutdownCtx)
		cancel()
	}
	stopRunners()
	err = g.Wait()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	log.Info("stopped")
	return err
}

// startAgent connects one agent's bot (getMe, command menu, webhook state) and builds its
// pipeline.
func startAgent(ctx context.Context, cfg *config, a agentConfig, db *sqlite.DB, hc *http.Client, log *slog.Logger, m *metrics.Metrics, opts serveOptions) (*agentProcess, error) {
	token := string(a.TelegramToken)
	if t, ok := opts.Tokens[a.Name]; ok {
		token = t
	}
	bot, err := telegram.New(telegram.Config{Token: token, APIURL: cfg.Telegram.APIURL, HTTPClient: hc, Logger: log.With("agent", a.Name)})
	if err != nil {
		return nil, fmt.Errorf("agent %s (%s): %w", a.Name, a.File, err)
	}
	me, err := bot.Me(ctx)
	if err != nil {
		return nil, fmt.Errorf("agent %s: cannot reach Telegram with its bot token: %w", a.Name, err)
	}
	// Menus are a convenience: registering them (up to 50 calls) never delays start-up.
	go registerMenus(ctx, bot, a.Name, a.Policy, log)
	if cfg.Telegram.Mode == "polling" {
		if err := bot.DeleteWebhook(ctx); err != nil {
			return nil, fmt.Errorf("agent %s: switching to polling (deleteWebhook): %w", a.Name, err)
		}
	}
	model, err := newModel(a.Provider, a.ReplyTokens, hc)
	if err != nil {
		return nil, fmt.Errorf("agent %s (%s): %w", a.Name, a.File, err)
	}
	mem, err := agentMemory(cfg, a, db, model, true, hc, log)
	if err != nil {
		// Search stays keyword-only; stopping serve for it would end every chat.
		log.Error("vector search disabled", "agent", a.Name, "err", err)
	}
	tools, err := tool.NewRegistry(mem.Tools()...)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", a.Name, err)
	}
	rt := lane.New(lane.Agent{
		Name:           a.Name,
		Bot:            me,
		Model:          model,
		ModelName:      a.Model,
		ModelID:        a.ModelID,
		ReplyTokens:    a.ReplyTokens,
		Stream:         a.Stream,
		Apology:        cmp.Or(a.Apology, "Sorry, I couldn't come up with an answer just now. Please try again in a moment."),
		Prompt:         newAssembler(a, me, db, mem, bot.Members),
		Tools:          tools,
		ToolRounds:     a.ToolRounds,
		StickerSets:    a.Stickers,
		TypingDelay:    a.TypingDelay,
		TaskRetries:    a.TaskRetries,
		TaskRetryDelay: time.Duration(a.TaskRetryDelay),
	}, db, bot, lane.Options{
		Format:   tghtml.Pieces,
		Grace:    cfg.Shutdown,
		Parallel: cfg.Parallel,
		Logger:   log,
		Metrics:  m.Agent(a.Name),
	})
	limits, err := restoreLimits(ctx, db, a.Name, a.Policy.Limit, time.Now())
	if err != nil {
		return nil, err
	}
	in := ingest.New(ingest.Agent{
		Name:     a.Name,
		Bot:      me,
		Names:    a.Names,
		Model:    a.Model,
		Debounce: time.Duration(a.Debounce),
		Texts: ingest.Texts{
			Start: cmp.Or(a.Greeting, "Hi! I'm "+a.Name+". Write to me and I'll answer."),
			Help:  cmp.Or(a.Help, defaultHelp(a.Name)),
			Reset: cmp.Or(a.ResetText, "Started a new conversation. I keep our earlier messages stored, but I won't look at them from now on."),
		},
	}, db, ingest.Options{
		Queued:  func(_ mynah.ChatID) { rt.Wake() },
		Policy:  a.Policy,
		State:   db,
		Started: time.Now(),
		Logger:  log.With("agent", a.Name),
		Limits:  limits,
		Facts:   db,
		Answer:  bot.AnswerCallback,
	})
	log.Info("agent ready", "agent", a.Name, "bot", "@"+me.Username, "model", a.Model, "private", a.Policy.Private)
	return &agentProcess{cfg: a, bot: bot, runner: rt, ingest: in, memory: mem}, nil
}

// startWebhook registers each agent's webhook and serves them on one listener.
func startWebhook(ctx context.Context, cfg *config, procs []*agentProcess, log *slog.Logger) (*http.Server, error) {
	w := cfg.Telegram.Webhook
	mux := http.NewServeMux()
	for _, p := range procs {
		path := w.Path + "/" + p.cfg.Name
		mux.Handle("POST "+path, p.bot.WebhookHandler(w.Secret, p.ingest.Handle))
		url := strings.TrimRight(w.PublicURL, "/") + path
		if err := p.bot.SetWebhook(ctx, url, w.Secret); err != nil {
			return nil, fmt.Errorf("agent %s: setWebhook %s: %w", p.cfg.Name, url, err)
		}
	}
	ln, err := net.Listen("tcp", w.Listen)
	if err != nil {
		return nil, fmt.Errorf("webhook listener: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("webhook server", "err", err)
		}
	}()
	log.Info("webhook listening", "addr", ln.Addr().String(), "path", w.Path)
	return srv, nil
}

// serveMetrics serves m's /metrics on addr until the returned stop is called.
func serveMetrics(addr string, m *metrics.Metrics, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener (metrics.listen): %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server", "err", err)
		}
	}()
	log.Info("metrics listening", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}
