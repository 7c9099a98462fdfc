package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/telegram"
)

// doctorCommand checks an installation from end to end and prints a verdict per line.
func doctorCommand() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check an installation: config, secrets, bot tokens and provider keys, data dir, store, disk, clock, pending work",
		Long: `doctor checks what serve needs, one line each with ok, WARN or FAIL: the configuration,
the secrets it references, each bot token (one getMe call) and provider key (one
one-token model call), the data dir (writable, free space), the database (SQLite's
quick_check), the clock against Telegram's, and the work waiting in the queue. It
exits 1 when any line fails. It may run beside a serving mynah.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if failed := doctor(cmd.Context(), dir, cmd.OutOrStdout()); failed > 0 {
				return fmt.Errorf("%d check(s) failed", failed)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "config", "c", ".", "configuration directory (with mynah.yaml)")
	return cmd
}

// doctor runs every check and returns how many failed.
func doctor(ctx context.Context, dir string, w io.Writer) int {
	failed := 0
	line := func(v, what, detail string) {
		if v == "FAIL" {
			failed++
		}
		fmt.Fprintf(w, "%-4s  %-36s %s\n", v, what, detail)
	}
	check := func(what string, err error, ok string) { failed += verdict(w, what, err, ok) }
	cfg, err := loadConfig(dir, os.Getenv, loadOptions{})
	if err != nil {
		line("FAIL", "configuration", err.Error())
		// Without the secrets the rest can still be looked at.
		if cfg, err = loadConfig(dir, os.Getenv, loadOptions{NoKeys: true}); err != nil {
			return failed
		}
	} else {
		line("ok", "configuration", fmt.Sprintf("%s: %d agent(s), every secret set", filepath.Join(dir, "mynah.yaml"), len(cfg.Agents)))
	}

	failed += checkOnline(ctx, cfg, w)
	hc := httpClient()
	check("data dir", writable(cfg.DataDir), cfg.DataDir+" is writable")
	if free, err := freeBytes(cfg.DataDir); err != nil {
		line("WARN", "disk space", err.Error())
	} else {
		verdict := "ok"
		switch {
		case free < 100<<20:
			verdict = "FAIL"
		case free < 1<<30:
			verdict = "WARN"
		}
		line(verdict, "disk space", fmt.Sprintf("%.1f GB free", float64(free)/(1<<30)))
	}
	if skew, err := clockSkew(ctx, hc, cfg.Telegram.APIURL); err != nil {
		line("WARN", "clock", "could not compare with Telegram's: "+err.Error())
	} else {
		verdict := "ok"
		if skew > time.Minute || skew < -time.Minute {
			verdict = "WARN"
		}
		line(verdict, "clock", fmt.Sprintf("%s off Telegram's", skew.Round(time.Second)))
	}

	dbPath := filepath.Join(cfg.DataDir, "mynah.db")
	if _, err := os.Stat(dbPath); cfg.Store == "" && errors.Is(err, os.ErrNotExist) {
		line("ok", "store", dbPath+" does not exist yet: serve creates it")
		return failed
	}
	db, err := openStore(ctx, cfg, false)
	if err != nil {
		line("FAIL", "store", err.Error())
		return failed
	}
	defer db.Close()
	if sq, ok := db.(*sqlite.DB); ok {
		check("store", sq.QuickCheck(ctx), dbPath+" passes SQLite's quick_check")
	} else {
		check("store", db.Ping(ctx), storeName(db)+" answers")
	}
	for _, a := range cfg.Agents {
		turns, err1 := db.PendingTurns(ctx, a.Name, time.Now(), 10000)
		parts, err2 := db.PendingParts(ctx, a.Name, 10000)
		if err := errors.Join(err1, err2); err != nil {
			line("FAIL", "agent "+a.Name+": pending", err.Error())
			continue
		}
		verdict := "ok"
		if len(turns) >= 100 || len(parts) >= 100 {
			verdict = "WARN"
		}
		line(verdict, "agent "+a.Name+": pending", fmt.Sprintf("%d turn(s) to answer, %d message part(s) to deliver", len(turns), len(parts)))
	}
	return failed
}

// checkOnline tries each agent's bot token (getMe) and model (a one-token call), a line
// each, and returns how many failed.
func checkOnline(ctx context.Context, cfg *config, w io.Writer) int {
	failed := 0
	hc := httpClient()
	for _, a := range cfg.Agents {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		me, err := botName(ctx, cfg, a, hc)
		failed += verdict(w, "agent "+a.Name+": bot token", err, "valid ("+me+")")
		failed += verdict(w, "agent "+a.Name+": model "+a.Model, pingModel(ctx, a, hc), "the provider answered")
		cancel()
	}
	return failed
}

// botName is the @username of a's bot, asked of Telegram.
func botName(ctx context.Context, cfg *config, a agentConfig, hc *http.Client) (string, error) {
	bot, err := telegram.New(telegram.Config{Token: string(a.TelegramToken), APIURL: cfg.Telegram.APIURL, HTTPClient: hc})
	if err != nil {
		return "", err
	}
	u, err := bot.Me(ctx)
	return "@" + u.Username, err
}

// verdict writes one check's line, ok or FAIL, and returns 1 when it failed.
func verdict(w io.Writer, what string, err error, ok string) int {
	if err != nil {
		fmt.Fprintf(w, "%-4s  %-36s %s\n", "FAIL", what, err.Error())
		return 1
	}
	fmt.Fprintf(w, "%-4s  %-36s %s\n", "ok", what, ok)
	return 0
}

// pingModel makes one one-token call to a's model, so a wrong key or model name shows.
func pingModel(ctx context.Context, a agentConfig, hc *http.Client) error {
	m, err := newAdapter(a.Provider, 1, hc)
	if err != nil {
		return err
	}
	_, err = m.Generate(ctx, llm.Request{Model: a.ModelID, MaxTokens: 1, Turns: []llm.Turn{llm.Text(llm.User, "ping")}})
	return err
}

// writable creates and removes a file in dir (creating dir when missing).
func writable(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// freeBytes is the space left to unprivileged users on dir's file system.
func freeBytes(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// clockSkew is how far this machine's clock is from the Date header of Telegram's API
// server (positive: ahead).
func clockSkew(ctx context.Context, hc *http.Client, apiURL string) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, apiURL, nil)
	if err != nil {
		return 0, err
	}
	before := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	date, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return 0, fmt.Errorf("no Date header: %w", err)
	}
	mid := before.Add(time.Since(before) / 2)
	return mid.Sub(date), nil
}
