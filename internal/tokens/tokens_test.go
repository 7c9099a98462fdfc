package tokens

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tiktoken-go/tokenizer/codec"
)

func TestFor(t *testing.T) {
	tests := []struct {
		kind, model string
		want        Counter
	}{
		{"openai", "gpt-4o", o200k},
		{"openai", "gpt-4o-mini", o200k},
		{"openai", "chatgpt-4o-latest", o200k},
		{"openai", "gpt-4.1-nano", o200k},
		{"openai", "gpt-4.5-preview", o200k},
		{"openai", "gpt-5", o200k},
		{"openai", "GPT-5-mini", o200k},
		{"openai", "o1", o200k},
		{"openai", "o3-mini", o200k},
		{"openai", "o4-mini-2025-04-16", o200k},
		{"openai", "gpt-oss-120b", o200k},
		{"openai", "gpt-7-turbo", o200k}, // unknown OpenAI names get the newest encoding
		{"openai", "openai/gpt-4o", o200k},
		{"openai", "ft:gpt-4o-mini-2024-07-18:acme::abc123", o200k},
		{"openai", "", o200k},
		{"openai", "gpt-4", cl100k},
		{"openai", "gpt-4-turbo", cl100k},
		{"openai", "gpt-4-0613", cl100k},
		{"openai", "gpt-3.5-turbo", cl100k},
		{"openai", "gpt-35-turbo", cl100k},
		{"openai", "ft:gpt-3.5-turbo-0125:acme::xyz", cl100k},
		{"openai", "text-embedding-3-small", cl100k},
		{"openai", "llama3.2", estimator{}}, // an OpenAI-compatible server
		{"openai", "qwen2.5:14b", estimator{}},
		{"openai", "meta-llama/llama-3.1-70b-instruct", estimator{}},
		{"openai", "anthropic/claude-sonnet-4", estimator{}},
		{"openai", "omni-moderation-latest", estimator{}},
		{"anthropic", "claude-sonnet-4-5", estimator{}},
		{"anthropic", "gpt-4o", estimator{}}, // the kind decides, not the name
		{"gemini", "gemini-2.5-flash", estimator{}},
		{"", "gpt-4o", estimator{}},
		{"mistral", "mistral-large", estimator{}},
	}
	for _, tt := range tests {
		if got := For(tt.kind, tt.model); got != tt.want {
			t.Errorf("For(%q, %q) = %s, want %s", tt.kind, tt.model, counterName(got), counterName(tt.want))
		}
	}
}

func counterName(c Counter) string {
	switch c {
	case o200k:
		return "o200k_base"
	case cl100k:
		return "cl100k_base"
	case estimator{}:
		return "the estimator"
	}
	return "an unknown counter"
}

// TestExactCounts pins counts: the first five are tiktoken's own (ids in tiktoken-go's
// tests, which are checked against Python tiktoken); the rest were computed with this
// module at v0.10.0 and guard against a changed table or split.
func TestExactCounts(t *testing.T) {
	tests := []struct {
		text          string
		o200k, cl100k int
	}{
		{"hello world", 2, 2},
		{"hello  world", 3, 3},
		{"'RE", 2, 1},
		{"supercalifragilistic", 6, 7},
		{"We know what we are, but know not what we may be.", 14, 14},
		{"Hello, world!", 4, 4},
		{"Привіт, як справи?", 8, 11},
		{"Привет, как дела?", 6, 8},
		{"你好，世界", 3, 6},
		{"こんにちは世界", 2, 4},
		{"<|endoftext|>", 7, 7}, // special tokens are text in a message
		{"", 0, 0},
	}
	gpt4o, gpt4 := For("openai", "gpt-4o"), For("openai", "gpt-4")
	for _, tt := range tests {
		if got := gpt4o.Count(tt.text); got != tt.o200k {
			t.Errorf("o200k_base: Count(%q) = %d, want %d", tt.text, got, tt.o200k)
		}
		if got := gpt4.Count(tt.text); got != tt.cl100k {
			t.Errorf("cl100k_base: Count(%q) = %d, want %d", tt.text, got, tt.cl100k)
		}
	}
}

// TestExactIsNotEstimate guards against For quietly falling back to the estimator.
func TestExactIsNotEstimate(t *testing.T) {
	texts := fixtures(t)
	differ := 0
	for _, name := range sortedKeys(texts) {
		text := texts[name]
		if For("openai", "gpt-4o").Count(text) != Estimate(text) {
			differ++
		}
	}
	if differ < len(texts)/2 {
		t.Errorf("gpt-4o counts equal Estimate on %d of %d fixtures; want exact counts", len(texts)-differ, len(texts))
	}
	if got, est := For("openai", "gpt-4o").Count("こんにちは世界"), Estimate("こんにちは世界"); got == est {
		t.Errorf("gpt-4o and Estimate both count %d tokens in こんにちは世界; want the exact 2", got)
	}
}

func TestBPEInvalidUTF8(t *testing.T) {
	for _, text := range []string{"\xff", "ok\xfe\xff", "Прив\xd0", strings.Repeat("\x80", 100)} {
		if got := o200k.Count(text); got < 1 {
			t.Errorf("o200k_base: Count(%q) = %d, want at least 1", text, got)
		}
	}
}

// TestBPELoadsLazily checks that a bpe builds its table on the first Count, once, even
// when that first Count comes from many goroutines at once.
func TestBPELoadsLazily(t *testing.T) {
	var mu sync.Mutex
	loads := 0
	b := &bpe{load: func() *codec.Codec {
		mu.Lock()
		loads++
		mu.Unlock()
		return codec.NewCl100kBase()
	}}
	if b.Count("") != 0 || loads != 0 {
		t.Fatalf("counting the empty string loaded the table %d times; want 0", loads)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := b.Count("hello world"); got != 2 {
				t.Errorf(`Count("hello world") = %d, want 2`, got)
			}
		})
	}
	wg.Wait()
	if loads != 1 {
		t.Errorf("table loaded %d times, want 1", loads)
	}
}

// TestConcurrentCounts runs every counter from several goroutines; run it with -race.
func TestConcurrentCounts(t *testing.T) {
	texts := fixtures(t)
	counters := []Counter{For("openai", "gpt-4o"), For("openai", "gpt-4"), For("anthropic", "claude-sonnet-4-5")}
	want := make([][]int, len(counters))
	names := sortedKeys(texts)
	for i, c := range counters {
		for _, name := range names {
			want[i] = append(want[i], c.Count(texts[name]))
		}
	}
	var wg sync.WaitGroup
	for range 4 {
		for i, c := range counters {
			wg.Go(func() {
				for j, name := range names {
					if got := c.Count(texts[name]); got != want[i][j] {
						t.Errorf("%s on %s: concurrent Count = %d, want %d", counterName(c), name, got, want[i][j])
					}
				}
			})
		}
	}
	wg.Wait()
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
