package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// ErrLocked reports that another process holds the exclusive lock of a database: another
// mynah serves the same data dir. OpenExclusive returns it wrapped.
var ErrLocked = errors.New("database in use by another process")

// OpenExclusive is Open for the one process that serves a data dir: before opening the
// database it takes an exclusive lock on the file beside it, path+".lock" (a flock(2)
// lock where the system has one). The lock is held until Close, and the system drops it
// when the process dies however it dies, so a killed mynah never leaves a stale lock
// behind. When another process holds it, OpenExclusive fails at once with an error that
// names the data dir and wraps ErrLocked, and the database is not touched.
//
// Plain Open takes no lock and ignores this one, so an operator's commands (search,
// pairing, import) keep working on the database of a running server. Unlike Open, it
// sets the database up for serving (see openWith).
func OpenExclusive(ctx context.Context, path string) (*DB, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	lock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, err
	}
	db, err := openWith(ctx, path, schemaSnapshot, true)
	if err != nil {
		lock.Close() // releases the lock
		return nil, err
	}
	db.lock = lock
	return db, nil
}

// lockFile creates name when missing, takes the exclusive lock on it without waiting, and
// writes this process's id into it for the error a second process reports. Closing the
// returned file releases the lock. The file is never removed: a process that opened it
// before the removal would lock a file that no longer has a name.
func lockFile(name string) (*os.File, error) {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("sqlite: lock %q: %w", name, err)
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sqlite: lock %q: %w", name, err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("sqlite: lock %q: %w", name, err)
	}
	if !held {
		owner := ""
		if b, err := os.ReadFile(name); err == nil {
			if pid, err := strconv.Atoi(string(bytes.TrimSpace(b))); err == nil && pid > 0 {
				owner = fmt.Sprintf(" (process %d)", pid)
			}
		}
		f.Close()
		return nil, fmt.Errorf("sqlite: data dir %s: another mynah is running on it%s and holds %s; stop it, or give this one another data dir: %w",
			dir, owner, name, ErrLocked)
	}
	// The pid is only informative: failing to record it does not give up the lock.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}
