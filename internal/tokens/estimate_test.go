package tokens

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// maxDeviation is how far Estimate may stray from o200k_base, on each fixture and on the
// whole corpus.
const maxDeviation = 0.15

func fixtures(t testing.TB) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata: %v", err)
	}
	texts := make(map[string]string, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts[strings.TrimSuffix(filepath.Base(p), ".txt")] = string(b)
	}
	return texts
}

// TestEstimateCalibration checks the estimator against o200k_base, the reference it is
// calibrated on (see Estimate). Run with -v for the calibration table.
func TestEstimateCalibration(t *testing.T) {
	var all strings.Builder
	check := func(name, text string) {
		want := o200k.Count(text)
		got := Estimate(text)
		dev := float64(got-want) / float64(want)
		t.Logf("%-16s %6d bytes  o200k %5d  estimate %5d  %+6.1f%%", name, len(text), want, got, 100*dev)
		if math.Abs(dev) > maxDeviation {
			t.Errorf("%s: Estimate = %d, o200k_base = %d: off by %+.1f%%, want within ±%.0f%%", name, got, want, 100*dev, 100*maxDeviation)
		}
	}
	texts := fixtures(t)
	for _, name := range sortedKeys(texts) {
		check(name, texts[name])
		all.WriteString(texts[name])
	}
	check("corpus", all.String())
}

func TestEstimateNeverZero(t *testing.T) {
	for _, text := range []string{
		" ", "\n", "a", "7", ".", "я", "字", "😀", "\u0301", "\xff", "\x00", "\u200d", "\ufe0f",
	} {
		if got := Estimate(text); got < 1 {
			t.Errorf("Estimate(%q) = %d, want at least 1", text, got)
		}
	}
	if got := Estimate(""); got != 0 {
		t.Errorf(`Estimate("") = %d, want 0`, got)
	}
}

// TestEstimateMonotonic grows the start of every fixture one character at a time, and a
// few edge cases one byte at a time, checking that the estimate never goes down.
func TestEstimateMonotonic(t *testing.T) {
	check := func(text string, step func(s string, i int) bool) {
		t.Helper()
		prev := 0
		for i := range len(text) + 1 {
			if i < len(text) && !step(text, i) {
				continue
			}
			got := Estimate(text[:i])
			if got < prev {
				t.Fatalf("Estimate(%q) = %d, less than %d for the text one step shorter", tail(text[:i]), got, prev)
			}
			prev = got
		}
	}
	byRune := func(s string, i int) bool { return utf8.RuneStart(s[i]) }
	byByte := func(string, int) bool { return true }
	texts := fixtures(t)
	for _, name := range sortedKeys(texts) {
		text := texts[name]
		check(text[:min(len(text), 1500)], byRune) // quadratic: the start covers each script
	}
	for _, s := range monotonicSeeds {
		check(s, byByte)
	}
}

var monotonicSeeds = []string{
	"don't  12 3\n\n   x😀\u200d👍\ufe0f 1234567 a.b(c) ХтоWho字a\u0301\xff\xfe",
	"it's 'quoted' rock'n'roll you’re",
	"====\n----\n\t\tif x {\n\t\t\treturn\n}",
	"Привіт, світе! Привет, мир! Ёж ґанок",
	"字。字、「字」\U0001F1FA\U0001F1E6 🙋\u200d♀\ufe0f",
}

// FuzzEstimateAppend checks that appending never lowers the estimate and that only the
// empty string costs nothing.
func FuzzEstimateAppend(f *testing.F) {
	for _, s := range monotonicSeeds {
		f.Add(s[:len(s)/2], s[len(s)/2:])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ea, eab := Estimate(a), Estimate(a+b)
		if eab < ea {
			t.Errorf("Estimate(%q) = %d, less than Estimate(%q) = %d", a+b, eab, a, ea)
		}
		if (ea == 0) != (a == "") {
			t.Errorf("Estimate(%q) = %d", a, ea)
		}
	})
}

func tail(s string) string {
	if len(s) > 40 {
		return "…" + s[len(s)-40:]
	}
	return s
}
