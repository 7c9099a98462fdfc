package llm

import (
	"context"
	"errors"
	"net"
	"testing"
	"testing/synctest"
	"time"
)

// TestConnectWithin: a dial that hangs gives up after the connect timeout with an error
// wrapping ErrTimeout; one its caller cancels keeps the caller's error.
func TestConnectWithin(t *testing.T) {
	hang := func(ctx context.Context, _, _ string) (net.Conn, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	synctest.Test(t, func(t *testing.T) {
		dial := connectWithin(3*time.Second, hang)
		start := time.Now()
		_, err := dial(t.Context(), "tcp", "192.0.2.1:443")
		if !errors.Is(err, ErrTimeout) || time.Since(start) != 3*time.Second {
			t.Errorf("err = %v after %v; want ErrTimeout after 3s", err, time.Since(start))
		}

		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if _, err := dial(ctx, "tcp", "192.0.2.1:443"); errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("cancelled by its caller: err = %v, want the caller's deadline", err)
		}
	})
}
