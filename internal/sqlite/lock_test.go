//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package sqlite

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestOpenExclusive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "mynah.db")
	first, err := OpenExclusive(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}

	// A second server in this process opens the lock file anew: another open file
	// description, which flock refuses just like another process's.
	second, err := OpenExclusive(t.Context(), path)
	if err == nil {
		second.Close()
		t.Fatal("second OpenExclusive succeeded while the first holds the lock")
	}
	if !errors.Is(err, ErrLocked) {
		t.Errorf("second OpenExclusive = %v, want ErrLocked in the chain", err)
	}
	for _, want := range []string{dir, "another mynah is running on it", "process " + strconv.Itoa(os.Getpid())} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}

	// An operator's command opens the database of the running server.
	cli, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open beside a locked store: %v", err)
	}
	if err := cli.SetBlocked(t.Context(), "A", 1, true); err != nil {
		t.Errorf("writing beside a locked store: %v", err)
	}
	if blocked, err := first.Blocked(t.Context(), "A", 1); err != nil || !blocked {
		t.Errorf("the server reads Blocked = %v, %v; want the command's true", blocked, err)
	}
	if err := cli.Close(); err != nil {
		t.Fatal(err)
	}

	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Errorf("second Close = %v, want the first call's nil", err)
	}
	again, err := OpenExclusive(t.Context(), path)
	if err != nil {
		t.Fatalf("OpenExclusive after Close: %v", err)
	}
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenExclusiveFailureReleasesLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mynah.db")
	if err := os.WriteFile(path, []byte("not a database, and long enough to be read as one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if db, err := OpenExclusive(t.Context(), path); err == nil {
		db.Close()
		t.Fatal("OpenExclusive of a damaged file succeeded")
	}
	f, err := lockFile(path + ".lock")
	if err != nil {
		t.Fatalf("lock after a failed OpenExclusive: %v", err)
	}
	f.Close()
}

// lockHelperEnv names the lock file a re-executed test binary holds until it is killed.
const lockHelperEnv = "MYNAH_SQLITE_LOCK_HELPER"

// TestLockHelperProcess is not a test: it is the process TestLockDiesWithProcess kills.
func TestLockHelperProcess(t *testing.T) {
	path := os.Getenv(lockHelperEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	db, err := OpenExclusive(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	os.Stdout.WriteString("locked\n")
	_, _ = io.Copy(io.Discard, os.Stdin) // until killed, or the parent goes away
}

// TestLockDiesWithProcess kills -9 a process that holds the lock: the next server starts.
func TestLockDiesWithProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mynah.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("helper said %q, %v; want locked", line, err)
	}

	_, err = OpenExclusive(t.Context(), path)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "process "+strconv.Itoa(cmd.Process.Pid)) {
		t.Errorf("OpenExclusive while another process holds the lock = %v, want ErrLocked naming process %d", err, cmd.Process.Pid)
	}

	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no deferred Close runs
		t.Fatal(err)
	}
	_ = cmd.Wait()
	db, err := OpenExclusive(t.Context(), path)
	if err != nil {
		t.Fatalf("OpenExclusive after the holder was killed: %v", err)
	}
	if err := db.SetBlocked(t.Context(), "A", 1, true); err != nil {
		t.Error(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
