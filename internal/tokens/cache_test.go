package tokens

import (
	"fmt"
	"sync"
	"testing"
)

// countingCounter counts how often it is asked.
type countingCounter struct {
	mu    sync.Mutex
	calls int
}

func (c *countingCounter) Count(text string) int {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return len(text)
}

func TestCachedRemembersAndStaysBounded(t *testing.T) {
	inner := &countingCounter{}
	c := Cached(inner, 10).(*cache)
	text := "a message long enough to be cached"
	for i := 0; i < 5; i++ {
		if got := c.Count(text); got != len(text) {
			t.Fatalf("Count = %d, want %d", got, len(text))
		}
	}
	if inner.calls != 1 {
		t.Errorf("inner counter asked %d times for the same text, want 1", inner.calls)
	}
	for i := 0; i < 1000; i++ {
		c.Count(fmt.Sprintf("another message, number %04d", i))
	}
	if n := len(c.gen.cur) + len(c.gen.old); n > 20 {
		t.Errorf("cache holds %d entries, want at most 2×10", n)
	}
	exact := For("openai", "gpt-4o")
	cached := Cached(exact, 100)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				s := fmt.Sprintf("Привіт, як справи? message %d", i%50)
				if cached.Count(s) != exact.Count(s) {
					t.Errorf("cached count differs for %q", s)
					return
				}
			}
		}()
	}
	wg.Wait()
}
