package media

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
)

var (
	// errNoBudget: the agent spent its budget for this minute; the item waits.
	errNoBudget = errors.New("media budget spent for this minute")
	// errSkip: the agent cannot describe this item (no describer, transcriber or ffmpeg,
	// nothing to download, a kind mynah does not read); it keeps its placeholder and
	// nothing is cached, so it is described once the agent can.
	errSkip = errors.New("no way to describe this item")
)

// unsupported is the problem of a file that cannot be described: it is cached as final.
type unsupported string

func (u unsupported) Error() string { return string(u) }

// final reports whether n settles its file: described, unsupported, or failed as often as
// it may.
func final(n mynah.MediaNote) bool {
	return n.Status == mynah.MediaDescribed || n.Status == mynah.MediaUnsupported ||
		(n.Status == mynah.MediaFailed && n.Attempts >= maxAttempts)
}

// backoff is how long a file waits after its n-th failed attempt: 30 s, 2 min, 8 min, …,
// at most an hour.
func backoff(n int) time.Duration {
	d := 30 * time.Second
	for i := 1; i < n && d < time.Hour; i++ {
		d *= 4
	}
	return min(d, time.Hour)
}

// shown is what the prompt shows for n: its description, or what went wrong with a file
// that cannot be described ("could not be read"), without the details after the first
// colon (an error from a provider, ffmpeg's complaint), which are for operators, not
// for the model and the people it talks to; "" while it may still be described.
func shown(n mynah.MediaNote) string {
	switch {
	case n.Status == mynah.MediaDescribed:
		return n.Description
	case final(n):
		head, _, _ := strings.Cut(n.Problem, ":")
		return strings.TrimSpace(head)
	}
	return ""
}

// known returns what is known of md without a download: a curated description (the
// agent's, then global), else the store's note. ok is false when nothing is known.
func (e *Engine) known(ctx context.Context, a *agent, md mynah.Media) (n mynah.MediaNote, ok bool) {
	for _, c := range a.curated {
		if n, ok := c.lookup(e.log, md); ok {
			return n, true
		}
	}
	if md.FileUniqueID == "" {
		return mynah.MediaNote{}, false
	}
	if n, ok := e.notes.get(md.FileUniqueID, e.now()); ok {
		return n, true
	}
	n, err := e.store.MediaNote(ctx, md.FileUniqueID)
	switch {
	case errors.Is(err, mynah.ErrNotFound):
		return mynah.MediaNote{}, false
	case err != nil:
		if ctx.Err() == nil {
			e.log.Error("media: reading the cache", "unique_id", md.FileUniqueID, "err", err)
		}
		return mynah.MediaNote{}, false
	}
	if final(n) {
		e.notes.put(n, e.now())
	}
	return n, true
}

// resolve describes md for a: the chain past the curated files and the cache. With
// overdraw (the messages being answered) the budget may be overspent, so a reply is
// never starved; without it (background work) an agent out of budget gets errNoBudget.
// The same file worked on twice at once is worked on once: the second caller waits for
// the first one's note. It returns the note stored, which is final or a failure to
// retry, errSkip, errNoBudget, or the error of ctx or the store.
func (e *Engine) resolve(ctx context.Context, a *agent, md mynah.Media, overdraw bool) (mynah.MediaNote, error) {
	if n, ok := e.known(ctx, a, md); ok && (final(n) || (!overdraw && e.now().Before(n.Updated.Add(backoff(n.Attempts))))) {
		return n, nil // settled, or a failure still in its backoff
	}
	if md.FileUniqueID == "" || md.FileID == "" {
		return mynah.MediaNote{}, errSkip
	}
	for range 3 {
		n, err := e.describe(ctx, a, md, overdraw)
		// A reply never waits for the budget: had it joined a background attempt that
		// found none, it tries again, on its own.
		if !overdraw || !errors.Is(err, errNoBudget) {
			return n, err
		}
	}
	return mynah.MediaNote{}, errNoBudget
}

// describe is resolve's work on one file, done once at a time.
func (e *Engine) describe(ctx context.Context, a *agent, md mynah.Media, overdraw bool) (mynah.MediaNote, error) {
	return e.once(ctx, "describe:"+md.FileUniqueID, func(ctx context.Context) (mynah.MediaNote, error) {
		prev, ok := e.known(ctx, a, md) // another worker may have just finished it
		if ok && final(prev) {
			return prev, nil
		}
		note := mynah.MediaNote{UniqueID: md.FileUniqueID, Kind: md.Kind, SetName: md.SetName, Emoji: md.Emoji,
			Attempts: prev.Attempts}
		how := route(md, nil)
		if md.Size > maxDownload && how != readNone {
			return e.settle(ctx, a, md, note, unsupported("over 20 MB, too big to download"), "")
		}
		if err := e.able(a, how); err != nil {
			return mynah.MediaNote{}, err
		}
		if !e.take(a, overdraw) {
			return mynah.MediaNote{}, errNoBudget
		}
		data, err := e.fetch(ctx, a, md)
		if err != nil {
			if errors.Is(err, mynah.ErrFileTooBig) {
				err = unsupported("over 20 MB, too big to download")
			}
			return e.settle(ctx, a, md, note, err, "")
		}
		desc, source, err := e.read(ctx, a, md, data)
		note.Source = source
		return e.settle(ctx, a, md, note, err, desc)
	})
}

// settle stores the outcome of one attempt at md: its description, a final problem
// (unsupported), or a failure, retried until maxAttempts. It logs every problem once.
func (e *Engine) settle(ctx context.Context, a *agent, md mynah.Media, n mynah.MediaNote, err error, desc string) (mynah.MediaNote, error) {
	if ctx.Err() != nil {
		if err != nil || desc == "" { // stopping: nothing learned about the file
			return mynah.MediaNote{}, ctx.Err()
		}
		// A description the provider gave (and was paid for) as mynah stops is kept: the
		// file is not described again after the restart.
		ctx = context.WithoutCancel(ctx)
	}
	var u unsupported
	switch {
	case errors.Is(err, errSkip):
		return mynah.MediaNote{}, err
	case err == nil:
		n.Status, n.Description, n.Problem = mynah.MediaDescribed, desc, ""
	case errors.As(err, &u):
		n.Status, n.Problem = mynah.MediaUnsupported, u.Error()
		e.log.Warn("media: cannot describe", "agent", a.Name, "kind", md.Kind, "unique_id", md.FileUniqueID,
			"problem", n.Problem)
	default:
		n.Status, n.Attempts = mynah.MediaFailed, n.Attempts+1
		n.Problem = "could not be described: " + err.Error()
		if n.Attempts >= maxAttempts {
			n.Problem = fmt.Sprintf("could not be described (%d attempts): %v", n.Attempts, err)
			e.log.Warn("media: giving up", "agent", a.Name, "kind", md.Kind, "unique_id", md.FileUniqueID,
				"attempts", n.Attempts, "err", err)
		} else {
			e.log.Info("media: will retry", "agent", a.Name, "kind", md.Kind, "unique_id", md.FileUniqueID,
				"attempt", n.Attempts, "err", err)
		}
	}
	n.Updated = e.now()
	if err := e.store.PutMediaNote(ctx, n); err != nil {
		return mynah.MediaNote{}, err
	}
	if final(n) {
		e.notes.put(n, e.now())
	}
	return n, nil
}

// take spends one unit of a's budget for this minute; overdraw spends it even when none
// is left.
func (e *Engine) take(a *agent, overdraw bool) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return a.budget.take(e.now(), a.Budget, overdraw)
}

// nextBudget is when a's budget frees a unit: a minute after the oldest use of the last
// minute.
func (e *Engine) nextBudget(a *agent) time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return a.budget.next(e.now())
}

// budget counts what an agent spent in the last minute, a sliding window: any 60
// seconds hold at most the limit (overdrawn uses aside), however they fall across the
// clock's minutes.
type budget struct {
	uses []time.Time // times of the uses of the last minute, oldest first
}

func (b *budget) prune(now time.Time) {
	i := 0
	for i < len(b.uses) && !b.uses[i].After(now.Add(-time.Minute)) {
		i++
	}
	b.uses = b.uses[i:]
}

func (b *budget) take(now time.Time, limit int, overdraw bool) bool {
	b.prune(now)
	if len(b.uses) >= limit && !overdraw {
		return false
	}
	b.uses = append(b.uses, now)
	return true
}

func (b *budget) next(now time.Time) time.Time {
	b.prune(now)
	if len(b.uses) == 0 {
		return now
	}
	return b.uses[0].Add(time.Minute)
}

// fetch downloads md, or takes it from the files downloaded in the last minutes (the
// image shown to a vision model is described later from the same bytes). Two downloads
// of the same file at once are one.
func (e *Engine) fetch(ctx context.Context, a *agent, md mynah.Media) ([]byte, error) {
	if data, ok := e.recent.get(md.FileUniqueID, e.now()); ok {
		return data, nil
	}
	if a.Files == nil {
		return nil, errSkip
	}
	var data []byte
	_, err := e.once(ctx, "download:"+md.FileUniqueID, func(ctx context.Context) (mynah.MediaNote, error) {
		dctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		b, err := a.Files.Download(dctx, md.FileID, maxDownload)
		if err != nil {
			return mynah.MediaNote{}, err
		}
		if len(b) == 0 {
			return mynah.MediaNote{}, unsupported("the file is empty")
		}
		e.recent.put(md.FileUniqueID, b, e.now())
		e.keep(a, md, b)
		data = b
		return mynah.MediaNote{}, nil
	})
	if err != nil {
		return nil, err
	}
	if data == nil { // another caller downloaded it
		if b, ok := e.recent.get(md.FileUniqueID, e.now()); ok {
			return b, nil
		}
		return e.fetch(ctx, a, md)
	}
	return data, nil
}

// keep writes a downloaded file to a.KeepFiles, when set; a failure is logged, never
// fatal.
func (e *Engine) keep(a *agent, md mynah.Media, data []byte) {
	if a.KeepFiles == "" {
		return
	}
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return -1
	}, md.FileUniqueID)
	if name == "" {
		return
	}
	name += filepath.Ext(md.FileName)
	if err := os.MkdirAll(a.KeepFiles, 0o700); err != nil {
		e.log.Error("media: keeping a file", "agent", a.Name, "err", err)
		return
	}
	if err := os.WriteFile(filepath.Join(a.KeepFiles, name), data, 0o600); err != nil {
		e.log.Error("media: keeping a file", "agent", a.Name, "err", err)
	}
}

// flight is one piece of work in progress; callers of the same key wait for it.
type flight struct {
	done chan struct{}
	note mynah.MediaNote
	err  error
}

// once runs fn unless work of the same key is in progress, in which case it waits for
// that work and returns its result (a waiter whose ctx ends returns ctx's error).
func (e *Engine) once(ctx context.Context, key string, fn func(context.Context) (mynah.MediaNote, error)) (mynah.MediaNote, error) {
	e.mu.Lock()
	if f, ok := e.flights[key]; ok {
		e.mu.Unlock()
		select {
		case <-f.done:
			return f.note, f.err
		case <-ctx.Done():
			return mynah.MediaNote{}, ctx.Err()
		}
	}
	f := &flight{done: make(chan struct{})}
	e.flights[key] = f
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.flights, key)
		e.mu.Unlock()
		close(f.done)
	}()
	f.note, f.err = fn(ctx)
	return f.note, f.err
}

// noteCache holds settled notes read or written lately, so a prompt full of known
// stickers costs no query. Entries live five seconds, so an operator's edit in another
// process (mynah media set) shows within five seconds, before a message of the same file
// can be stored with the old words. It is safe for concurrent use.
type noteCache struct {
	mu sync.Mutex
	m  map[string]cachedNote
}

type cachedNote struct {
	note mynah.MediaNote
	at   time.Time
}

const (
	noteTTL   = 5 * time.Second
	noteLimit = 10_000
)

func (c *noteCache) get(uid string, now time.Time) (mynah.MediaNote, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cn, ok := c.m[uid]
	if !ok || now.Sub(cn.at) > noteTTL || now.Before(cn.at) {
		return mynah.MediaNote{}, false
	}
	return cn.note, true
}

func (c *noteCache) put(n mynah.MediaNote, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= noteLimit {
		for k, cn := range c.m {
			if now.Sub(cn.at) > noteTTL {
				delete(c.m, k)
			}
		}
		if len(c.m) >= noteLimit {
			clear(c.m)
		}
	}
	c.m[n.UniqueID] = cachedNote{note: n, at: now}
}

// recentFiles holds the files downloaded in the last minutes, at most recentBytes of
// them, so that a file shown to a vision model is described from the same download.
type recentFiles struct {
	mu    sync.Mutex
	m     map[string]recentFile
	bytes int
}

type recentFile struct {
	data []byte
	at   time.Time
}

const (
	recentTTL   = 10 * time.Minute
	recentBytes = 32 << 20
)

func (r *recentFiles) get(uid string, now time.Time) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.m[uid]
	if !ok || now.Sub(f.at) > recentTTL {
		return nil, false
	}
	return f.data, true
}

func (r *recentFiles) put(uid string, data []byte, now time.Time) {
	if len(data) > recentBytes/4 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.m[uid]; ok {
		r.bytes -= len(old.data)
	}
	r.m[uid] = recentFile{data: data, at: now}
	r.bytes += len(data)
	for r.bytes > recentBytes { // drop the oldest
		var oldest string
		for k, f := range r.m {
			if oldest == "" || f.at.Before(r.m[oldest].at) {
				oldest = k
			}
		}
		r.bytes -= len(r.m[oldest].data)
		delete(r.m, oldest)
	}
}
