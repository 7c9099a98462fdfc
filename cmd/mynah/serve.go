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
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/mynah-ai/mynah/internal/access"
	"github.com/mynah-ai/mynah/internal/crew"
	"github.com/mynah-ai/mynah/internal/ingest"
	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/media"
	"github.com/mynah-ai/mynah/internal/memory"
	"github.com/mynah-ai/mynah/internal/metrics"
	"github.com/mynah-ai/mynah/internal/telegram"
	"github.com/mynah-ai/mynah/internal/telegram/tghtml"
	"github.com/mynah-ai/mynah/internal/tokens"
	"github.com/mynah-ai/mynah/internal/tool"
)

func serveCommand() *cobra.Command {
	var dir, cpuProfile, memProfile string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run every agent of the configuration on Telegram",
		Long: `serve runs every agent of the configuration directory on Telegram until SIGINT or
SIGTERM: it receives updates (long polling, or a webhook with telegram.mode: webhook),
stores every message, answers those addressed to the agent with its model, and keeps
memory, summaries and search up to date in the background. On a signal it stops taking
updates, lets running turns finish and sends their replies (shutdown_timeout), then exits.

Needs: the secrets mynah check asks for, network access to Telegram and the providers,
and a writable data dir (data_dir, or MYNAH_DATA_DIR), where it keeps its SQLite
database. One serve runs per data dir. mynah doctor checks all of that first.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(dir, os.Getenv, loadOptions{})
			if err != nil {
				return err
			}
			log := newLogger(cfg.Log, os.Stderr)
			if memProfile != "" {
				runtime.MemProfileRate = 512 << 10 // the runtime's default, which main turns off
			}
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
			err = serve(cmd.Context(), cfg, serveOptions{Log: log, DBFile: "mynah.db"})
			if memProfile != "" {
				if perr := writeHeapProfile(memProfile); perr != nil {
					log.Error("writing the heap profile", "err", perr)
				}
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&dir, "config", "c", ".", "configuration directory (with mynah.yaml)")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile to this file until exit")
	_ = cmd.Flags().MarkHidden("cpuprofile")
	cmd.Flags().StringVar(&memProfile, "memprofile", "", "write a heap profile to this file at exit")
	_ = cmd.Flags().MarkHidden("memprofile")
	return cmd
}

// writeHeapProfile writes the live heap, after a collection, to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	return errors.Join(pprof.WriteHeapProfile(f), f.Close())
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

// agentProcess is one running agent: its bot, intake, lanes and memory.
type agentProcess struct {
	cfg    agentConfig
	bot    *telegram.Bot
	runner *lane.Runner
	ingest *ingest.Ingester
	memory *memory.Engine
}

// serve runs every agent until ctx is cancelled. It reads as the flow of a message:
// Telegram → intake (a poller per bot, or the webhook server) → ingest → the store →
// the lanes → Telegram, with each agent's memory and the search indexer working beside
// them.
func serve(ctx context.Context, cfg *config, opts serveOptions) (err error) {
	log := opts.Log
	defer func() {
		// A signal while starting (opening the store, waiting for Telegram) asks to stop
		// as much as one while running does: nothing was taken in yet, so nothing is lost,
		// and a service manager stopping it must not see a failure.
		if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
			log.Info("stopped while starting", "at", err)
			err = nil
		}
	}()
	db, err := openServeStore(ctx, cfg, opts.DBFile, log)
	if err != nil {
		return err
	}
	defer db.Close() // the store closes last, after every part below has stopped
	hc, m := httpClient(), metrics.New()
	senses := media.New(db, log, nil) // every agent's media, described once per instance
	cals, calls := tokens.NewCalibrations(db, log), newProviderLimits(cfg.Parallel)
	work := append(storeWork(db, log), once(db, "media", senses.Run), cals.Run, trimAfterBursts)
	var procs []*agentProcess
	crews, err := newCrews(cfg, db, log) // nil when no crew is configured
	if err != nil {
		return err
	}
	if crews != nil {
		work = append(work, crews.Run)
	}
	if cfg.Metrics.Listen != "" {
		run, err := metricsServer(cfg.Metrics.Listen, m, readiness(db, &procs), log)
		if err != nil {
			return err
		}
		work = append(work, run)
	}
	for _, a := range cfg.Agents {
		p, err := startAgent(ctx, cfg, a, db, senses, cals, calls, hc, log, m, opts, crews)
		if err != nil {
			return err
		}
		procs = append(procs, p)
		work = append(work, p.runner.Run, once(db, "memory "+a.Name, p.memory.Run),
			func(ctx context.Context) error { return p.bot.RegisterMenus(ctx, agentMenus(a.Policy)) },
			func(ctx context.Context) error { checkKeys(ctx, a, hc, log); return nil })
	}
	intake, err := intakeOf(ctx, cfg, procs, log)
	if err != nil {
		return err
	}
	intake, work = electPollers(db, cfg, procs, intake), append(work, coordinate(db, procs)...)
	log.Info("mynah is running", "agents", len(procs), "mode", cfg.Telegram.Mode, "db", storeName(db))
	return runAll(ctx, cfg.Shutdown, log, intake, work, opts.Ready)
}

// runAll runs intake and work until ctx is done or one of them fails, then stops them in
// order: intake first, so no update is confirmed to Telegram that nobody will handle;
// then work, where the lanes finish running turns and flush replies within grace. It
// returns the first failure, nil for a clean stop.
func runAll(ctx context.Context, grace time.Duration, log *slog.Logger, intake, work []func(context.Context) error, ready func()) error {
	g, failed := errgroup.WithContext(context.WithoutCancel(ctx))
	workCtx, stopWork := context.WithCancel(failed)
	defer stopWork()
	intakeCtx, stopIntake := context.WithCancel(workCtx)
	defer stopIntake()
	var intakeDone sync.WaitGroup
	for _, run := range intake {
		intakeDone.Add(1)
		g.Go(func() error { defer intakeDone.Done(); return run(intakeCtx) })
	}
	for _, run := range work {
		g.Go(func() error { return run(workCtx) })
	}
	if ready != nil {
		ready()
	}
	select {
	case <-ctx.Done():
		log.Info("shutting down: intake stopped, finishing running turns", "grace", grace)
	case <-failed.Done():
	}
	stopIntake()
	intakeDone.Wait()
	stopWork()
	err := g.Wait()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	log.Info("stopped")
	return err
}

// startAgent connects one agent's bot (getMe, command menu, webhook state) and builds its
// pipeline.
func startAgent(ctx context.Context, cfg *config, a agentConfig, db store, senses *media.Engine, cals *tokens.Calibrations, calls *providerLimits, hc *http.Client, log *slog.Logger, m *metrics.Metrics, opts serveOptions, crews *crew.Engine) (*agentProcess, error) {
	token := string(a.TelegramToken)
	if t, ok := opts.Tokens[a.Name]; ok {
		token = t
	}
	bot, err := telegram.New(telegram.Config{Token: token, APIURL: cfg.Telegram.APIURL, HTTPClient: hc, Logger: log.With("agent", a.Name)})
	if err != nil {
		return nil, fmt.Errorf("agent %s (%s): %w", a.Name, a.File, err)
	}
	me, err := bot.Reach(ctx, time.Duration(cfg.Telegram.StartupTimeout))
	if err != nil {
		return nil, fmt.Errorf("agent %s: cannot reach Telegram with its bot token: %w", a.Name, err)
	}
	if cfg.Telegram.Mode == "polling" {
		if err := bot.DeleteWebhook(ctx); err != nil {
			return nil, fmt.Errorf("agent %s: switching to polling (deleteWebhook): %w", a.Name, err)
		}
	}
	models, err := agentModels(a, calls, log, db, cfg.reminderEvery(a.Name))
	if err != nil {
		return nil, fmt.Errorf("agent %s (%s): %w", a.Name, a.File, err)
	}
	if a.Tokens != "exact" {
		for i := range models {
			models[i].Observe = observeTokens(cals.Get(ctx, a.Name, models[i].Name))
		}
	}
	a.Count = agentCount(ctx, a, cals)
	model := models[0].Model
	mem, err := agentMemory(cfg, a, db, model, true, hc, log)
	if err != nil {
		// Search stays keyword-only; stopping serve for it would end every chat.
		log.Error("vector search disabled", "agent", a.Name, "err", err)
	}
	tools, err := tool.NewRegistry(mem.Tools()...)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", a.Name, err)
	}
	sense, err := mediaAgent(cfg, a, bot, hc, log)
	if err != nil {
		return nil, err
	}
	senses.Add(sense)
	if !a.Transcribes && a.Media.Transcribe != "off" {
		log.Info("voice notes keep their placeholders: provider "+a.Provider.Kind+" has no speech-to-text; set media.transcribe (e.g. openai/whisper-1) to hear them", "agent", a.Name)
	}
	rt := lane.New(lane.Agent{
		Name:           a.Name,
		Bot:            me,
		Models:         models,
		ReplyTokens:    a.ReplyTokens,
		Stream:         a.Stream,
		Apology:        cmp.Or(a.Apology, "Sorry, I couldn't come up with an answer just now. Please try again in a moment."),
		Prompt:         newAssembler(a, me, db, mem, senses, agentTools(a, tools), bot.Members),
		Tools:          tools,
		ToolRounds:     a.ToolRounds,
		StickerSets:    a.Stickers,
		TypingDelay:    a.TypingDelay,
		TaskRetries:    a.TaskRetries,
		TaskRetryDelay: time.Duration(a.TaskRetryDelay),
		MaxTasks:       a.MaxTasks,
		MaxReminders:   a.MaxReminders,
	}, db, bot, lane.Options{
		RetryWindow: time.Duration(a.RetryWindow),
		Format:      tghtml.Pieces,
		Grace:       cfg.Shutdown,
		Parallel:    cfg.Parallel,
		Logger:      log,
		Metrics:     m.Agent(a.Name),
		Crew:        laneCrew(cfg, a, crews),
	})
	if crews != nil {
		crews.Join(a.Name, me, rt)
	}
	limits, err := access.RestoreLimiter(ctx, db, a.Name, a.Policy.Limit, time.Now())
	if err != nil {
		return nil, err
	}
	in := ingest.New(ingest.Agent{
		Name:     a.Name,
		Bot:      me,
		Names:    a.Names,
		Model:    a.Model,
		Debounce: time.Duration(a.Debounce),
		// Absolute, so the printed approve command works from any directory.
		ConfigDir: absDir(cfg.Dir),
		Texts: ingest.Texts{
			Start: cmp.Or(a.Greeting, "Hi! I'm "+a.Name+". Write to me and I'll answer."),
			Help:  cmp.Or(a.Help, defaultHelp(a.Name)),
			Reset: cmp.Or(a.ResetText, "Started a new conversation. I keep our earlier messages stored, but I won't look at them from now on."),
		},
	}, db, ingest.Options{
		Queued:  rt.Queued,
		Policy:  a.Policy,
		State:   db,
		Started: time.Now(),
		Logger:  log.With("agent", a.Name),
		Limits:  limits,
		Facts:   db,
		Answer:  bot.AnswerCallback,
		Crew:    ingestCrew(cfg, a, crews),
	})
	log.Info("agent ready", "agent", a.Name, "bot", "@"+me.Username, "model", a.Model, "private", a.Policy.Private)
	return &agentProcess{cfg: a, bot: bot, runner: rt, ingest: in, memory: mem}, nil
}

// intakeOf is how updates arrive: a long poll per bot, or every bot's webhook on one
// listener (registered with Telegram here, the listener bound, so a bad address fails at
// start).
func intakeOf(ctx context.Context, cfg *config, procs []*agentProcess, log *slog.Logger) ([]func(context.Context) error, error) {
	if cfg.Telegram.Mode != "webhook" {
		var intake []func(context.Context) error
		for _, p := range procs {
			intake = append(intake, func(ctx context.Context) error { return p.bot.Poll(ctx, p.ingest.Handle) })
		}
		return intake, nil
	}
	w := cfg.Telegram.Webhook
	handlers := map[string]http.Handler{}
	for _, p := range procs {
		path := w.Path + "/" + p.cfg.Name
		handlers[path] = p.bot.WebhookHandler(w.Secret, p.ingest.Handle)
		url := strings.TrimRight(w.PublicURL, "/") + path
		if err := p.bot.SetWebhook(ctx, url, w.Secret); err != nil {
			return nil, fmt.Errorf("agent %s: setWebhook %s: %w", p.cfg.Name, url, err)
		}
	}
	ln, err := net.Listen("tcp", w.Listen)
	if err != nil {
		return nil, fmt.Errorf("webhook listener: %w", err)
	}
	log.Info("webhook listening", "addr", ln.Addr().String(), "path", w.Path)
	srv := &telegram.WebhookServer{Listener: ln, Handlers: handlers, Logger: log}
	return []func(context.Context) error{srv.Run}, nil
}

// readiness is /readyz's check: the store answers and every agent's bot receives updates
// (its long poll works, or its webhook is set).
func readiness(db store, procs *[]*agentProcess) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := db.Ping(ctx); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if len(*procs) == 0 {
			return errors.New("starting")
		}
		for _, p := range *procs {
			if !p.bot.Receiving() && !shared(db) {
				return fmt.Errorf("agent %s: not receiving updates from Telegram", p.cfg.Name)
			}
		}
		return nil
	}
}

// metricsServer binds addr (so a bad address fails at start) and returns a Run that
// serves m's /metrics, /healthz (the process is up) and /readyz (ready answers nil) until
// ctx is done, then shuts down, letting requests under way finish for up to 5 s.
func metricsServer(addr string, m *metrics.Metrics, ready func(context.Context) error, log *slog.Logger) (func(context.Context) error, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener (metrics.listen): %w", err)
	}
	log.Info("metrics listening", "addr", ln.Addr().String())
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := ready(r.Context()); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	return func(ctx context.Context) error {
		served := make(chan error, 1)
		go func() { served <- srv.Serve(ln) }()
		select {
		case err := <-served:
			return fmt.Errorf("metrics server: %w", err)
		case <-ctx.Done():
		}
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
		<-served // http.ErrServerClosed
		return nil
	}, nil
}

// absDir is dir made absolute, or dir as given when that fails.
func absDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}
