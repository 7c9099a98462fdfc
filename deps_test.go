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
	pipeline := map[string]bool{mod + "/internal/ingest": true, mod + "/internal/lane": true, mod + "/internal/prompt": true}
	adapters := map[string]bool{
		mod + "/internal/telegram": true, mod + "/internal/sqlite": true,
		mod + "/internal/llm/openai": true, mod + "/internal/llm/anthropic": true, mod + "/internal/llm/gemini": true,
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		for _, imp := range imports {
			switch {
			case pkg == mod:
				if p, err := build.Import(imp, "", build.FindOnly); err != nil || !p.Goroot {
					t.Errorf("the root package imports %s; it may import only the standard library", imp)
				}
			case pipeline[pkg] && adapters[imp]:
				t.Errorf("pipeline package %s imports adapter %s", pkg, imp)
			case adapters[pkg] && (adapters[imp] || pipeline[imp]):
				t.Errorf("adapter %s imports %s", pkg, imp)
			}
			if strings.HasPrefix(imp, mod+"/") && (strings.HasSuffix(imp, "/util") || strings.HasSuffix(imp, "/common") || strings.HasSuffix(imp, "/helpers")) {
				t.Errorf("%s imports a grab-bag package %s", pkg, imp)
			}
		}
	}
}
