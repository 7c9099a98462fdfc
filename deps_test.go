package mynah_test

import (
	"go/build"
	"os/exec"
	"strings"
	"testing"
)

// TestLayering enforces DESIGN §2: the root package imports only the standard library,
// pipeline packages never import an adapter, and adapters never import pipeline packages
// or each other.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	const mod = "github.com/mynah-ai/mynah"
	// Every package that works on a message between intake and delivery is pipeline; every
	// package that speaks to something outside the process (Telegram, a file format, a
	// database, a provider) is an adapter.
	pipeline := map[string]bool{}
	for _, p := range []string{"ingest", "access", "lane", "prompt", "memory", "tool", "tokens", "media", "crew"} {
		pipeline[mod+"/internal/"+p] = true
	}
	adapters := map[string]bool{}
	for _, p := range []string{"telegram", "telegram/tghtml", "telegram/tgexport", "sqlite", "postgres", "llm/openai", "llm/anthropic", "llm/gemini", "llm/cli", "metrics"} {
		adapters[mod+"/internal/"+p] = true
	}
	if len(out) == 0 {
		t.Fatal("go list listed no packages")
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		listed[pkg] = true
		for _, imp := range imports {
			switch {
			case pkg == mod:
				if p, err := build.Import(imp, "", build.FindOnly); err != nil || !p.Goroot {
					t.Errorf("the root package imports %s; it may import only the standard library", imp)
				}
			case pipeline[pkg] && adapters[imp]:
				t.Errorf("pipeline package %s imports adapter %s", pkg, imp)
			case adapters[pkg] && ((adapters[imp] && !strings.HasPrefix(imp, pkg+"/")) || pipeline[imp]):
				// An adapter may use its own subpackages (telegram → telegram/tghtml).
				t.Errorf("adapter %s imports %s", pkg, imp)
			}
			if strings.HasPrefix(imp, mod+"/") && (strings.HasSuffix(imp, "/util") || strings.HasSuffix(imp, "/common") || strings.HasSuffix(imp, "/helpers")) {
				t.Errorf("%s imports a grab-bag package %s", pkg, imp)
			}
		}
	}
	// A renamed package must not silently drop out of the rules.
	for _, set := range []map[string]bool{pipeline, adapters} {
		for pkg := range set {
			if !listed[pkg] {
				t.Errorf("the layering rules name %s, which no longer exists", pkg)
			}
		}
	}
}
