package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pgCluster is a PostgreSQL server of a test's own, in a temporary directory, which the
// test may restart without disturbing the tests sharing the server at 127.0.0.1:5432.
type pgCluster struct {
	t    *testing.T
	bin  string // the directory of initdb and pg_ctl
	dir  string
	user string // the user the server runs as: initdb refuses to run as root
	dsn  string
}

// privateCluster initdbs and starts a server on a free port, stopped when t ends. It
// skips t when PostgreSQL's server binaries are not installed.
func privateCluster(t *testing.T) *pgCluster {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	slices.SortFunc(bins, func(a, b string) int { return pgVersion(b) - pgVersion(a) }) // newest first
	if p, err := exec.LookPath("initdb"); err == nil {
		bins = append([]string{p}, bins...)
	}
	if len(bins) == 0 {
		t.Skip("PostgreSQL's server binaries (initdb, pg_ctl) are not installed: the restart test needs a server of its own")
	}
	c := &pgCluster{t: t, bin: filepath.Dir(bins[0])}
	dir, err := os.MkdirTemp("", "mynah-pg-") // not under t.TempDir: the server's user must reach it
	if err != nil {
		t.Fatal(err)
	}
	c.dir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		// initdb and postgres refuse to run as root: run them as postgres.
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root, and there is no postgres user to run a test server as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		c.user = "postgres"
	}
	port := strings.TrimPrefix(freePort(t), "127.0.0.1:")
	c.run("initdb", "-D", c.data(), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync")
	c.run("pg_ctl", "-D", c.data(), "-l", filepath.Join(dir, "log"), "-w", "-o",
		"-p "+port+" -k "+dir+" -c listen_addresses=127.0.0.1 -c fsync=off", "start")
	t.Cleanup(func() { c.run("pg_ctl", "-D", c.data(), "-w", "-m", "immediate", "stop") })
	c.dsn = "postgres://postgres@127.0.0.1:" + port + "/postgres?sslmode=disable"
	return c
}

func (c *pgCluster) data() string { return filepath.Join(c.dir, "data") }

// run runs one of the server's programs, as the server's user.
func (c *pgCluster) run(prog string, args ...string) {
	c.t.Helper()
	name, argv := filepath.Join(c.bin, prog), args
	if c.user != "" {
		name, argv = "runuser", append([]string{"-u", c.user, "--", filepath.Join(c.bin, prog)}, args...)
	}
	cmd := exec.Command(name, argv...)
	cmd.Dir = c.dir
	// The server it starts inherits no pipe of ours (its output goes to -l's file), but
	// should one be held, the test goes on once pg_ctl is done.
	cmd.WaitDelay = 5 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "log"))
		c.t.Fatalf("%s %s: %v\n%s\nserver log:\n%s", prog, strings.Join(args, " "), err, out, log)
	}
}

// restart restarts the server in fast mode: every session is ended, what was committed is
// written out, and the server starts again.
func (c *pgCluster) restart() {
	c.run("pg_ctl", "-D", c.data(), "-l", filepath.Join(c.dir, "log"), "-w", "-m", "fast", "restart")
}

// pgVersion is the major version in a path like /usr/lib/postgresql/15/bin/initdb.
func pgVersion(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}

// pgRestarts is how many times TestPostgresRestarted restarts the server.
const pgRestarts = 2

// TestPostgresRestarted checks issue 16's promise for a restart of PostgreSQL itself: two
// instances serve the same bot under the closed-loop load while the server restarts; they
// reconnect (with backoff) and carry on, and then every user message is stored, every
// reply arrived whole and in order, each message has one turn. A part is sent twice only
// when the restart cut its MarkSent after Telegram accepted it (the delivery window;
// checkInstances checks each duplicate is such a resend).
func TestPostgresRestarted(t *testing.T) {
	pg := privateCluster(t)
	const chats = 10
	h := newHarness(t, harnessOptions{YAML: "store: " + pg.dsn + "\n"})
	insts := startInstances(t, h, 2)
	users, stopUsers := context.WithCancel(t.Context())
	load := startCrashLoad(users, h.emu, chats)
	defer func() { stopUsers(); <-load.done; <-load.routed }()

	answered := func() int { return len(load.asks()) }
	for i := range pgRestarts {
		// Restart once the users have been answered for a while since the last one.
		before := answered()
		for deadline := time.Now().Add(time.Minute); answered() < before+2*chats; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("before restart %d: the users got %d answers in a minute, want %d", i+1, answered()-before, 2*chats)
			}
		}
		fmt.Fprintf(h.logs, "=== restart test: restarting PostgreSQL (%d)\n", i+1)
		pg.restart()
	}
	// The instances carry on after the last restart.
	before := answered()
	for deadline := time.Now().Add(time.Minute); answered() < before+2*chats; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after the last restart the users got %d answers in a minute, want %d", answered()-before, 2*chats)
		}
	}
	load.stop()
	drain, cancel := context.WithTimeout(t.Context(), crashDrain)
	err := load.wait(drain)
	cancel()
	if err != nil {
		t.Errorf("not every user got the reply to their last message within %v: %v", crashDrain, err)
		stopUsers()
		<-load.done
	}
	waitDrained(t, pg.dsn)
	for i, in := range insts {
		in.stop(t)
		insts[i] = nil
	}
	asks := load.asks()
	lost, missing, dups := checkInstances(t, h, pg.dsn, chats, asks)
	t.Logf("instances: 2; PostgreSQL restarts: %d; chats: %d; user messages: %d; lost: %d; reply parts missing: %d; duplicate parts: %d",
		pgRestarts, chats, len(asks), lost, missing, dups)
	if lost > 0 || missing > 0 {
		t.Errorf("%d user messages lost, %d reply parts missing", lost, missing)
	}
	if dups > pgRestarts*chats {
		t.Errorf("%d duplicate parts after %d restarts: more than one part in flight per chat and restart can explain", dups, pgRestarts)
	}
	if !strings.Contains(h.logs.String(), "presence: connection lost") {
		t.Error("no instance reported losing its connection: was the server restarted under them?")
	}
	if strings.Contains(h.logs.String(), "WARNING: DATA RACE") {
		t.Error("the race detector reported a data race in mynah")
	}
}
