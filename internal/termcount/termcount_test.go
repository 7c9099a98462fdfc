package termcount_test

import (
	"slices"
	"testing"

	"github.com/mynah-ai/mynah/internal/termcount"
)

// A remembered count decides until enough messages were indexed since to change its
// decision, and never after the scope lost messages; that a word matched nothing is not
// remembered.
func TestCacheKeepsWhatStillDecides(t *testing.T) {
	var c termcount.Cache[string]
	if _, ok := c.Get("heron", 10); ok {
		t.Fatal("a count never probed was remembered")
	}
	c.Put("heron", 3, 100)
	c.Put("none", 0, 100)
	c.Put("walk", termcount.Common+10, 100)
	c.Put("the", termcount.VeryCommon, 100)
	for _, tc := range []struct {
		term string
		mark int64
		want bool
	}{
		{"heron", 100, true},
		{"heron", 100 + termcount.Common - 4, true}, // 3 + 496 new: still fewer than Common
		{"heron", 100 + termcount.Common - 3, false},
		{"heron", 99, false}, // messages were deleted since
		{"none", 100, false}, // an edit may have brought it in
		{"walk", 100 + termcount.VeryCommon - termcount.Common - 11, true},
		{"walk", 100 + termcount.VeryCommon - termcount.Common - 10, false},
		{"the", 1 << 40, true}, // very common stays very common
	} {
		if _, ok := c.Get(tc.term, tc.mark); ok != tc.want {
			t.Errorf("Get(%q, %d) decides = %v, want %v", tc.term, tc.mark, ok, tc.want)
		}
	}
	if n, _ := c.Get("walk", 100); n != termcount.Common+10 {
		t.Errorf("Get(walk) = %d, want %d", n, termcount.Common+10)
	}
}

// Split keeps the rare words in order and puts the common ones least common first; a word
// that matches nothing is neither, and only a common or very common word makes the search
// partial.
func TestSplit(t *testing.T) {
	rare, common, partial := termcount.Split([]int64{termcount.Common + 50, 3, 0, termcount.VeryCommon, termcount.Common, 1})
	if !slices.Equal(rare, []int{1, 5}) || !slices.Equal(common, []int{4, 0}) || !partial {
		t.Errorf("Split = %v, %v, %v; want [1 5], [4 0], true", rare, common, partial)
	}
	if rare, common, partial := termcount.Split([]int64{2, 0, 7}); !slices.Equal(rare, []int{0, 2}) || common != nil || partial {
		t.Errorf("Split of rare words = %v, %v, %v; want [0 2], [], false", rare, common, partial)
	}
	if _, _, partial := termcount.Split([]int64{termcount.VeryCommon + 1}); !partial {
		t.Error("a very common word alone did not make the search partial")
	}
}

// Past MaxRanked rare (or common) terms, a search ranks the rarest, in the terms' order,
// and says it left some out.
func TestSplitKeepsTheRarest(t *testing.T) {
	n := termcount.MaxRanked + 10
	counts := make([]int64, 2*n)
	for i := range n {
		counts[i] = int64(n - i)                        // rare: the later, the rarer
		counts[n+i] = int64(termcount.Common + 2*n - i) // common: the later, the less common
	}
	rare, common, partial := termcount.Split(counts)
	if len(rare) != termcount.MaxRanked || rare[0] != 10 || !slices.IsSorted(rare) || rare[len(rare)-1] != n-1 {
		t.Errorf("rare = %v; want the %d rarest, %d to %d, in order", rare, termcount.MaxRanked, 10, n-1)
	}
	if len(common) != termcount.MaxRanked || common[0] != 2*n-1 || counts[common[len(common)-1]] >= counts[n] {
		t.Errorf("common = %v; want the %d least common, least common first", common, termcount.MaxRanked)
	}
	if !partial {
		t.Error("terms left out, and the search was not partial")
	}
	if rare, _, partial := termcount.Split(counts[:termcount.MaxRanked]); len(rare) != termcount.MaxRanked || partial {
		t.Errorf("MaxRanked rare terms: %d kept, partial %v; want all, false", len(rare), partial)
	}
}
