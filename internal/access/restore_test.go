package access

import (
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
)

// TestLimiterRestore: the hits of the period before a restart count as if the process had
// kept running; older ones do not.
func TestLimiterRestore(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	limit := RateLimit{Messages: 3, Per: time.Hour}
	for _, c := range []struct {
		name     string
		hits     []time.Duration // before now, in the order restored
		wantOK   bool
		wantWait time.Duration // when refused
	}{
		{"none", nil, true, 0},
		{"below the limit", []time.Duration{10 * time.Minute, 20 * time.Minute}, true, 0},
		{"at the limit, any order", []time.Duration{5 * time.Minute, 50 * time.Minute, 30 * time.Minute}, false, 10 * time.Minute},
		{"older than the period", []time.Duration{61 * time.Minute, 70 * time.Minute, 5 * time.Minute}, true, 0},
		{"exactly one period ago", []time.Duration{time.Hour, 5 * time.Minute, 6 * time.Minute}, true, 0},
		{"more than the limit keeps the newest", []time.Duration{55 * time.Minute, 40 * time.Minute, 1 * time.Minute, 2 * time.Minute, 3 * time.Minute}, false, 57 * time.Minute},
		{"in the future", []time.Duration{-time.Minute, 1 * time.Minute, 2 * time.Minute}, true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := NewLimiter(limit)
			for _, ago := range c.hits {
				l.Restore(7, now.Add(-ago), now)
			}
			ok, notify, wait := l.Take(7, now)
			if ok != c.wantOK {
				t.Fatalf("Take after restoring %v: ok = %t, want %t", c.hits, ok, c.wantOK)
			}
			if !ok && (!notify || wait != c.wantWait) {
				t.Errorf("refused with notify %t, wait %s; want a notice and %s", notify, wait, c.wantWait)
			}
			if ok, _, _ := l.Take(8, now); !ok {
				t.Errorf("another user is limited by user 7's hits")
			}
		})
	}
}

func TestLimiterRestoreNil(t *testing.T) {
	var l *Limiter // no limit configured
	l.Restore(mynah.UserID(1), time.Now(), time.Now())
}
