package tgexport_test

import (
	"go/build"
	"testing"
)

// TestImports: the export reader depends on nothing but the domain and the standard
// library, so any command or tool can read an export without pulling in the store, the
// pipeline or the Bot API client.
func TestImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if imp == "github.com/mynah-ai/mynah" {
			continue
		}
		if p, err := build.Import(imp, "", build.FindOnly); err != nil || !p.Goroot {
			t.Errorf("tgexport imports %s; it may import only the root package mynah and the standard library", imp)
		}
	}
}
